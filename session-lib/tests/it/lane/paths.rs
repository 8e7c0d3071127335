//! Which path messages take, and that switching between them loses nothing and repeats nothing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use zshm::Session;
use zshm::msgs::Message;
use zshm::msgs::sensor_msgs::msg::{PointCloud2, PointField};
use zshm::msgs::std_msgs::msg::{self as std_msgs, Header};
use zshm::msgs::wall_clock_nanos;
use zshm::raw::DataPath;
use zshm::ros::gid::Gid;
use zshm::ros::qos::QosProfile;
use zshm::ros::{Node, NodeOptions, Publisher};

use super::{DEADLINE, Domain, Net, assert_contiguous, until};

/// What a subscription callback saw of one message.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    gid: Gid,
    seq: i64,
    stamp_ns: i64,
    path: DataPath,
    text: String,
}

type Log = Arc<Mutex<Vec<Seen>>>;

fn record(log: &Log) -> impl Fn(zshm::ros::Sample<'_, std_msgs::String>) + Send + Sync + 'static {
    let log = log.clone();
    move |sample| {
        log.lock().unwrap().push(Seen {
            gid: sample.publisher_gid(),
            seq: sample.sequence_number(),
            stamp_ns: sample.source_timestamp(),
            path: sample.path(),
            text: sample.view().data.to_owned(),
        })
    }
}

fn seqs_of(log: &Log, gid: Gid) -> Vec<i64> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|s| s.gid == gid)
        .map(|s| s.seq)
        .collect()
}

async fn publish_texts(
    publisher: &Publisher<std_msgs::String>,
    range: std::ops::RangeInclusive<u64>,
    pause: Duration,
) {
    for n in range {
        let text = std_msgs::String {
            data: format!("n{n}"),
        };
        publisher.publish(&text).await.unwrap();
        tokio::time::sleep(pause).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zshm_subscriber_reads_the_publishers_lane_buffer_in_place_with_the_same_attachment() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (a, camera) = net.node("camera").await;
    let (b, viewer) = net.node("viewer").await;
    let (tx, rx) = flume::unbounded();
    let _subscription = viewer
        .create_subscription::<PointCloud2>("/it/lane/points", QosProfile::keep_last(16), move |s| {
            let view = s.view();
            let pattern = zshm_ops::tools::pattern::verify(view.data).ok();
            let facts = (
                s.sequence_number(),
                s.publisher_gid(),
                s.source_timestamp(),
                s.path(),
                pattern,
            );
            tx.send((facts, view.data.len())).unwrap();
        })
        .await
        .unwrap();
    let publisher = camera
        .create_publisher::<PointCloud2>("/it/lane/points", QosProfile::keep_last(16))
        .await
        .unwrap();
    until("the lane serves every subscriber", || publisher.skips_zenoh()).await;

    let shape = PointCloud2 {
        header: Header {
            frame_id: "lane".into(),
            ..Default::default()
        },
        height: 1,
        width: 1 << 16,
        fields: vec![PointField::new("v", 0, PointField::UINT8)],
        point_step: 1,
        row_step: 1 << 16,
        is_dense: true,
        ..Default::default()
    };
    for seq in 1..=50i64 {
        let mut loan = publisher.loan(&shape, 1 << 16).await;
        assert!(loan.is_lane(), "written straight into the lane's buffer");
        zshm_ops::tools::pattern::fill(loan.data_mut(), seq as u64);
        let before = wall_clock_nanos();
        publisher.publish_loan(loan).await.unwrap();
        let ((number, gid, stamp, path, pattern), len) = rx.recv_async().await.unwrap();
        assert_eq!((number, gid, path), (seq, publisher.gid(), DataPath::Lane));
        assert!(
            stamp >= before && stamp <= wall_clock_nanos(),
            "the publisher's wall clock"
        );
        assert_eq!((pattern, len), (Some(seq as u64), 1 << 16), "every byte");
    }
    let sent = a.stats().snapshot();
    assert_eq!(sent.lane.published_messages, 50);
    assert_eq!(
        sent.lane.zenoh_skipped, 50,
        "no zenoh send while the lane serves everyone"
    );
    assert_eq!(sent.published_shm_messages + sent.published_heap_messages, 0);
    let received = b.stats().snapshot();
    assert_eq!(received.lane.received_messages, 50);
    assert_eq!(received.received_shm_messages + received.received_net_messages, 0);
}

/// A zenoh subscriber that is no ROS subscription (no token) gets every message while a ROS
/// subscription needs zenoh, here a zshm node with the lane off; the lane subscriber gets each
/// message once although both paths bring it. Once only lane subscribers are left, the publisher
/// skips zenoh: the plain subscriber is not seen (the documented limit, see
/// `ros::lane::publisher`), and this test says so, so that changing it is a decision.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_zenoh_subscriber_gets_every_message_while_a_ros_subscription_needs_zenoh() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let foreign = net.session().await;
    let key = zshm::ros::keyexpr::topic_keyexpr(0, "/it/lane/chatter", &<std_msgs::String as Message>::TYPE);
    let (tx, rx) = flume::unbounded();
    let _plain = foreign
        .zenoh()
        .declare_subscriber(key)
        .callback(move |sample| {
            let attachment = sample.attachment().map(|a| a.to_bytes().into_owned());
            let _ = tx.send(attachment);
        })
        .await
        .unwrap();
    let (_a, talker) = net.node("talker").await;
    let (b, listener) = net.node("listener").await;
    let zenoh_only_session = net.session_with_lane(false).await;
    let zenoh_only = Node::new(&zenoh_only_session, "zenoh_only", NodeOptions::default())
        .await
        .unwrap();
    let log: Log = Arc::default();
    let _lane = listener
        .create_subscription::<std_msgs::String>("/it/lane/chatter", QosProfile::default(), record(&log))
        .await
        .unwrap();
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/chatter", QosProfile::default())
        .await
        .unwrap();
    until(
        "zenoh skipped while the lane subscriber is the only ROS one",
        || publisher.skips_zenoh(),
    )
    .await;
    let zenoh_log: Log = Arc::default();
    let zenoh_subscription = zenoh_only
        .create_subscription::<std_msgs::String>(
            "/it/lane/chatter",
            QosProfile::default(),
            record(&zenoh_log),
        )
        .await
        .unwrap();
    until("zenoh back on for the zenoh-only subscription", || {
        !publisher.skips_zenoh()
    })
    .await;
    assert!(publisher.wait_for_subscribers(DEADLINE).await);

    publish_texts(&publisher, 1..=100, Duration::from_millis(2)).await;
    let mut foreign_seqs = Vec::new();
    while foreign_seqs.len() < 100 {
        let attachment = tokio::time::timeout(DEADLINE, rx.recv_async())
            .await
            .unwrap()
            .unwrap();
        let attachment = zshm::ros::attachment::Attachment::decode(&attachment.unwrap()).unwrap();
        foreign_seqs.push(attachment.sequence_number);
    }
    assert_eq!(
        foreign_seqs,
        (1..=100).collect::<Vec<_>>(),
        "the plain subscriber got everything"
    );
    assert!(!publisher.skips_zenoh(), "zenoh still carries the messages");
    until("both ROS subscribers got all", || {
        seqs_of(&log, publisher.gid()).len() == 100 && seqs_of(&zenoh_log, publisher.gid()).len() == 100
    })
    .await;
    assert_eq!(
        seqs_of(&log, publisher.gid()),
        (1..=100).collect::<Vec<_>>(),
        "once each, in order"
    );
    assert_eq!(log.lock().unwrap()[99].text, "n100");
    // Every message reached the lane subscriber twice (lane and zenoh) and was delivered once.
    until("both copies", || {
        b.stats().snapshot().lane.duplicates_dropped == 100
    })
    .await;
    assert_eq!(b.stats().snapshot().lane.received_messages, 100);

    drop(zenoh_subscription);
    until("zenoh skipped once only the lane subscriber is left", || {
        publisher.skips_zenoh()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_paths_loses_nothing_and_repeats_nothing() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (_a, talker) = net.node("talker").await;
    let publisher = Arc::new(
        talker
            .create_publisher::<std_msgs::String>("/it/lane/switch", QosProfile::keep_last(16))
            .await
            .unwrap(),
    );
    let streaming = publisher.clone();
    let stream =
        tokio::spawn(async move { publish_texts(&streaming, 1..=u64::MAX, Duration::from_millis(4)).await });

    // A subscriber that arrives mid-stream starts on zenoh, then switches to the lane.
    let (b, listener) = net.node("listener").await;
    let log: Log = Arc::default();
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/switch", QosProfile::keep_last(16), record(&log))
        .await
        .unwrap();
    until("the switch to the lane", || publisher.skips_zenoh()).await;
    until("40 messages received", || {
        seqs_of(&log, publisher.gid()).len() >= 40
    })
    .await;
    // A subscriber the lane does not serve comes (the publisher sends through zenoh again) and
    // goes.
    let zenoh_only_session = net.session_with_lane(false).await;
    let zenoh_only = Node::new(&zenoh_only_session, "zenoh_only", NodeOptions::default())
        .await
        .unwrap();
    let other = zenoh_only
        .create_subscription::<std_msgs::String>("/it/lane/switch", QosProfile::keep_last(16), |_| {})
        .await
        .unwrap();
    until("zenoh back on", || !publisher.skips_zenoh()).await;
    let received = || seqs_of(&log, publisher.gid()).len();
    let before = received();
    until("40 messages while both paths carry them", || {
        received() >= before + 40
    })
    .await;
    drop(other);
    until("zenoh skipped again", || publisher.skips_zenoh()).await;
    let before = received();
    until("40 messages through the lane alone", || received() >= before + 40).await;
    stream.abort();

    let seqs = seqs_of(&log, publisher.gid());
    assert!(seqs.len() >= 120, "{} messages", seqs.len());
    assert_contiguous(&seqs);
    let paths: Vec<DataPath> = log.lock().unwrap().iter().map(|s| s.path).collect();
    assert!(
        paths.contains(&DataPath::Lane) && paths.last() == Some(&DataPath::Lane),
        "{paths:?}"
    );
    assert_eq!(b.stats().snapshot().lane.switch_gaps, 0);
}

/// A publisher's lane starts sized for 4 subscribers and grows when a fifth comes
/// (`zshm::internal::lane::generation`): six subscriber sessions arriving one after the other
/// while it streams make it move once (4 → 32), and every subscriber ends on the lane with
/// every message once, in order, across the move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lane_grows_with_its_subscribers_and_loses_nothing_while_it_moves() {
    let (topic, count) = ("/it/lane/grow", 6);
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (_a, talker) = net.node("talker").await;
    let publisher = Arc::new(
        talker
            .create_publisher::<std_msgs::String>(topic, QosProfile::keep_last(16))
            .await
            .unwrap(),
    );
    assert_eq!(publisher.lane_capacity(), 4);
    let streaming = publisher.clone();
    let stream =
        tokio::spawn(async move { publish_texts(&streaming, 1..=u64::MAX, Duration::from_millis(4)).await });

    let mut listeners = Vec::new();
    for n in 0..count {
        let (session, node) = net.node(&format!("listener{n}")).await;
        let log: Log = Arc::default();
        let subscription = node
            .create_subscription::<std_msgs::String>(topic, QosProfile::keep_last(16), record(&log))
            .await
            .unwrap();
        listeners.push((session, node, subscription, log));
        until("the new subscriber on the lane", || {
            publisher.lane_subscribers() == n + 1 && publisher.skips_zenoh()
        })
        .await;
        assert_eq!(
            publisher.lane_capacity(),
            if n < 4 { 4 } else { 32 },
            "listener {n}"
        );
    }
    until("every subscriber on the lane", || {
        publisher.lane_subscribers() == count && publisher.skips_zenoh()
    })
    .await;
    let received = |log: &Log| seqs_of(log, publisher.gid()).len();
    let before: Vec<usize> = listeners.iter().map(|(.., log)| received(log)).collect();
    until("40 more messages at each, through the lane alone", || {
        listeners
            .iter()
            .zip(&before)
            .all(|((.., log), &before)| received(log) >= before + 40)
    })
    .await;
    stream.abort();

    for (n, (session, _, _, log)) in listeners.iter().enumerate() {
        let seqs = seqs_of(log, publisher.gid());
        assert!(seqs.len() >= 40, "listener {n}: {} messages", seqs.len());
        assert_contiguous(&seqs);
        let last = log.lock().unwrap().last().map(|s| s.path);
        assert_eq!(last, Some(DataPath::Lane), "listener {n} ends on the lane");
        let lane = session.stats().snapshot().lane;
        assert_eq!((lane.switch_gaps, lane.queue_drops), (0, 0), "listener {n}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_publisher_is_received_whole_through_the_lane() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (_b, listener) = net.node("listener").await;
    let log: Log = Arc::default();
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/restart", QosProfile::default(), record(&log))
        .await
        .unwrap();
    let mut gids = Vec::new();
    for _run in 0..2 {
        let (session, talker) = net.node("talker").await;
        let publisher = talker
            .create_publisher::<std_msgs::String>("/it/lane/restart", QosProfile::default())
            .await
            .unwrap();
        assert!(publisher.wait_for_subscribers(DEADLINE).await);
        publish_texts(&publisher, 1..=60, Duration::from_millis(5)).await;
        let gid = publisher.gid();
        until("the last message", || seqs_of(&log, gid).last() == Some(&60)).await;
        gids.push(gid);
        drop((publisher, talker));
        session.close().await.unwrap();
    }
    assert_ne!(gids[0], gids[1], "a new publisher, a new GID");
    let seen = log.lock().unwrap().clone();
    for gid in gids {
        assert_eq!(
            seqs_of(&log, gid),
            (1..=60).collect::<Vec<_>>(),
            "all of them, once, in order"
        );
        let lane = seen
            .iter()
            .filter(|s| s.gid == gid && s.path == DataPath::Lane)
            .count();
        assert!(lane > 0, "the lane took over from zenoh");
    }
}

/// A zenoh subscriber that is no ROS subscription announces itself with an observer token (the
/// status page's rate meter does): while one exists anywhere in the domain, a lane publisher
/// sends through zenoh too, and it skips zenoh again once the token goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_observer_token_keeps_zenoh_on_while_it_lives() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (_a, talker) = net.node("talker").await;
    let (_b, listener) = net.node("listener").await;
    let log: Log = Arc::default();
    let _lane = listener
        .create_subscription::<std_msgs::String>("/it/lane/observed", QosProfile::default(), record(&log))
        .await
        .unwrap();
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/observed", QosProfile::default())
        .await
        .unwrap();
    until("zenoh skipped", || publisher.skips_zenoh()).await;
    let observer = net.session().await;
    let token = observer
        .zenoh()
        .liveliness()
        .declare_token(zshm::ros::liveliness::observer_token(0, &observer.zid(), 7))
        .await
        .unwrap();
    until("zenoh back on for the observer", || !publisher.skips_zenoh()).await;
    token.undeclare().await.unwrap();
    until("zenoh skipped once the observer left", || publisher.skips_zenoh()).await;
}

/// A subscription with several lane publishers, served by a multi-threaded executor: each
/// publisher's descriptor sits in the executor's wait set under its own slot, reported once per
/// arming (one-shot), and armed again after each wake-up. A slot not armed again would stall
/// that publisher's lane after its first message; zenoh would still deliver, so the test counts
/// what the lane itself received.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_threaded_executor_reads_every_message_of_three_lane_publishers() {
    const COUNT: i64 = 100;
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let session = net.session().await;
    let executor = zshm::ros::Executor::multi_threaded(2).unwrap();
    let _spinning = executor.spin_in_background().unwrap();
    let options = NodeOptions {
        executor: Some(executor),
        start_parameter_event_publisher: false,
        ..NodeOptions::default()
    };
    let listener = Node::new(&session, "listener", options).await.unwrap();
    // KEEP_ALL + RELIABLE: a lane publisher waits for a full subscriber, so nothing may be lost.
    let keep_all = QosProfile {
        history: zshm::ros::qos::History::KeepAll,
        ..QosProfile::default()
    };
    let log: Log = Arc::default();
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/three", keep_all, record(&log))
        .await
        .unwrap();
    let mut talkers = Vec::new();
    for _ in 0..3 {
        let (talker_session, talker) = net.node("talker").await;
        let publisher = talker
            .create_publisher::<std_msgs::String>("/it/lane/three", keep_all)
            .await
            .unwrap();
        talkers.push((talker_session, talker, publisher));
    }
    super::until_or(
        || {
            talkers
                .iter()
                .all(|(_, _, publisher)| publisher.lane_subscribers() == 1)
        },
        || {
            let served: Vec<usize> = talkers.iter().map(|(_, _, p)| p.lane_subscribers()).collect();
            format!(
                "the publishers did not all serve the subscription on the lane: {served:?}, listener {:?}",
                session.stats().snapshot().lane
            )
        },
    )
    .await;
    let before = session.stats().snapshot().lane.received_messages;
    for n in 1..=COUNT {
        for (_, _, publisher) in &talkers {
            let text = std_msgs::String {
                data: format!("n{n}"),
            };
            publisher.publish(&text).await.unwrap();
        }
        if n % 10 == 0 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    for (_, _, publisher) in &talkers {
        let gid = publisher.gid();
        until("every message of each publisher", || {
            seqs_of(&log, gid).len() as i64 >= COUNT
        })
        .await;
        assert_eq!(
            seqs_of(&log, gid),
            (1..=COUNT).collect::<Vec<_>>(),
            "all, once, in order"
        );
    }
    until_lane_count(&session, before + 3 * COUNT as u64).await;
}

/// Waits until the session's lane received `total` messages in all, then checks it is exact.
async fn until_lane_count(session: &zshm::Session, total: u64) {
    let received = || session.stats().snapshot().lane.received_messages;
    super::until_or(
        || received() >= total,
        || format!("the lane read {} of {total} messages", received()),
    )
    .await;
    assert_eq!(received(), total, "the lane read each message once");
}

/// A subscriber's executor has a doorbell that every lane publisher rings, so that one wake-up
/// serves a burst to many subscriptions; a subscriber woken the old way
/// (`ZSHM_LANE_WAKE=publisher`) is woken by the publisher's own event, beside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lane_subscribers_are_woken_through_their_executors_doorbell_or_else_directly() {
    const COUNT: i64 = 40;
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (_viewer_session, viewer) = net.node("viewer").await;
    let old_way = Session::builder()
        .environment(domain.env().with("ZSHM_LANE_WAKE", "publisher"))
        .listen(["tcp/127.0.0.1:0"])
        .connect([net.locator().to_owned()])
        .open()
        .await
        .unwrap();
    let options = NodeOptions {
        start_parameter_event_publisher: false,
        ..NodeOptions::default()
    };
    let logger = Node::new(&old_way, "logger", options).await.unwrap();
    let (viewed, logged): (Log, Log) = Default::default();
    let qos = QosProfile::keep_last(16);
    let _subscriptions = (
        viewer
            .create_subscription::<std_msgs::String>("/it/lane/bell/a", qos, record(&viewed))
            .await
            .unwrap(),
        viewer
            .create_subscription::<std_msgs::String>("/it/lane/bell/b", qos, record(&viewed))
            .await
            .unwrap(),
        logger
            .create_subscription::<std_msgs::String>("/it/lane/bell/b", qos, record(&logged))
            .await
            .unwrap(),
    );
    // One session per topic, so that each one's counters are its publisher's.
    let (only_doorbells, a_node) = net.node("a").await;
    let (with_direct, b_node) = net.node("b").await;
    let a = a_node
        .create_publisher::<std_msgs::String>("/it/lane/bell/a", qos)
        .await
        .unwrap();
    let b = b_node
        .create_publisher::<std_msgs::String>("/it/lane/bell/b", qos)
        .await
        .unwrap();
    // Until then a message may also go through zenoh, whose copy may arrive first.
    until("the lane serves every subscriber", || {
        a.lane_subscribers() == 1 && b.lane_subscribers() == 2 && a.skips_zenoh() && b.skips_zenoh()
    })
    .await;
    for n in 1..=COUNT as u64 {
        publish_texts(&a, n..=n, Duration::ZERO).await;
        publish_texts(&b, n..=n, Duration::from_millis(1)).await;
    }
    let want: Vec<i64> = (1..=COUNT).collect();
    for (log, gid) in [(&viewed, a.gid()), (&viewed, b.gid()), (&logged, b.gid())] {
        until("every message", || seqs_of(log, gid).len() as i64 >= COUNT).await;
        assert_eq!(seqs_of(log, gid), want, "all, once, in order");
    }
    let everything_on_the_lane = |log: &Log| log.lock().unwrap().iter().all(|s| s.path == DataPath::Lane);
    assert!(everything_on_the_lane(&viewed) && everything_on_the_lane(&logged));

    let a = only_doorbells.stats().snapshot().lane;
    assert_eq!(
        (a.published_messages, a.doorbell_rings, a.direct_wakeups),
        (COUNT as u64, COUNT as u64, 0),
        "each send rang the viewer's doorbell and nothing else"
    );
    let b = with_direct.stats().snapshot().lane;
    assert_eq!(
        (b.published_messages, b.doorbell_rings, b.direct_wakeups),
        (COUNT as u64, COUNT as u64, COUNT as u64),
        "each send rang the viewer's doorbell and woke the logger through the publisher's event"
    );
}
