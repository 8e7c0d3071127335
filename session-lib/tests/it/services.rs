//! Services between two sessions: calls answered on the server's executor, the failure modes
//! each with a bounded wait and its own error, and big replies through shared memory.

use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use zshm::msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};
use zshm::msgs::nav_msgs::srv::{GetMap, GetMap_Request, GetMap_Response};
use zshm::msgs::{Message, ServiceType};
use zshm::raw::RawReply;
use zshm::ros::attachment::Attachment;
use zshm::ros::gid::Gid;
use zshm::ros::liveliness::EntityKind;
use zshm::ros::{CallError, Node, NodeOptions, Responder, ServiceOptions, graph};
use zshm::stats::DropReason;

use crate::lane::DEADLINE;
use crate::session_pair;

fn sum(request: AddTwoInts_Request) -> AddTwoInts_Response {
    AddTwoInts_Response {
        sum: request.a + request.b,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_answered_by_a_handler_on_the_servers_executor_and_both_tokens_are_in_the_graph() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "add_two_ints_server", NodeOptions::default())
        .await
        .unwrap();
    let (thread_tx, thread_rx) = mpsc::channel();
    let _server = server_node
        .create_service::<AddTwoInts>("/add_two_ints", move |request| {
            let _ = thread_tx.send(std::thread::current().name().map(str::to_owned));
            sum(request)
        })
        .await
        .unwrap();
    let client_node = Node::new(&b, "add_two_ints_client", NodeOptions::default())
        .await
        .unwrap();
    let client = client_node
        .create_client::<AddTwoInts>("add_two_ints")
        .await
        .unwrap();
    assert!(
        client.wait_for_service_async(DEADLINE).await,
        "the server's token is seen"
    );

    let response = client
        .call_async(&AddTwoInts_Request { a: 2, b: 3 }, DEADLINE)
        .await
        .unwrap();
    assert_eq!(response.sum, 5);
    assert_eq!(
        thread_rx.recv_timeout(DEADLINE).unwrap().as_deref(),
        Some("zshm-exec"),
        "the handler ran on the node's executor, not on zenoh's thread"
    );
    // The blocking call, from a thread outside the runtime, as a timer callback would make it.
    let client = Arc::new(client);
    let blocking = client.clone();
    let sums = tokio::task::spawn_blocking(move || {
        (1..=20)
            .map(|n| {
                blocking
                    .call(&AddTwoInts_Request { a: n, b: 100 }, DEADLINE)
                    .unwrap()
                    .sum
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    assert_eq!(sums, (101..=120).collect::<Vec<_>>());
    assert_eq!(client.extra_replies(), 0);

    let graph = graph::snapshot(&b, 0, Duration::from_millis(500)).await.unwrap();
    let kinds: Vec<(EntityKind, String, String)> = graph
        .endpoints
        .iter()
        .filter(|e| e.topic == "/add_two_ints")
        .map(|e| (e.kind, e.node.name.clone(), e.type_name.clone()))
        .collect();
    for (kind, node) in [
        (EntityKind::ServiceServer, "add_two_ints_server"),
        (EntityKind::ServiceClient, "add_two_ints_client"),
    ] {
        assert!(
            kinds.contains(&(
                kind,
                node.into(),
                "example_interfaces::srv::dds_::AddTwoInts_".into()
            )),
            "{kind:?} token of {node}: {kinds:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_server_the_call_fails_at_once_with_no_server() {
    let (_a, b) = session_pair().await;
    let node = Node::new(&b, "lonely", NodeOptions::default()).await.unwrap();
    let client = node.create_client::<AddTwoInts>("/nobody_home").await.unwrap();
    assert!(!client.wait_for_service_async(Duration::from_millis(300)).await);
    let started = Instant::now();
    let err = client
        .call_async(&AddTwoInts_Request { a: 1, b: 1 }, DEADLINE)
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::NoServer { .. }), "{err}");
    assert!(
        started.elapsed() < DEADLINE,
        "zenoh ended the query with no queryable, before the timeout"
    );
    assert!(err.to_string().contains("/nobody_home"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_gives_a_timeout_that_names_the_service() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "silent", NodeOptions::default()).await.unwrap();
    let held: Arc<Mutex<Vec<Responder<AddTwoInts>>>> = Arc::default();
    let keep = held.clone();
    let _server = server_node
        .create_service_with::<AddTwoInts>("/silent", ServiceOptions::default(), move |_, responder| {
            keep.lock().unwrap().push(responder);
        })
        .await
        .unwrap();
    let node = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let client = node.create_client::<AddTwoInts>("/silent").await.unwrap();
    assert!(client.wait_for_service_async(DEADLINE).await);
    let timeout = Duration::from_millis(400);
    let err = client
        .call_async(&AddTwoInts_Request { a: 1, b: 2 }, timeout)
        .await
        .unwrap_err();
    match &err {
        CallError::Timeout { service, timeout: t } => {
            assert_eq!(service, "/silent");
            assert_eq!(*t, timeout);
        }
        other => panic!("expected a timeout, got {other}"),
    }
    // The deferred responder can still answer later calls: the server is not stuck.
    let responder = held.lock().unwrap().pop().expect("the handler got the request");
    assert_eq!(responder.request_id(), (client_gid(&client), 1));
}

fn client_gid<S: ServiceType>(client: &zshm::ros::Client<S>) -> Gid {
    Gid::of_token(&zshm::ros::liveliness::endpoint_token(client.info()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_reply_from_another_thread_answers_the_call() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "deferring", NodeOptions::default()).await.unwrap();
    let _server = server_node
        .create_service_with::<AddTwoInts>("/later", ServiceOptions::default(), |request, responder| {
            std::thread::spawn(move || responder.send(&sum(request)).unwrap());
        })
        .await
        .unwrap();
    let node = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let client = node.create_client::<AddTwoInts>("/later").await.unwrap();
    assert!(client.wait_for_service_async(DEADLINE).await);
    let response = client
        .call_async(&AddTwoInts_Request { a: 40, b: 2 }, DEADLINE)
        .await
        .unwrap();
    assert_eq!(response.sum, 42);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_away_mid_call_fails_the_call_without_waiting_for_the_timeout() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "doomed", NodeOptions::default()).await.unwrap();
    let (got_tx, got_rx) = mpsc::channel();
    let server = server_node
        .create_service_with::<AddTwoInts>("/doomed", ServiceOptions::default(), move |_, responder| {
            // Keeps the request unanswered; the test then drops the whole server.
            let _ = got_tx.send(responder);
        })
        .await
        .unwrap();
    let node = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let client = node.create_client::<AddTwoInts>("/doomed").await.unwrap();
    assert!(client.wait_for_service_async(DEADLINE).await);
    let call = tokio::spawn(async move {
        let started = Instant::now();
        let outcome = client
            .call_async(&AddTwoInts_Request { a: 1, b: 2 }, DEADLINE)
            .await;
        (outcome, started.elapsed())
    });
    let responder = tokio::task::spawn_blocking(move || got_rx.recv_timeout(DEADLINE).unwrap())
        .await
        .unwrap();
    // The server leaves: its token goes; the pending query is not answered.
    drop(server);
    drop(server_node);
    let (outcome, took) = call.await.unwrap();
    drop(responder);
    let err = outcome.unwrap_err();
    assert!(
        matches!(err, CallError::ServerGone { .. } | CallError::NoReply { .. }),
        "{err}"
    );
    assert!(took < DEADLINE, "the call ended before its timeout ({took:?})");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_two_servers_the_first_reply_is_used_and_the_other_is_counted() {
    let (a, b) = session_pair().await;
    let one = Node::new(&a, "server_one", NodeOptions::default()).await.unwrap();
    let two = Node::new(&b, "server_two", NodeOptions::default()).await.unwrap();
    let _s1 = one.create_service::<AddTwoInts>("/twice", sum).await.unwrap();
    let _s2 = two.create_service::<AddTwoInts>("/twice", sum).await.unwrap();
    let node = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let client = node.create_client::<AddTwoInts>("/twice").await.unwrap();
    crate::lane::until("both servers are known", || client.servers() == 2).await;
    for n in 0..5 {
        let response = client
            .call_async(&AddTwoInts_Request { a: n, b: n }, DEADLINE)
            .await
            .unwrap();
        assert_eq!(response.sum, 2 * n);
    }
    crate::lane::until("every second reply is counted", || client.extra_replies() == 5).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_request_is_counted_by_the_server_and_ends_the_call_without_a_reply() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "strict_server", NodeOptions::default())
        .await
        .unwrap();
    let (ran_tx, ran_rx) = mpsc::channel();
    let _server = server_node
        .create_service::<AddTwoInts>("/strict", move |request| {
            let _ = ran_tx.send(());
            sum(request)
        })
        .await
        .unwrap();
    let node = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let client = node.create_client::<AddTwoInts>("/strict").await.unwrap();
    assert!(client.wait_for_service_async(DEADLINE).await);
    let key = zshm::ros::keyexpr::topic_keyexpr(0, "/strict", &AddTwoInts::TYPE);
    let attachment = Attachment {
        sequence_number: 1,
        source_timestamp: 0,
        source_gid: Gid([7; 16]),
    };
    // Three bytes are not an AddTwoInts request; no attachment at all is not rmw_zenoh's either.
    let (done_tx, done_rx) = mpsc::channel();
    for (payload, attachment) in [
        (vec![0, 1, 0], Some(attachment.encode().to_vec())),
        (AddTwoInts_Request { a: 1, b: 1 }.to_cdr(), None),
    ] {
        let buffer = b.buffer(payload.len()).await;
        let mut buffer = buffer;
        buffer.copy_from_slice(&payload);
        let done = done_tx.clone();
        let replies = Arc::new(Mutex::new(Vec::new()));
        let seen = replies.clone();
        struct Report(mpsc::Sender<usize>, Arc<Mutex<Vec<RawReply>>>);
        impl Drop for Report {
            fn drop(&mut self) {
                let _ = self.0.send(self.1.lock().unwrap().len());
            }
        }
        let report = Report(done, replies);
        b.query(
            &key,
            buffer,
            attachment.as_deref().unwrap_or(&[]),
            DEADLINE,
            move |reply| {
                let _keep = &report;
                seen.lock().unwrap().push(reply);
            },
        )
        .unwrap();
        assert_eq!(
            done_rx.recv_timeout(DEADLINE).unwrap(),
            0,
            "no reply to a bad request"
        );
    }
    let stats = a.stats().snapshot();
    assert_eq!(stats.dropped(DropReason::MalformedCdr), 1, "{stats:?}");
    assert!(ran_rx.try_recv().is_err(), "the handler never saw a bad request");
    // The server still answers good ones.
    let response = client
        .call_async(&AddTwoInts_Request { a: 3, b: 4 }, DEADLINE)
        .await
        .unwrap();
    assert_eq!(response.sum, 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_map_of_several_mib_is_replied_through_shared_memory_byte_for_byte() {
    let (a, b) = session_pair().await;
    let server_node = Node::new(&a, "map_server", NodeOptions::default()).await.unwrap();
    let cells: Vec<i8> = (0..4 << 20).map(|i: u32| (i % 101) as i8 - 50).collect();
    let map = {
        let mut response = GetMap_Response::default();
        response.map.info.width = 2048;
        response.map.info.height = 2048;
        response.map.info.resolution = 0.05;
        response.map.header.frame_id = "map".into();
        response.map.data = cells.clone();
        response
    };
    let served = map.clone();
    let _server = server_node
        .create_service::<GetMap>("/map_server/map", move |_: GetMap_Request| served.clone())
        .await
        .unwrap();
    let node = Node::new(&b, "rviz", NodeOptions::default()).await.unwrap();
    let client = node.create_client::<GetMap>("/map_server/map").await.unwrap();
    assert!(client.wait_for_service_async(DEADLINE).await);
    let before = b.stats().snapshot();
    let response = client
        .call_async(&GetMap_Request::default(), DEADLINE)
        .await
        .unwrap();
    assert_eq!(response, map, "the map arrived whole");
    let after = b.stats().snapshot();
    assert!(
        after.received_shm_bytes - before.received_shm_bytes >= map.cdr_len() as u64,
        "the reply came through shared memory: {before:?} → {after:?}"
    );
}
