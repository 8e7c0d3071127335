//! How typed subscriptions deliver (issue 11): a blocked callback never stalls zenoh's link nor
//! the callbacks of other groups (issue 19: they run on an executor), its queue drops the oldest
//! samples as its QoS says and counts them, and the view a callback gets is the one that was
//! validated, whatever the publisher does to its buffer afterwards.

use std::os::unix::fs::FileExt;
use std::sync::mpsc;
use std::time::Duration;

use zshm::Session;
use zshm::msgs::sensor_msgs::msg::{PointCloud2, PointField};
use zshm::msgs::std_msgs::msg::{self as std_msgs, Header};
use zshm::ros::qos::QosProfile;
use zshm::ros::{CallbackGroupKind, Executor, Node, NodeOptions, SubscriptionOptions};
use zshm::stats::QueueOverflow;

use crate::{session_pair_in, test_env};

const DEADLINE: Duration = Duration::from_secs(30);

/// Two sessions talking through zenoh only: what these tests check is zenoh's receive path.
async fn zenoh_pair() -> (Session, Session) {
    session_pair_in(test_env()).await
}

fn text(n: usize) -> std_msgs::String {
    std_msgs::String {
        data: format!("message {n}"),
    }
}

/// Regression test for issue 11 ("a slow consumer stalls zenoh"): the callback of one topic
/// blocks; the other topic of the same link still delivers (its callback is in another group of
/// a two-thread executor: issue 19), and the blocked topic keeps only its `depth` newest
/// samples, counting the others.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_callback_does_not_stall_other_topics_and_its_drops_are_counted() {
    a_blocked_callback_body(zenoh_pair().await, false).await;
}

/// The same through the same-host lane: its samples go through the same bounded queue, so a
/// blocked callback neither stalls the lane's thread nor loses count of what it drops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_lane_a_blocked_callback_does_not_stall_other_topics_and_its_drops_are_counted() {
    let domain = crate::lane::Domain::new();
    let (a, b) = session_pair_in(domain.env()).await;
    let stats = b.stats().clone();
    a_blocked_callback_body((a, b), true).await;
    let lane = stats.snapshot().lane;
    assert!(
        lane.received_messages > 0,
        "messages came through the lane: {lane:?}"
    );
}

/// `lane`: the subscriptions must receive through the lane, so the body waits until both
/// publishers serve them there (zenoh matches first; the lane attaches a moment later).
async fn a_blocked_callback_body((a, b): (Session, Session), lane: bool) {
    let talker = Node::new(&a, "talker", NodeOptions::default()).await.unwrap();
    let executor = Executor::multi_threaded(2).unwrap();
    let _spinning = executor.spin_in_background().unwrap();
    let options = NodeOptions {
        executor: Some(executor),
        ..NodeOptions::default()
    };
    let listener = Node::new(&b, "listener", options).await.unwrap();
    let own_group = listener.create_callback_group(CallbackGroupKind::MutuallyExclusive);

    let (entered_tx, entered) = mpsc::channel();
    let (release, release_rx) = mpsc::channel::<()>();
    let (slow_tx, slow_rx) = mpsc::channel();
    let _slow = listener
        .create_subscription::<std_msgs::String>("/it/slow", QosProfile::keep_last(3), move |msg| {
            entered_tx.send(()).unwrap();
            // Blocks until the test releases it, like a callback doing heavy work.
            // Bounded, so that a failing test unwinds instead of waiting here forever.
            let _ = release_rx.recv_timeout(DEADLINE);
            slow_tx.send(msg.sequence_number()).unwrap();
        })
        .await
        .unwrap();
    let (fast_tx, fast_rx) = mpsc::channel();
    let _fast = listener
        .create_subscription_with::<std_msgs::String>(
            "/it/fast",
            QosProfile::keep_last(10),
            SubscriptionOptions::default().callback_group(&own_group),
            move |msg| fast_tx.send(msg.decode().data).unwrap(),
        )
        .await
        .unwrap();
    let slow_pub = talker
        .create_publisher::<std_msgs::String>("/it/slow", QosProfile::keep_last(3))
        .await
        .unwrap();
    let fast_pub = talker
        .create_publisher::<std_msgs::String>("/it/fast", QosProfile::keep_last(10))
        .await
        .unwrap();
    assert!(slow_pub.wait_for_subscribers(DEADLINE).await);
    assert!(fast_pub.wait_for_subscribers(DEADLINE).await);
    if lane {
        crate::lane::until_or(
            || slow_pub.lane_subscribers() == 1 && fast_pub.lane_subscribers() == 1,
            || {
                format!(
                    "both subscriptions attached to the lane did not happen in time: slow {}, fast {}, \
                     listener {:?}",
                    slow_pub.lane_subscribers(),
                    fast_pub.lane_subscribers(),
                    b.stats().snapshot()
                )
            },
        )
        .await;
    }

    slow_pub.publish(&text(1)).await.unwrap();
    entered.recv_timeout(DEADLINE).unwrap();
    for n in 2..=10 {
        slow_pub.publish(&text(n)).await.unwrap();
    }
    for n in 1..=5 {
        fast_pub.publish(&text(n)).await.unwrap();
    }
    for n in 1..=5 {
        let got = fast_rx
            .recv_timeout(DEADLINE)
            .expect("the other topic delivers while a callback is blocked");
        assert_eq!(got, text(n).data);
    }

    // Through zenoh the fast topic's messages came after the slow ones on the same link; through
    // the lane each publisher has its own queue, so wait for the slow topic's ten to be received
    // (and queued or dropped).
    let overflows = || b.stats().snapshot().overflows(QueueOverflow::KeepLastReliable);
    let deadline = std::time::Instant::now() + DEADLINE;
    while overflows() < 6 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let stats = b.stats().snapshot();
    assert_eq!(stats.overflows(QueueOverflow::KeepLastReliable), 6, "{stats:?}");
    for _ in 1..=4 {
        release.send(()).unwrap();
    }
    let delivered: Vec<i64> = (0..4).map(|_| slow_rx.recv_timeout(DEADLINE).unwrap()).collect();
    assert_eq!(
        delivered,
        [1, 8, 9, 10],
        "the one in the callback, then the newest 3"
    );
    assert!(slow_rx.recv_timeout(Duration::from_millis(200)).is_err());
}

/// Regression test for issue 11: a `RawSubscription` nobody reads used to block zenoh's receive
/// thread once its 64-sample queue was full. Now it drops its oldest samples (counted) and the
/// link goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_subscription_nobody_reads_does_not_stall_the_link() {
    use zshm::raw::{PublisherOptions, SUBSCRIPTION_QUEUE};
    let (a, b) = zenoh_pair().await;
    let unread = b.declare_subscription("it/unread").await.unwrap();
    let read = b.declare_subscription("it/read").await.unwrap();
    let flood = a
        .declare_publisher("it/unread", PublisherOptions::default())
        .await
        .unwrap();
    let other = a
        .declare_publisher("it/read", PublisherOptions::default())
        .await
        .unwrap();
    assert!(flood.wait_for_subscribers(DEADLINE).await && other.wait_for_subscribers(DEADLINE).await);
    let total = 3 * SUBSCRIPTION_QUEUE as u64;
    for n in 0..total {
        flood.publish(&n.to_le_bytes()).await.unwrap();
    }
    other.publish(b"after the flood").await.unwrap();
    let sample = tokio::time::timeout(DEADLINE, read.recv())
        .await
        .expect("the other key delivers")
        .unwrap();
    assert_eq!(sample.payload(), b"after the flood");
    let dropped = b.stats().snapshot().overflows(QueueOverflow::Raw);
    assert_eq!(
        dropped,
        total - SUBSCRIPTION_QUEUE as u64,
        "the oldest went, counted"
    );
    let first = unread.recv().await.unwrap();
    assert_eq!(first.payload(), dropped.to_le_bytes(), "the newest are kept");
}

/// Where `address` is mapped from a file in this process: the file and the offset in it.
fn file_behind(address: usize) -> (String, u64) {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let range = fields.next().unwrap();
        let (_perms, offset) = (fields.next(), fields.next().unwrap());
        let path = fields.nth(2).unwrap_or("");
        let (start, end) = range.split_once('-').unwrap();
        let (start, end) = (
            usize::from_str_radix(start, 16).unwrap(),
            usize::from_str_radix(end, 16).unwrap(),
        );
        if (start..end).contains(&address) && path.starts_with('/') {
            let offset = u64::from_str_radix(offset, 16).unwrap();
            return (path.to_owned(), offset + (address - start) as u64);
        }
    }
    panic!("{address:#x} is not mapped from a file");
}

/// Regression test for issue 11 ("the receive path parses shared memory twice"): the publisher's
/// bytes are rewritten, through its segment file, after they were validated and before the
/// callback reads them. The callback must get the validated view, not a panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_publisher_rewriting_its_buffer_after_publishing_cannot_panic_the_subscriber() {
    let (a, b) = zenoh_pair().await;
    assert!(a.shm_status().is_active() && b.shm_status().is_active());
    let camera = Node::new(&a, "camera", NodeOptions::default()).await.unwrap();
    let viewer = Node::new(&b, "viewer", NodeOptions::default()).await.unwrap();
    let (tx, rx) = mpsc::channel();
    let _subscription = viewer
        .create_subscription::<PointCloud2>("/it/rewritten", QosProfile::keep_last(1), move |msg| {
            assert!(msg.is_shm());
            let payload = msg.payload();
            // The field count follows height (1) and width (64): make it claim 4 GiB of fields,
            // which no parse accepts.
            let mut marker = 1u32.to_le_bytes().to_vec();
            marker.extend(64u32.to_le_bytes());
            marker.extend(2u32.to_le_bytes());
            let at = payload
                .windows(marker.len())
                .position(|w| w == marker)
                .expect("height, width and field count in the payload")
                + 8;
            let (path, offset) = file_behind(payload.as_ptr() as usize + at);
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            file.write_all_at(&u32::MAX.to_le_bytes(), offset).unwrap();
            assert_eq!(payload[at..at + 4], u32::MAX.to_le_bytes(), "rewritten in place");
            let fields: Vec<String> = msg.view().fields.iter().map(|f| f.name.to_owned()).collect();
            let owned = msg.decode();
            tx.send((fields, owned.fields.len(), owned.data.len())).unwrap();
        })
        .await
        .unwrap();
    let publisher = camera
        .create_publisher::<PointCloud2>("/it/rewritten", QosProfile::keep_last(1))
        .await
        .unwrap();
    assert!(publisher.wait_for_subscribers(DEADLINE).await);
    let shape = PointCloud2 {
        header: Header {
            frame_id: "f".into(),
            ..Default::default()
        },
        height: 1,
        width: 64,
        fields: vec![
            PointField::new("x", 0, PointField::FLOAT32),
            PointField::new("y", 4, PointField::FLOAT32),
        ],
        point_step: 8,
        row_step: 512,
        is_dense: true,
        ..Default::default()
    };
    // Above the 512 B threshold, so it goes through shared memory.
    let mut loan = publisher.loan(&shape, 512).await;
    assert!(loan.is_shm());
    loan.data_mut().fill(3);
    publisher.publish_loan(loan).await.unwrap();
    let (fields, owned_fields, owned_data) = rx.recv_timeout(DEADLINE).expect("delivered, no panic");
    assert_eq!(fields, ["x", "y"]);
    assert_eq!((owned_fields, owned_data), (2, 512));
}
