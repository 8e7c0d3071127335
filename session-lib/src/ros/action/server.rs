//! [`ActionServer`]: takes goals, answers cancels and result requests, publishes status and
//! feedback, and forgets finished goals after the result timeout. The goals themselves are in
//! the shared goal table (`goals`) that goal handles change.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::goal_handle::ServerGoalHandle;
use super::goal_state::{GoalEvent, GoalStatus};
use super::goals::{Goal, Goals, Out, goal_info};
use super::{CancelCode, GoalId, feedback_qos, stamp_of, status_qos, wire};
use crate::msgs::action_msgs::msg::GoalStatusArray;
use crate::msgs::action_msgs::srv::{CancelGoal, CancelGoal_Request, CancelGoal_Response};
use crate::msgs::{ActionParts, wall_clock_nanos};
use crate::ros::executor::{CallbackGroup, Timer};
use crate::ros::node_base::{NodeBase, NodeError};
use crate::ros::publisher::Publisher;
use crate::ros::service::{Responder, Service, ServiceOptions};

/// What `handle_goal` says about a new goal (rclcpp_action's `GoalResponse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalResponse {
    /// Refuse it; the client gets `accepted: false`.
    Reject,
    /// Accept it and move it to executing before `handle_accepted` runs.
    AcceptAndExecute,
    /// Accept it; `handle_accepted` (or later code) calls
    /// [`execute`](ServerGoalHandle::execute).
    AcceptAndDefer,
}

/// What `handle_cancel` says about a request to cancel a goal (rclcpp_action's
/// `CancelResponse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelResponse {
    /// Keep the goal going.
    Reject,
    /// Move the goal to canceling; its execution should notice
    /// [`is_canceling`](ServerGoalHandle::is_canceling) and end with `canceled`.
    Accept,
}

/// How an action server is set up, beside its name and handlers.
#[derive(Debug, Clone)]
pub struct ActionServerOptions {
    /// How long a finished goal's result is kept, counted from the goal's end (10 s, as rcl).
    pub result_timeout: Duration,
    /// The group its handlers belong to; the node's default one if `None`.
    pub callback_group: Option<CallbackGroup>,
}

impl Default for ActionServerOptions {
    fn default() -> Self {
        Self {
            result_timeout: Duration::from_secs(10),
            callback_group: None,
        }
    }
}

impl ActionServerOptions {
    /// These options with another result timeout.
    pub fn result_timeout(mut self, timeout: Duration) -> Self {
        self.result_timeout = timeout;
        self
    }
}

/// `handle_goal`: decides on a new goal, from its id and value.
type GoalHandler<A> = Box<dyn FnMut(GoalId, &<A as crate::msgs::ActionType>::Goal) -> GoalResponse + Send>;
/// `handle_cancel`: decides on a request to cancel a goal.
type CancelHandler<A> = Box<dyn FnMut(&ServerGoalHandle<A>) -> CancelResponse + Send>;
/// `handle_accepted`: gets each accepted goal, to execute it (usually on a thread of its own).
type AcceptedHandler<A> = Box<dyn FnMut(ServerGoalHandle<A>) + Send>;

/// Serves action `A` until dropped: its three services, its status and feedback topics, and the
/// timer that forgets finished goals. Goal handles still held keep their goals' publishing going
/// until they are dropped too.
pub struct ActionServer<A: ActionParts> {
    name: String,
    goals: Arc<Goals<A>>,
    _send_goal: Service<A::SendGoal>,
    _cancel_goal: Service<CancelGoal>,
    _get_result: Service<A::GetResult>,
    _expiry: Timer,
}

impl<A: ActionParts> std::fmt::Debug for ActionServer<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionServer")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<A: ActionParts> ActionServer<A> {
    /// The expanded action name (`/fibonacci`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The goals held now (running, and finished ones whose result is kept), with their status.
    pub fn goals(&self) -> Vec<(GoalId, GoalStatus)> {
        self.goals
            .lock()
            .iter()
            .map(|goal| (goal.id, goal.status))
            .collect()
    }
}

impl NodeBase {
    /// Serves action `name` (expanded for this node) as rclcpp_action's `create_server`:
    /// `handle_goal` accepts or rejects each goal, `handle_cancel` each cancel request, and
    /// `handle_accepted` gets each accepted goal's handle. All three run on the node's executor,
    /// so an execution that takes time belongs on a thread or task of its own.
    pub async fn create_action_server<A: ActionParts>(
        &self,
        name: &str,
        handle_goal: impl FnMut(GoalId, &A::Goal) -> GoalResponse + Send + 'static,
        handle_cancel: impl FnMut(&ServerGoalHandle<A>) -> CancelResponse + Send + 'static,
        handle_accepted: impl FnMut(ServerGoalHandle<A>) + Send + 'static,
    ) -> Result<ActionServer<A>, NodeError> {
        self.create_action_server_with(
            name,
            ActionServerOptions::default(),
            handle_goal,
            handle_cancel,
            handle_accepted,
        )
        .await
    }

    /// [`create_action_server`](Self::create_action_server) with a result timeout or a callback
    /// group. Must be called inside a tokio runtime: status and feedback are published by a task
    /// of its own, so goal handles can publish from any thread without blocking.
    pub async fn create_action_server_with<A: ActionParts>(
        &self,
        name: &str,
        options: ActionServerOptions,
        handle_goal: impl FnMut(GoalId, &A::Goal) -> GoalResponse + Send + 'static,
        handle_cancel: impl FnMut(&ServerGoalHandle<A>) -> CancelResponse + Send + 'static,
        handle_accepted: impl FnMut(ServerGoalHandle<A>) + Send + 'static,
    ) -> Result<ActionServer<A>, NodeError> {
        let action = self.expand_topic(name)?;
        let feedback: Publisher<A::FeedbackMessage> = self
            .create_publisher(&format!("{action}{}", wire::FEEDBACK), feedback_qos())
            .await?;
        let status: Publisher<GoalStatusArray> = self
            .create_publisher(&format!("{action}{}", wire::STATUS), status_qos())
            .await?;
        let (out, mut queue) = tokio::sync::mpsc::unbounded_channel::<Out<A>>();
        let topic = action.clone();
        tokio::spawn(async move {
            while let Some(item) = queue.recv().await {
                let sent = match item {
                    Out::Feedback(message) => feedback.publish(&message).await,
                    Out::Status(array) => status.publish(&array).await,
                    Out::Result(responders, response) => {
                        for responder in responders {
                            reply(&topic, responder, &response);
                        }
                        Ok(())
                    }
                };
                if let Err(err) = sent {
                    tracing::warn!(action = %topic, "cannot publish: {err}");
                }
            }
        });
        let goals = Arc::new(Goals::<A>::new(action.clone(), out));
        let group = options
            .callback_group
            .clone()
            .unwrap_or_else(|| self.default_callback_group().clone());
        let service_options = ServiceOptions::default().callback_group(&group);

        let mut on_goal = SendGoal::<A> {
            goals: goals.clone(),
            handle_goal: Box::new(handle_goal),
            handle_accepted: Box::new(handle_accepted),
        };
        let send_goal = self
            .create_service_with::<A::SendGoal>(
                &format!("{action}{}", wire::SEND_GOAL),
                service_options.clone(),
                move |request, responder| on_goal.handle(request, responder),
            )
            .await?;
        let mut on_cancel = Cancel::<A> {
            goals: goals.clone(),
            handle_cancel: Box::new(handle_cancel),
        };
        let cancel_goal = self
            .create_service_with::<CancelGoal>(
                &format!("{action}{}", wire::CANCEL_GOAL),
                service_options.clone(),
                move |request, responder| on_cancel.handle(request, responder),
            )
            .await?;
        let for_results = goals.clone();
        let get_result = self
            .create_service_with::<A::GetResult>(
                &format!("{action}{}", wire::GET_RESULT),
                service_options,
                move |request, responder| get_result(&for_results, &request, responder),
            )
            .await?;
        let timeout = options.result_timeout;
        let period = (timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        let weak: Weak<Goals<A>> = Arc::downgrade(&goals);
        let expiry = self.create_timer_in(period, &group, move || {
            if let Some(goals) = weak.upgrade() {
                goals.expire(timeout, Instant::now());
            }
        })?;
        Ok(ActionServer {
            name: action,
            goals,
            _send_goal: send_goal,
            _cancel_goal: cancel_goal,
            _get_result: get_result,
            _expiry: expiry,
        })
    }
}

/// The send-goal service's handler.
struct SendGoal<A: ActionParts> {
    goals: Arc<Goals<A>>,
    handle_goal: GoalHandler<A>,
    handle_accepted: AcceptedHandler<A>,
}

impl<A: ActionParts> SendGoal<A> {
    fn handle(&mut self, request: crate::msgs::SendGoalRequest<A>, responder: Responder<A::SendGoal>) {
        let (id, goal) = A::split_send_goal_request(request);
        let id = GoalId(id);
        let duplicate = self.goals.lock().iter().any(|held| held.id == id);
        let decision = if duplicate {
            // rcl refuses a goal id it holds already.
            tracing::debug!(action = %self.goals.name, goal = %id, "refused a duplicate goal id");
            GoalResponse::Reject
        } else {
            (self.handle_goal)(id, &goal)
        };
        if decision == GoalResponse::Reject {
            reply(&self.goals.name, responder, &A::send_goal_response(false, (0, 0)));
            return;
        }
        let stamp = stamp_of(wall_clock_nanos());
        {
            let mut table = self.goals.lock();
            table.push(Goal {
                id,
                stamp,
                status: GoalStatus::Accepted,
                result: None,
                waiting: Vec::new(),
                ended: None,
            });
            if decision == GoalResponse::AcceptAndExecute
                && let Some(held) = table.last_mut()
            {
                held.status = GoalStatus::Executing;
            }
            self.goals.publish_status(&table);
        }
        reply(&self.goals.name, responder, &A::send_goal_response(true, stamp));
        let handle = ServerGoalHandle::new(self.goals.clone(), id, stamp, Arc::new(goal));
        (self.handle_accepted)(handle);
    }
}

/// The cancel service's handler.
struct Cancel<A: ActionParts> {
    goals: Arc<Goals<A>>,
    handle_cancel: CancelHandler<A>,
}

impl<A: ActionParts> Cancel<A> {
    /// CancelGoal's semantics (rcl_action_process_cancel_request): a goal id alone picks that
    /// goal, a stamp alone every goal accepted at or before it, both together the union, and
    /// neither every goal. Only accepted or executing goals are asked about.
    fn handle(&mut self, request: CancelGoal_Request, responder: Responder<CancelGoal>) {
        let id = GoalId(request.goal_info.goal_id.uuid);
        let stamp = (request.goal_info.stamp.sec, request.goal_info.stamp.nanosec);
        let everything = id.is_zero() && stamp == (0, 0);
        let (code, chosen) = {
            let table = self.goals.lock();
            let single = (!id.is_zero()).then(|| table.iter().find(|goal| goal.id == id));
            let code = match single {
                Some(None) if stamp == (0, 0) => Some(CancelCode::UnknownGoalId),
                Some(Some(goal)) if stamp == (0, 0) && goal.status.is_terminal() => {
                    Some(CancelCode::GoalTerminated)
                }
                _ => None,
            };
            let chosen: Vec<(GoalId, (i32, u32))> = table
                .iter()
                .filter(|goal| goal.status.is_cancelable())
                .filter(|goal| everything || goal.id == id || (stamp != (0, 0) && goal.stamp <= stamp))
                .map(|goal| (goal.id, goal.stamp))
                .collect();
            (code, chosen)
        };
        let mut response = CancelGoal_Response::default();
        if let Some(code) = code {
            response.return_code = code.to_wire();
            reply(&self.goals.name, responder, &response);
            return;
        }
        for (goal, goal_stamp) in &chosen {
            let handle = ServerGoalHandle::without_goal(self.goals.clone(), *goal, *goal_stamp);
            if (self.handle_cancel)(&handle) == CancelResponse::Accept
                && self.goals.transition(*goal, GoalEvent::CancelGoal, None).is_ok()
            {
                response.goals_canceling.push(goal_info(*goal, *goal_stamp));
            }
        }
        // rclcpp: when every chosen goal is refused, the whole request is.
        if !chosen.is_empty() && response.goals_canceling.is_empty() {
            response.return_code = CancelCode::Rejected.to_wire();
        }
        reply(&self.goals.name, responder, &response);
    }
}

/// The result service's handler: a finished goal's result now, a running goal's when it ends,
/// an unknown goal's `STATUS_UNKNOWN` with an empty result now.
fn get_result<A: ActionParts>(
    goals: &Goals<A>,
    request: &crate::msgs::GetResultRequest<A>,
    responder: Responder<A::GetResult>,
) {
    let id = GoalId(A::get_result_request_goal_id(request));
    let mut table = goals.lock();
    match table.iter_mut().find(|goal| goal.id == id) {
        Some(goal) => match &goal.result {
            // Behind the goal's final status, which was queued when the result was kept.
            Some(result) => goals.send_result(vec![responder], result.clone()),
            None => goal.waiting.push(responder),
        },
        None => {
            drop(table);
            let empty = A::default_result();
            reply(
                &goals.name,
                responder,
                &A::get_result_response(GoalStatus::Unknown.to_wire(), empty),
            );
        }
    }
}

fn reply<S: crate::msgs::ServiceType>(action: &str, responder: Responder<S>, response: &S::Response) {
    if let Err(err) = responder.send(response) {
        tracing::debug!(action = %action, "cannot reply: {err}");
    }
}
