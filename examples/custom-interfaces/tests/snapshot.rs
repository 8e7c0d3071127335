//! A service whose response is one large `uint8[] data` (`robot_msgs/srv/GetSnapshot`) answers
//! without a copy on either side: the server writes the image straight into a loan of its SHM
//! pool, and the client reads the reply in place, where the server wrote it.

use std::time::Duration;

use zshm::Session;
use zshm::config::Environment;
use zshm::raw::DataPath;
use zshm::ros::{CallError, Node, NodeOptions, ServiceOptions};
use zshm_example_custom_interfaces::robot_msgs::srv::{
    GetSnapshot, GetSnapshot_Request, GetSnapshot_Response,
};

const PATIENCE: Duration = Duration::from_secs(10);
const WIDTH: u32 = 1024;
const HEIGHT: u32 = 1024;

/// Pixel `i` of the image of call `call`: every call's bytes differ, so a stale buffer shows.
fn pixel(call: u8, i: usize) -> u8 {
    (i % 251) as u8 ^ call
}

/// Two sessions of one host (zenoh's SHM between them; the lane off, so the reply goes through
/// zenoh): the first listens, the second connects to it.
async fn sessions() -> (Session, Session) {
    let env = Environment::empty()
        .with("ZENOH_ROUTER_CHECK_ATTEMPTS", "-1")
        .with("ZSHM_LANE", "off");
    let server = Session::builder()
        .environment(env.clone())
        .listen(["tcp/127.0.0.1:0"])
        .connect(Vec::<String>::new())
        .open()
        .await
        .unwrap();
    let locator = server.locators().await.into_iter().next().unwrap();
    let client = Session::builder()
        .environment(env)
        .listen(["tcp/127.0.0.1:0"])
        .connect([locator])
        .open()
        .await
        .unwrap();
    (server, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loaned_reply_is_read_in_place_through_shared_memory() {
    let (a, b) = sessions().await;
    let camera = Node::new(&a, "camera", NodeOptions::default()).await.unwrap();
    let mut calls = 0u8;
    let _service = camera
        .create_service_with::<GetSnapshot>(
            "/camera/snapshot",
            ServiceOptions::default(),
            move |request: GetSnapshot_Request, responder| {
                calls += 1;
                let shape = GetSnapshot_Response {
                    width: WIDTH,
                    height: HEIGHT,
                    encoding: format!("mono8 of {}", request.camera),
                    data: Vec::new(),
                };
                let mut loan = responder.loan(&shape, (WIDTH * HEIGHT) as usize);
                for (i, byte) in loan.data_mut().iter_mut().enumerate() {
                    *byte = pixel(calls, i);
                }
                responder.send_loan(loan).unwrap();
            },
        )
        .await
        .unwrap();

    let viewer = Node::new(&b, "viewer", NodeOptions::default()).await.unwrap();
    let client = viewer
        .create_client::<GetSnapshot>("/camera/snapshot")
        .await
        .unwrap();
    assert!(client.wait_for_service_async(PATIENCE).await);
    let request = GetSnapshot_Request {
        camera: "front".into(),
    };
    for call in 1..=3u8 {
        let reply = client.call_reply_async(&request, PATIENCE).await.unwrap();
        assert_eq!(
            reply.path(),
            DataPath::Shm,
            "the reply came through shared memory"
        );
        let view = reply.view().unwrap();
        assert_eq!((view.width, view.height), (WIDTH, HEIGHT));
        assert_eq!(view.encoding, "mono8 of front");
        assert_eq!(view.data.len(), (WIDTH * HEIGHT) as usize);
        let wrong = view
            .data
            .iter()
            .enumerate()
            .filter(|&(i, &byte)| byte != pixel(call, i))
            .count();
        assert_eq!(wrong, 0, "call {call}: every byte is the server's");
        // The view points into the received buffer: no copy was made for it.
        let payload = reply.payload().as_ptr_range();
        assert!(
            payload.contains(&view.data.as_ptr()),
            "the view borrows the reply's bytes"
        );
        // The owned copy, from the same bytes, agrees.
        assert_eq!(reply.decode().unwrap().data, view.data);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_that_is_not_the_response_type_is_malformed_when_read() {
    let (a, b) = sessions().await;
    // A plain zenoh queryable on the service's key that answers with a truncated response: the
    // CDR header and a width, then nothing.
    let key = zshm::ros::keyexpr::topic_keyexpr(
        0,
        "/camera/snapshot",
        &<GetSnapshot as zshm::msgs::ServiceType>::TYPE,
    );
    let _liar = a
        .zenoh()
        .declare_queryable(&key)
        .complete(true)
        .callback(|query| {
            use zenoh::Wait;
            let attachment = query.attachment().map(|a| a.to_bytes().into_owned());
            let mut reply = query.reply(query.key_expr().clone(), vec![0u8, 1, 0, 0, 0x40, 0x42, 0x0f, 0]);
            if let Some(attachment) = attachment {
                reply = reply.attachment(attachment);
            }
            reply.wait().unwrap();
        })
        .await
        .unwrap();
    let viewer = Node::new(&b, "viewer", NodeOptions::default()).await.unwrap();
    let client = viewer
        .create_client::<GetSnapshot>("/camera/snapshot")
        .await
        .unwrap();
    let request = GetSnapshot_Request::default();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let reply = loop {
        match client.call_reply_async(&request, Duration::from_secs(1)).await {
            Ok(reply) => break reply,
            Err(CallError::NoServer { .. }) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(err) => panic!("{err}"),
        }
    };
    assert!(
        matches!(reply.view(), Err(CallError::Malformed { .. })),
        "{:?}",
        reply.view()
    );
    assert!(matches!(reply.decode(), Err(CallError::Malformed { .. })));
}
