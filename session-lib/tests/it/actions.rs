//! Actions between two sessions: goals that succeed with their feedback in order, are canceled
//! mid-way, abort, run side by side; results kept for the result timeout and then forgotten; a
//! client that vanishes mid-goal; and the status array a late subscriber sees.

use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use zshm::msgs::action_msgs::msg::GoalStatusArray;
use zshm::msgs::action_msgs::srv::{CancelGoal, CancelGoal_Request};
use zshm::msgs::action_tutorials_interfaces::action::{
    Fibonacci, Fibonacci_Feedback, Fibonacci_Goal, Fibonacci_Result,
};
use zshm::ros::action::{
    ActionError, ActionServer, ActionServerOptions, CancelCode, CancelResponse, GoalError, GoalId,
    GoalResponse, GoalStatus, ServerGoalHandle,
};
use zshm::ros::qos::{Durability, QosProfile};
use zshm::ros::{Node, NodeOptions};

use crate::lane::DEADLINE;
use crate::session_pair;

/// A goal of this order aborts after its first feedback.
const ABORTING_ORDER: i32 = 13;
/// Goals above this order are rejected.
const MAX_ORDER: i32 = 40;

/// The tutorial's execution, one step per `step`: feedback, cancel checks, a result.
fn execute(handle: &ServerGoalHandle<Fibonacci>, step: Duration) {
    let order = handle.goal().map_or(0, |goal| goal.order);
    let mut sequence = vec![0, 1];
    for i in 1..order as usize {
        if handle.is_canceling() {
            handle
                .canceled(Fibonacci_Result { sequence })
                .expect("a canceling goal can end canceled");
            return;
        }
        sequence.push(sequence[i] + sequence[i - 1]);
        handle.publish_feedback(Fibonacci_Feedback {
            partial_sequence: sequence.clone(),
        });
        if order == ABORTING_ORDER {
            handle.abort(Fibonacci_Result { sequence }).unwrap();
            return;
        }
        std::thread::sleep(step);
    }
    handle.succeed(Fibonacci_Result { sequence }).unwrap();
}

async fn server(node: &Node, step: Duration, options: ActionServerOptions) -> ActionServer<Fibonacci> {
    node.create_action_server_with::<Fibonacci>(
        "fibonacci",
        options,
        |_id, goal| {
            if goal.order > MAX_ORDER {
                GoalResponse::Reject
            } else {
                GoalResponse::AcceptAndExecute
            }
        },
        |_handle| CancelResponse::Accept,
        move |handle| {
            std::thread::spawn(move || execute(&handle, step));
        },
    )
    .await
    .unwrap()
}

fn fibonacci(order: usize) -> Vec<i32> {
    let mut sequence = vec![0, 1];
    for i in 1..order {
        sequence.push(sequence[i] + sequence[i - 1]);
    }
    sequence
}

/// The feedback sequences a callback collected, in order.
type Seen = Arc<Mutex<Vec<Vec<i32>>>>;

/// Feedback sequences as a callback collects them.
fn collector() -> (Seen, impl FnMut(Fibonacci_Feedback) + Send + 'static) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = seen.clone();
    (seen, move |feedback: Fibonacci_Feedback| {
        into.lock().unwrap().push(feedback.partial_sequence)
    })
}

async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !done().await {
        assert!(
            Instant::now() < deadline,
            "{what} did not happen within {DEADLINE:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goal_succeeds_with_its_feedback_in_order_and_a_late_subscriber_sees_its_status() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "fibonacci_action_server", NodeOptions::default())
        .await
        .unwrap();
    let server = server(
        &server_node,
        Duration::from_millis(10),
        ActionServerOptions::default(),
    )
    .await;
    let client_node = Node::new(&b, "fibonacci_action_client", NodeOptions::default())
        .await
        .unwrap();
    let client = client_node
        .create_action_client::<Fibonacci>("/fibonacci")
        .await
        .unwrap();
    assert!(
        client.wait_for_action_server(DEADLINE).await,
        "the server's services are seen"
    );

    let (seen, on_feedback) = collector();
    let goal = client
        .send_goal(Fibonacci_Goal { order: 8 }, on_feedback)
        .await
        .unwrap();
    // Asked before the goal ends: the server defers the answer until it does.
    let result = goal.get_result(DEADLINE).await.unwrap();
    assert_eq!(result.status, GoalStatus::Succeeded);
    assert_eq!(result.result.sequence, fibonacci(8));
    until("the last feedback", async || seen.lock().unwrap().len() == 7).await;
    let expected: Vec<Vec<i32>> = (2..=8).map(fibonacci).collect();
    assert_eq!(*seen.lock().unwrap(), expected, "every feedback, in order");
    assert_eq!(server.goals(), vec![(goal.goal_id(), GoalStatus::Succeeded)]);

    // The status topic is transient local: a subscriber made now gets the last array.
    let (tx, rx) = mpsc::channel();
    let _status = client_node
        .create_subscription::<GoalStatusArray>(
            "/fibonacci/_action/status",
            QosProfile::keep_last(1).durability(Durability::TransientLocal),
            move |sample| {
                let _ = tx.send(sample.decode());
            },
        )
        .await
        .unwrap();
    let array = rx.recv_timeout(DEADLINE).unwrap();
    assert_eq!(array.status_list.len(), 1, "{array:?}");
    let status = &array.status_list[0];
    assert_eq!(status.goal_info.goal_id.uuid, goal.goal_id().0);
    assert_eq!(status.status, GoalStatus::Succeeded.to_wire());
    assert_eq!(
        (status.goal_info.stamp.sec, status.goal_info.stamp.nanosec),
        goal.stamp()
    );
    assert!(goal.stamp().0 > 0, "the server stamps the acceptance");
    until("the client's status", async || {
        goal.status() == GoalStatus::Succeeded
    })
    .await;

    let rejected = client
        .send_goal(Fibonacci_Goal { order: MAX_ORDER + 1 }, |_| {})
        .await;
    assert!(
        matches!(rejected, Err(ActionError::Rejected { .. })),
        "{rejected:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goal_canceled_mid_way_ends_canceled_and_cancel_codes_follow_cancel_goal() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "fibonacci_action_server", NodeOptions::default())
        .await
        .unwrap();
    let _server = server(
        &server_node,
        Duration::from_millis(50),
        ActionServerOptions::default(),
    )
    .await;
    let client_node = Node::new(&b, "fibonacci_action_client", NodeOptions::default())
        .await
        .unwrap();
    let client = client_node
        .create_action_client::<Fibonacci>("fibonacci")
        .await
        .unwrap();
    assert!(client.wait_for_action_server(DEADLINE).await);

    let (seen, on_feedback) = collector();
    let goal = client
        .send_goal(Fibonacci_Goal { order: 40 }, on_feedback)
        .await
        .unwrap();
    until("a first feedback", async || !seen.lock().unwrap().is_empty()).await;
    let outcome = goal.cancel(DEADLINE).await.unwrap();
    assert_eq!(outcome.code, CancelCode::None);
    assert_eq!(outcome.goals_canceling, vec![goal.goal_id()]);
    let result = goal.get_result(DEADLINE).await.unwrap();
    assert_eq!(result.status, GoalStatus::Canceled);
    assert!(
        result.result.sequence.len() < 41,
        "it stopped early: {:?}",
        result.result
    );

    let again = goal.cancel(DEADLINE).await.unwrap();
    assert_eq!(again.code, CancelCode::GoalTerminated);
    let raw = client_node
        .create_client::<CancelGoal>("/fibonacci/_action/cancel_goal")
        .await
        .unwrap();
    assert!(raw.wait_for_service_async(DEADLINE).await);
    let mut unknown = CancelGoal_Request::default();
    unknown.goal_info.goal_id.uuid = GoalId::random().0;
    let response = raw.call_async(&unknown, DEADLINE).await.unwrap();
    assert_eq!(
        CancelCode::from_wire(response.return_code),
        CancelCode::UnknownGoalId
    );
    assert!(response.goals_canceling.is_empty());

    // cancel_all and cancel-before pick every running goal, and only those.
    let first = client
        .send_goal(Fibonacci_Goal { order: 40 }, |_| {})
        .await
        .unwrap();
    let second = client
        .send_goal(Fibonacci_Goal { order: 40 }, |_| {})
        .await
        .unwrap();
    let before = client.cancel_goals_before(first.stamp(), DEADLINE).await.unwrap();
    assert_eq!(before.goals_canceling, vec![first.goal_id()]);
    let all = client.cancel_all(DEADLINE).await.unwrap();
    assert_eq!(all.goals_canceling, vec![second.goal_id()]);
    assert_eq!(
        first.get_result(DEADLINE).await.unwrap().status,
        GoalStatus::Canceled
    );
    assert_eq!(
        second.get_result(DEADLINE).await.unwrap().status,
        GoalStatus::Canceled
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_goal_reports_aborted_and_refuses_any_later_change() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "fibonacci_action_server", NodeOptions::default())
        .await
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let _server = server_node
        .create_action_server::<Fibonacci>(
            "fibonacci",
            |_id, _goal| GoalResponse::AcceptAndDefer,
            |_handle| CancelResponse::Reject,
            move |handle| {
                let _ = tx.send(handle);
            },
        )
        .await
        .unwrap();
    let client_node = Node::new(&b, "fibonacci_action_client", NodeOptions::default())
        .await
        .unwrap();
    let client = client_node
        .create_action_client::<Fibonacci>("fibonacci")
        .await
        .unwrap();
    assert!(client.wait_for_action_server(DEADLINE).await);

    let goal = client
        .send_goal(
            Fibonacci_Goal {
                order: ABORTING_ORDER,
            },
            |_| {},
        )
        .await
        .unwrap();
    let handle = rx.recv_timeout(DEADLINE).unwrap();
    assert_eq!(handle.status(), GoalStatus::Accepted);
    let early = handle.succeed(Fibonacci_Result::default());
    assert!(
        matches!(
            early,
            Err(GoalError::IllegalTransition {
                from: GoalStatus::Accepted,
                ..
            })
        ),
        "{early:?}"
    );
    let refused = goal.cancel(DEADLINE).await.unwrap();
    assert_eq!(refused.code, CancelCode::Rejected, "handle_cancel refused it");
    handle.execute().unwrap();
    std::thread::spawn(move || execute(&handle, Duration::from_millis(1)))
        .join()
        .unwrap();
    let result = goal.get_result(DEADLINE).await.unwrap();
    assert_eq!(result.status, GoalStatus::Aborted);
    assert_eq!(result.result.sequence, fibonacci(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_goals_at_once_each_get_their_own_feedback_and_result() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "fibonacci_action_server", NodeOptions::default())
        .await
        .unwrap();
    let _server = server(
        &server_node,
        Duration::from_millis(20),
        ActionServerOptions::default(),
    )
    .await;
    let client_node = Node::new(&b, "fibonacci_action_client", NodeOptions::default())
        .await
        .unwrap();
    let client = client_node
        .create_action_client::<Fibonacci>("fibonacci")
        .await
        .unwrap();
    assert!(client.wait_for_action_server(DEADLINE).await);

    let (seen_a, feedback_a) = collector();
    let (seen_b, feedback_b) = collector();
    let goal_a = client
        .send_goal(Fibonacci_Goal { order: 6 }, feedback_a)
        .await
        .unwrap();
    let goal_b = client
        .send_goal(Fibonacci_Goal { order: 9 }, feedback_b)
        .await
        .unwrap();
    assert_ne!(goal_a.goal_id(), goal_b.goal_id());
    let (result_a, result_b) = tokio::join!(goal_a.get_result(DEADLINE), goal_b.get_result(DEADLINE));
    assert_eq!(result_a.unwrap().result.sequence, fibonacci(6));
    assert_eq!(result_b.unwrap().result.sequence, fibonacci(9));
    until("the last feedback of both", async || {
        seen_a.lock().unwrap().len() == 5 && seen_b.lock().unwrap().len() == 8
    })
    .await;
    assert_eq!(
        *seen_a.lock().unwrap(),
        (2..=6).map(fibonacci).collect::<Vec<_>>()
    );
    assert_eq!(
        *seen_b.lock().unwrap(),
        (2..=9).map(fibonacci).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_is_kept_for_the_result_timeout_then_forgotten_even_when_its_client_vanished() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "fibonacci_action_server", NodeOptions::default())
        .await
        .unwrap();
    let options = ActionServerOptions::default().result_timeout(Duration::from_millis(500));
    let server = server(&server_node, Duration::from_millis(20), options).await;
    let client_node = Node::new(&b, "fibonacci_action_client", NodeOptions::default())
        .await
        .unwrap();
    let client = client_node
        .create_action_client::<Fibonacci>("fibonacci")
        .await
        .unwrap();
    assert!(client.wait_for_action_server(DEADLINE).await);

    let goal = client
        .send_goal(Fibonacci_Goal { order: 3 }, |_| {})
        .await
        .unwrap();
    assert_eq!(
        goal.get_result(DEADLINE).await.unwrap().status,
        GoalStatus::Succeeded
    );
    // Asked again: answered from what the server keeps.
    assert_eq!(
        goal.get_result(DEADLINE).await.unwrap().result.sequence,
        fibonacci(3)
    );
    until("the result's expiry", async || {
        goal.get_result(DEADLINE).await.unwrap().status == GoalStatus::Unknown
    })
    .await;
    assert!(server.goals().is_empty());

    // A client that vanishes mid-goal: its goal still ends and expires, and new goals come in.
    let vanishing = client
        .send_goal(Fibonacci_Goal { order: 20 }, |_| {})
        .await
        .unwrap();
    let id = vanishing.goal_id();
    drop(vanishing);
    drop(client);
    drop(client_node);
    b.close().await.unwrap();
    until("the abandoned goal's end", async || {
        server.goals() == vec![(id, GoalStatus::Succeeded)]
    })
    .await;
    until("the abandoned goal's expiry", async || server.goals().is_empty()).await;

    let late_node = Node::new(&a, "fibonacci_late_client", NodeOptions::default())
        .await
        .unwrap();
    let late = late_node
        .create_action_client::<Fibonacci>("fibonacci")
        .await
        .unwrap();
    assert!(late.wait_for_action_server(DEADLINE).await);
    let goal = late.send_goal(Fibonacci_Goal { order: 4 }, |_| {}).await.unwrap();
    assert_eq!(
        goal.get_result(DEADLINE).await.unwrap().result.sequence,
        fibonacci(4)
    );
}
