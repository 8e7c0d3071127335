//! A node process of the topics sweep through zshm (`lane`, `shm-loan`, `tcp`, ...) or through
//! plain zenoh (`zenoh-shm`, `zenoh-tcp`). A zshm node is one `Node` whose callbacks all run on
//! its one executor, so its threads do not grow with its subscriptions; plain zenoh runs every
//! callback on its receive threads.
//!
//! Before publishing, a node announces itself with a liveliness token once its subscriptions
//! exist, and waits until all nodes of the case did and each of its publishers matched.

use std::time::{Duration, Instant};

use anyhow::Context;
use zenoh::qos::{CongestionControl, Reliability};
use zshm::msgs::builtin_interfaces::msg::Time;
use zshm::msgs::sensor_msgs::msg::PointCloud2;
use zshm::ros::qos::QosProfile;
use zshm::ros::{Node, NodeOptions, SubscriptionOptions};

use super::super::shared::{cloud_shape, wait_for_lane};
use super::shared::{Delivery, NodeArgs, Recorder, measure, mono_ns};
use crate::support::{ZenohContext, shutdown};

/// Runs a zshm node.
pub async fn zshm_node(args: &NodeArgs) -> anyhow::Result<()> {
    let session = zshm::Session::builder()
        .connect([args.connect.as_str()])
        .listen(["tcp/127.0.0.1:0"])
        .no_shm(!args.mode.shm())
        .open()
        .await
        .context("cannot open the session")?;
    let node = Node::new(
        &session,
        &format!("bench_node_{}", args.index()),
        NodeOptions::default(),
    )
    .await?;
    let topic = |name: &str| format!("/bench/{}/{name}", args.case);
    let recorder = Recorder::new(&args.read(), args.seconds, args.trace_dir.is_some());
    let options = if args.mode.inline() {
        SubscriptionOptions::default().inline()
    } else {
        SubscriptionOptions::default()
    };
    let mut subscriptions = Vec::new();
    for (slot, t) in args.read().iter().enumerate() {
        let recorder = recorder.clone();
        let subscription = node
            .create_subscription_with::<PointCloud2>(
                &topic(&t.name()),
                QosProfile::keep_last(16),
                options.clone(),
                move |msg| {
                    let view = msg.view();
                    std::hint::black_box(view.data.last().copied());
                    recorder.record(Delivery {
                        slot,
                        seq: msg.sequence_number() as u64,
                        sent_ns: view.header.stamp.as_nanos(),
                        at_ns: mono_ns(),
                    });
                },
            )
            .await?;
        subscriptions.push(subscription);
    }
    let mut publishers = Vec::new();
    let mut lane_readers = Vec::new();
    for t in args.published() {
        let publisher = node
            .create_publisher::<PointCloud2>(&topic(&t.name()), QosProfile::keep_last(16))
            .await?;
        let (shape, data_len) = cloud_shape(t.bytes);
        let owned = PointCloud2 {
            data: vec![7; data_len],
            ..shape.clone()
        };
        publishers.push((publisher, shape, data_len, owned));
        lane_readers.push(t.subscribers.len());
    }
    let _token = announce(session.zenoh(), args).await?;
    let Some(ready) = shutdown::unless_signalled(wait_for_nodes(session.zenoh(), args)).await else {
        return Ok(());
    };
    ready?;
    // One deadline for all of them: a node that cannot set up reports it within the timeout.
    let deadline = Instant::now() + args.timeout;
    for (publisher, ..) in &publishers {
        let left = deadline.saturating_duration_since(Instant::now());
        anyhow::ensure!(
            publisher.wait_for_subscribers(left).await,
            "a publisher of node {} matched no subscriber within {:?}",
            args.index(),
            args.timeout
        );
    }
    if args.mode.lane() {
        for ((publisher, ..), &expected) in publishers.iter().zip(&lane_readers) {
            wait_for_lane(publisher, expected, deadline).await?;
        }
    }
    let loans = args.mode.loans();
    measure(args, &recorder, Some(&session), async |slot, seq| {
        let (publisher, shape, data_len, owned) = &mut publishers[slot];
        let stamp = if loans {
            let mut loan = publisher.loan(shape, *data_len).await;
            loan.data_mut().fill(seq as u8);
            let stamp = mono_ns();
            loan.set_stamp(Time::from_nanos(stamp));
            publisher.publish_loan(loan).await?;
            stamp
        } else {
            let stamp = mono_ns();
            owned.header.stamp = Time::from_nanos(stamp);
            publisher.publish(owned).await?;
            stamp
        };
        Ok(stamp)
    })
    .await?;
    drop(subscriptions);
    drop(publishers);
    session.close().await?;
    Ok(())
}

/// Runs a plain zenoh node: raw bytes with the send time and the sequence number first.
pub async fn zenoh_node(args: &NodeArgs) -> anyhow::Result<()> {
    let mut request = zshm::config::ConfigRequest::new(zshm::Role::Session);
    request.connect = vec![args.connect.clone()];
    request.listen = vec!["tcp/127.0.0.1:0".into()];
    request.no_shm = !args.mode.shm();
    let resolved = zshm::config::resolve(&request, &zshm::config::Environment::from_process())?;
    let session = zenoh::open(resolved.zenoh)
        .await
        .zenoh_context("cannot open zenoh")?;
    let key = |name: &str| format!("bench/{}/{name}", args.case);
    let recorder = Recorder::new(&args.read(), args.seconds, args.trace_dir.is_some());
    let mut subscribers = Vec::new();
    for (slot, t) in args.read().iter().enumerate() {
        let recorder = recorder.clone();
        let subscriber = session
            .declare_subscriber(key(&t.name()))
            .callback(move |sample| {
                let bytes = sample.payload().to_bytes();
                let at_ns = mono_ns();
                if bytes.len() < 16 {
                    return;
                }
                std::hint::black_box(bytes[bytes.len() - 1]);
                recorder.record(Delivery {
                    slot,
                    seq: u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")),
                    sent_ns: i64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes")),
                    at_ns,
                });
            })
            .await
            .zenoh_context("cannot declare a subscriber")?;
        subscribers.push(subscriber);
    }
    let mut publishers = Vec::new();
    for t in args.published() {
        let publisher = session
            .declare_publisher(key(&t.name()))
            .reliability(Reliability::Reliable)
            .congestion_control(CongestionControl::Drop)
            .await
            .zenoh_context("cannot declare a publisher")?;
        publishers.push((publisher, t.bytes.max(16)));
    }
    let provider = if args.mode.shm() {
        Some(
            crate::cmd::bench::shared::implicit_shm_provider(&session)
                .await
                .context("zenoh has no SHM provider")?,
        )
    } else {
        None
    };
    let _token = announce(&session, args).await?;
    let Some(ready) = shutdown::unless_signalled(wait_for_nodes(&session, args)).await else {
        return Ok(());
    };
    ready?;
    let deadline = Instant::now() + args.timeout;
    for (publisher, _) in &publishers {
        while !publisher.matching_status().await.is_ok_and(|s| s.matching()) {
            anyhow::ensure!(
                Instant::now() < deadline,
                "a publisher of node {} matched no subscriber",
                args.index()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    measure(args, &recorder, None, async |slot, seq| {
        let (publisher, bytes) = &publishers[slot];
        let (stamp, put) = match &provider {
            Some(provider) => {
                let mut buffer = provider
                    .alloc(*bytes)
                    .with_policy::<zenoh::shm::BlockOn<zenoh::shm::GarbageCollect>>()
                    .await
                    .context("SHM allocation")?;
                buffer.fill(seq as u8);
                buffer[8..16].copy_from_slice(&seq.to_le_bytes());
                let stamp = mono_ns();
                buffer[0..8].copy_from_slice(&stamp.to_le_bytes());
                (stamp, publisher.put(buffer).await)
            }
            None => {
                let mut buffer = vec![seq as u8; *bytes];
                buffer[8..16].copy_from_slice(&seq.to_le_bytes());
                let stamp = mono_ns();
                buffer[0..8].copy_from_slice(&stamp.to_le_bytes());
                (stamp, publisher.put(buffer).await)
            }
        };
        put.zenoh_context("cannot publish")?;
        Ok(stamp)
    })
    .await?;
    drop(subscribers);
    drop(publishers);
    session.close().await.zenoh_context("cannot close the session")?;
    Ok(())
}

/// Tells the other nodes this one subscribed.
async fn announce(
    session: &zenoh::Session,
    args: &NodeArgs,
) -> anyhow::Result<zenoh::liveliness::LivelinessToken> {
    session
        .liveliness()
        .declare_token(format!("{}/node/{}", args.prefix(), args.index()))
        .await
        .zenoh_context("cannot announce the node")
}

/// Waits until every node of the case announced itself.
async fn wait_for_nodes(session: &zenoh::Session, args: &NodeArgs) -> anyhow::Result<()> {
    let key = format!("{}/node/*", args.prefix());
    let nodes = args.workload().nodes();
    super::super::shared::wait_for_tokens(session, key, nodes, "nodes", args.timeout).await
}
