//! QoS through the lane behaves as over zenoh: transient-local history for late joiners,
//! KEEP_ALL without loss, and what the lane cannot hold stays on zenoh, counted.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use zshm::msgs::std_msgs::msg as std_msgs;
use zshm::raw::DataPath;
use zshm::ros::Publisher;
use zshm::ros::qos::{Durability, History, QosProfile};
use zshm::stats::LaneFallback;

use super::{DEADLINE, Domain, Net, until, until_or};

type Log = Arc<Mutex<Vec<(i64, DataPath)>>>;

fn record(log: &Log) -> impl Fn(zshm::ros::Sample<'_, std_msgs::String>) + Send + Sync + 'static {
    let log = log.clone();
    move |sample| {
        log.lock()
            .unwrap()
            .push((sample.sequence_number(), sample.path()))
    }
}

fn text(n: u64) -> std_msgs::String {
    std_msgs::String {
        data: format!("n{n}"),
    }
}

/// Publishes `count` texts once `publisher` has its subscriber, waits until all are logged, and
/// checks that none came through the lane.
async fn all_through_zenoh(publisher: &Publisher<std_msgs::String>, log: &Log, count: u64) {
    assert!(publisher.wait_for_subscribers(DEADLINE).await);
    for n in 1..=count {
        publisher.publish(&text(n)).await.unwrap();
    }
    until(&format!("all {count}"), || {
        log.lock().unwrap().len() == count as usize
    })
    .await;
    assert!(
        log.lock()
            .unwrap()
            .iter()
            .all(|(_, path)| *path != DataPath::Lane)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transient_local_late_joiner_gets_the_history_once_then_the_lane() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let latched = QosProfile::keep_last(5).durability(Durability::TransientLocal);
    let (_a, talker) = net.node("talker").await;
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/latched", latched)
        .await
        .unwrap();
    for n in 1..=8 {
        publisher.publish(&text(n)).await.unwrap();
    }
    let (b, listener) = net.node("listener").await;
    let log: Log = Arc::default();
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/latched", latched, record(&log))
        .await
        .unwrap();
    until("the history", || log.lock().unwrap().len() >= 5).await;
    until("the lane subscriber", || publisher.lane_subscribers() == 1).await;
    publisher.publish(&text(9)).await.unwrap();
    until("the next message", || {
        log.lock().unwrap().iter().any(|(seq, _)| *seq == 9)
    })
    .await;
    let seqs: Vec<i64> = log.lock().unwrap().iter().map(|(seq, _)| *seq).collect();
    assert_eq!(
        seqs,
        [4, 5, 6, 7, 8, 9],
        "the last 5, once each, then the live one"
    );
    // A transient-local publisher sends through zenoh too (for zenoh's cache), and the lane
    // hands over its own history (the last 5 when the subscriber connected): copies of the same
    // numbers arrived both ways and were delivered once.
    until_or(
        || b.stats().snapshot().lane.received_messages >= 5,
        || format!("no history through the lane: {:?}", b.stats().snapshot().lane),
    )
    .await;
    assert!(b.stats().snapshot().lane.duplicates_dropped >= 4);
}

/// A latched topic with more subscribers than the lane's first generation (4), as `/tf_static`
/// often has: the lane moves to its larger generation, whose new port has no history of its own,
/// and a subscriber that joins after the move still gets the history (zenoh's cache answers it:
/// a TRANSIENT_LOCAL publisher always sends through zenoh too), once, then the live messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_latched_topic_whose_lane_grew_still_gives_a_late_joiner_its_history() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let latched = QosProfile::keep_last(5).durability(Durability::TransientLocal);
    let (_a, talker) = net.node("talker").await;
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/latched_grown", latched)
        .await
        .unwrap();
    for n in 1..=8 {
        publisher.publish(&text(n)).await.unwrap();
    }
    let mut listeners = Vec::new();
    for n in 0..6 {
        let (session, listener) = net.node(&format!("listener{n}")).await;
        let log: Log = Arc::default();
        let subscription = listener
            .create_subscription::<std_msgs::String>("/it/lane/latched_grown", latched, record(&log))
            .await
            .unwrap();
        until_or(
            || log.lock().unwrap().len() >= 5 && publisher.lane_subscribers() == n + 1,
            || {
                format!(
                    "listener {n}: {:?}, lane subscribers {}",
                    log.lock().unwrap(),
                    publisher.lane_subscribers()
                )
            },
        )
        .await;
        listeners.push((session, listener, subscription, log));
    }
    assert_eq!(publisher.lane_capacity(), 32, "the lane grew");
    publisher.publish(&text(9)).await.unwrap();
    for (n, (session, _, _, log)) in listeners.iter().enumerate() {
        until(&format!("listener {n}: the live message"), || {
            log.lock().unwrap().iter().any(|(seq, _)| *seq == 9)
        })
        .await;
        let seqs: Vec<i64> = log.lock().unwrap().iter().map(|(seq, _)| *seq).collect();
        assert_eq!(
            seqs,
            [4, 5, 6, 7, 8, 9],
            "listener {n}: the last 5, once each, then the live one"
        );
        assert_eq!(session.stats().snapshot().lane.queue_drops, 0, "listener {n}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_all_reliable_through_the_lane_waits_for_a_slow_subscriber_and_loses_nothing() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let keep_all = QosProfile {
        history: History::KeepAll,
        ..QosProfile::default()
    };
    let (b, listener) = net.node("listener").await;
    let log: Log = Arc::default();
    let slow = record(&log);
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/all", keep_all, move |sample| {
            std::thread::sleep(Duration::from_millis(2));
            slow(sample)
        })
        .await
        .unwrap();
    let (a, talker) = net.node("talker").await;
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/all", keep_all)
        .await
        .unwrap();
    until("the lane serves every subscriber", || publisher.skips_zenoh()).await;
    for n in 1..=200 {
        publisher.publish(&text(n)).await.unwrap(); // 16 queued at most: the publisher waits
    }
    until_or(
        || log.lock().unwrap().len() == 200,
        || {
            format!(
                "{} of 200 arrived: {:?}",
                log.lock().unwrap().len(),
                b.stats().snapshot().lane
            )
        },
    )
    .await;
    let seen = log.lock().unwrap().clone();
    assert_eq!(
        seen.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(),
        (1..=200).collect::<Vec<_>>()
    );
    assert!(seen.iter().all(|(_, path)| *path == DataPath::Lane));
    assert_eq!(a.stats().snapshot().lane.blocked_discards, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_a_slow_keep_last_subscriber_never_read_on_the_lane_are_counted() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (b, listener) = net.node("listener").await;
    let log: Log = Arc::default();
    // The callback holds the executor on the first message until the test opens the gate: the
    // lane's queue of 16 fills meanwhile, and KEEP_LAST overwrites its oldest.
    let (open, gate) = flume::bounded::<()>(1);
    let logged = record(&log);
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/slow", QosProfile::keep_last(16), move |sample| {
            let first = sample.sequence_number() == 1;
            logged(sample);
            if first {
                let _ = gate.recv_timeout(DEADLINE);
            }
        })
        .await
        .unwrap();
    let (a, talker) = net.node("talker").await;
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/slow", QosProfile::keep_last(16))
        .await
        .unwrap();
    until("the lane serves every subscriber", || publisher.skips_zenoh()).await;
    publisher.publish(&text(1)).await.unwrap();
    until("the first message is in the callback", || {
        log.lock().unwrap().len() == 1
    })
    .await;
    const SENT: i64 = 60;
    for n in 2..=SENT {
        publisher.publish(&text(n as u64)).await.unwrap();
    }
    assert_eq!(
        a.stats().snapshot().lane.published_messages,
        SENT as u64,
        "all through the lane"
    );
    open.send(()).unwrap();
    until_or(
        || log.lock().unwrap().last().is_some_and(|(seq, _)| *seq == SENT),
        || format!("{:?}, {:?}", log.lock().unwrap(), b.stats().snapshot().lane),
    )
    .await;
    let seqs: Vec<i64> = log.lock().unwrap().iter().map(|(seq, _)| *seq).collect();
    let read = seqs.len() as i64;
    // The first, then the newest ones the queue kept, in order.
    assert_eq!(seqs[0], 1);
    assert_eq!(seqs[1..], (SENT - read + 2..=SENT).collect::<Vec<_>>());
    let stats = b.stats().snapshot();
    assert!(
        read < SENT,
        "the queue of 16 cannot have kept 59 messages: {seqs:?}"
    );
    assert_eq!(
        stats.lane.queue_drops,
        (SENT - read) as u64,
        "every message never read is counted: {:?}",
        stats.lane
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_depth_the_lane_cannot_hold_stays_on_zenoh_and_is_counted() {
    let domain = Domain::new();
    let net = Net::start(domain.env()).await;
    let (b, listener) = net.node("listener").await;
    let log: Log = Arc::default();
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/deep", QosProfile::keep_last(50), record(&log))
        .await
        .unwrap();
    let (_a, talker) = net.node("talker").await;
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/deep", QosProfile::default())
        .await
        .unwrap();
    all_through_zenoh(&publisher, &log, 20).await;
    assert_eq!(publisher.lane_subscribers(), 0);
    assert!(!publisher.skips_zenoh());
    let fallbacks = b.stats().snapshot().lane;
    assert_eq!(fallbacks.fallbacks(LaneFallback::DepthAboveLimit), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_zshm_lane_off_everything_goes_through_zenoh() {
    let domain = Domain::new();
    let net = Net::start(domain.env().with("ZSHM_LANE", "off")).await;
    let (a, talker) = net.node("talker").await;
    let (_b, listener) = net.node("listener").await;
    let status = a.lane_status();
    assert_eq!(
        status.unavailable_reason().map(|r| r.label()),
        Some("disabled_by_env")
    );
    let log: Log = Arc::default();
    let _subscription = listener
        .create_subscription::<std_msgs::String>("/it/lane/off", QosProfile::default(), record(&log))
        .await
        .unwrap();
    let publisher = talker
        .create_publisher::<std_msgs::String>("/it/lane/off", QosProfile::default())
        .await
        .unwrap();
    all_through_zenoh(&publisher, &log, 10).await;
    assert_eq!(a.stats().snapshot().lane.published_messages, 0);
    assert!(
        !std::path::Path::new(&domain.env().get("ZSHM_LANE_ROOT").unwrap()).exists(),
        "no iceoryx2 state at all"
    );
}
