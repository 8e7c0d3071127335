//! One process of a benchmark case (`zshm bench-role`, started by `zshm bench`): a publisher or
//! a subscriber, through zshm or through plain zenoh.
//!
//! Latency = the subscriber's CLOCK_MONOTONIC when the message is readable in its callback,
//! minus the publisher's CLOCK_MONOTONIC right before publishing (same host, same clock).
//! Subscribers announce themselves with a liveliness token so the publisher starts only when
//! all of them are there; the first `--warmup` messages are not measured.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use zenoh::qos::{CongestionControl, Reliability};
use zshm::msgs::builtin_interfaces::msg::Time;
use zshm::msgs::sensor_msgs::msg::PointCloud2;
use zshm::ros::qos::QosProfile;
use zshm::ros::{Node, NodeOptions, SubscriptionOptions};

use super::plan::Mode;
use super::shared::{
    Arrival, RoleArgs, SharedCollector, cloud_shape, mono_ns, print_report, publish_paced, wait_for_lane,
    zenoh_drops,
};
use crate::support::out::outln;
use crate::support::{ZenohContext, shutdown};

/// Runs the role and prints its report as one JSON line.
pub async fn run(args: RoleArgs) -> anyhow::Result<ExitCode> {
    match (args.publisher, args.mode) {
        (_, Mode::Iceoryx2) => super::iox::run(args).await,
        (true, Mode::ZenohTcp | Mode::ZenohShm) => zenoh_publisher(args).await,
        (false, Mode::ZenohTcp | Mode::ZenohShm) => zenoh_subscriber(args).await,
        (true, _) => zshm_publisher(args).await,
        (false, _) => zshm_subscriber(args).await,
    }
}

/// A signal came before the case started: nothing was measured.
fn interrupted() -> anyhow::Result<ExitCode> {
    eprintln!("zshm bench-role: interrupted before the case started");
    Ok(ExitCode::FAILURE)
}

fn topic(args: &RoleArgs) -> String {
    format!("/bench/{}", args.case)
}

fn raw_key(args: &RoleArgs) -> String {
    format!("bench/{}/raw", args.case)
}

fn ready_token(args: &RoleArgs) -> String {
    format!("zshm-bench/{}/sub/{}", args.case, std::process::id())
}

async fn zshm_session(args: &RoleArgs) -> anyhow::Result<zshm::Session> {
    zshm::Session::builder()
        .connect([args.connect.as_str()])
        .listen(["tcp/127.0.0.1:0"])
        .no_shm(!args.mode.shm())
        .open()
        .await
        .context("cannot open the session")
}

async fn zenoh_session(args: &RoleArgs) -> anyhow::Result<zenoh::Session> {
    let mut request = zshm::config::ConfigRequest::new(zshm::Role::Session);
    request.connect = vec![args.connect.clone()];
    request.listen = vec!["tcp/127.0.0.1:0".into()];
    request.no_shm = !args.mode.shm();
    let resolved = zshm::config::resolve(&request, &zshm::config::Environment::from_process())?;
    zenoh::open(resolved.zenoh)
        .await
        .zenoh_context("cannot open zenoh")
}

/// Waits until `expected` subscribers announced themselves.
async fn wait_for_subscribers(session: &zenoh::Session, args: &RoleArgs) -> anyhow::Result<()> {
    tracing::info!(case = %args.case, "waiting for the subscribers");
    let key = format!("zshm-bench/{}/sub/*", args.case);
    let expected = usize::try_from(args.subscribers).unwrap_or(usize::MAX);
    super::shared::wait_for_tokens(session, key, expected, "subscribers", args.timeout).await
}

async fn zshm_publisher(args: RoleArgs) -> anyhow::Result<ExitCode> {
    let session = zshm_session(&args).await?;
    let node = Node::new(&session, "bench_pub", NodeOptions::default()).await?;
    let publisher = node
        .create_publisher::<PointCloud2>(&topic(&args), QosProfile::keep_last(16))
        .await?;
    let Some(ready) = shutdown::unless_signalled(wait_for_subscribers(session.zenoh(), &args)).await else {
        return interrupted();
    };
    ready?;
    anyhow::ensure!(
        publisher.wait_for_subscribers(args.timeout).await,
        "no subscriber matched"
    );
    if args.mode.lane() {
        let expected = usize::try_from(args.subscribers).unwrap_or(usize::MAX);
        wait_for_lane(&publisher, expected, Instant::now() + args.timeout).await?;
    }
    let (shape, data_len) = cloud_shape(args.payload());
    let mut owned = PointCloud2 {
        data: vec![7; data_len],
        ..shape.clone()
    };
    let drops_before = zenoh_drops(session.zenoh()).await;
    let mut report = publish_paced(&args, async |i| {
        if args.mode.loans() {
            let mut loan = publisher.loan(&shape, data_len).await;
            loan.data_mut().fill(i as u8); // the producer writes its data in place (not timed)
            loan.set_stamp(Time::from_nanos(mono_ns()));
            publisher.publish_loan(loan).await?;
        } else {
            owned.header.stamp = Time::from_nanos(mono_ns());
            publisher.publish(&owned).await?; // serialization copies the data: the ordinary API
        }
        Ok(())
    })
    .await?;
    shutdown::unless_signalled(publisher.wait_for_no_subscribers(args.timeout)).await;
    report.zenoh_dropped = zenoh_drops(session.zenoh()).await.saturating_sub(drops_before);
    print_report(&report)?;
    session.close().await?;
    Ok(ExitCode::SUCCESS)
}

async fn zshm_subscriber(args: RoleArgs) -> anyhow::Result<ExitCode> {
    let session = zshm_session(&args).await?;
    let node = Node::new(&session, "bench_sub", NodeOptions::default()).await?;
    let collector = SharedCollector::new(&args);
    let recorder = collector.clone();
    // The inline modes run the callback on zenoh's receive thread, as plain zenoh does.
    let options = if args.mode.inline() {
        SubscriptionOptions::default().inline()
    } else {
        SubscriptionOptions::default()
    };
    let _subscription = node
        .create_subscription_with::<PointCloud2>(
            &topic(&args),
            QosProfile::keep_last(16),
            options,
            move |msg| {
                let view = msg.view();
                let touched =
                    view.data.first().copied().unwrap_or(0) ^ view.data.last().copied().unwrap_or(0);
                std::hint::black_box(touched);
                let at_ns = mono_ns();
                recorder.record(Arrival {
                    at_ns,
                    sent_ns: view.header.stamp.as_nanos(),
                    seq: msg.sequence_number() as u64,
                    shm: msg.is_shm(),
                    lane: msg.path() == zshm::raw::DataPath::Lane,
                });
            },
        )
        .await?;
    let _token = session
        .zenoh()
        .liveliness()
        .declare_token(ready_token(&args))
        .await
        .zenoh_context("cannot announce the subscriber")?;
    collect(&collector, &args).await
}

async fn zenoh_publisher(args: RoleArgs) -> anyhow::Result<ExitCode> {
    let session = zenoh_session(&args).await?;
    let publisher = session
        .declare_publisher(raw_key(&args))
        .reliability(Reliability::Reliable)
        .congestion_control(CongestionControl::Drop)
        .await
        .zenoh_context("cannot declare the publisher")?;
    let provider = if args.mode.shm() {
        super::shared::implicit_shm_provider(&session).await
    } else {
        None
    };
    anyhow::ensure!(
        !args.mode.shm() || provider.is_some(),
        "zenoh has no SHM provider"
    );
    let Some(ready) = shutdown::unless_signalled(wait_for_subscribers(&session, &args)).await else {
        return interrupted();
    };
    ready?;
    let payload = args.payload().max(16);
    let data = vec![7u8; payload];
    let drops_before = zenoh_drops(&session).await;
    let mut report = publish_paced(&args, async |i| {
        {
            let put = match &provider {
                Some(provider) => {
                    let mut buffer = provider
                        .alloc(payload)
                        .with_policy::<zenoh::shm::BlockOn<zenoh::shm::GarbageCollect>>()
                        .await
                        .context("SHM allocation")?;
                    buffer.fill(i as u8);
                    buffer[8..16].copy_from_slice(&(i + 1).to_le_bytes());
                    buffer[0..8].copy_from_slice(&mono_ns().to_le_bytes());
                    publisher.put(buffer).await
                }
                None => {
                    let mut buffer = data.clone(); // one copy, like zshm's ordinary publish
                    buffer[8..16].copy_from_slice(&(i + 1).to_le_bytes());
                    buffer[0..8].copy_from_slice(&mono_ns().to_le_bytes());
                    publisher.put(buffer).await
                }
            };
            put.zenoh_context("cannot publish")
        }
    })
    .await?;
    let deadline = Instant::now() + args.timeout;
    let linger = async {
        while publisher.matching_status().await.is_ok_and(|s| s.matching()) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    shutdown::unless_signalled(linger).await;
    report.zenoh_dropped = zenoh_drops(&session).await.saturating_sub(drops_before);
    print_report(&report)?;
    session.close().await.zenoh_context("cannot close the session")?;
    Ok(ExitCode::SUCCESS)
}

async fn zenoh_subscriber(args: RoleArgs) -> anyhow::Result<ExitCode> {
    let session = zenoh_session(&args).await?;
    let collector = SharedCollector::new(&args);
    let recorder = collector.clone();
    let _subscriber = session
        .declare_subscriber(raw_key(&args))
        .callback(move |sample| {
            let payload = sample.payload();
            let bytes = payload.to_bytes();
            let at_ns = mono_ns();
            if bytes.len() < 16 {
                return;
            }
            std::hint::black_box(bytes[bytes.len() - 1]);
            recorder.record(Arrival {
                at_ns,
                sent_ns: i64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes")),
                seq: u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")),
                shm: payload.as_shm().is_some(),
                lane: false,
            });
        })
        .await
        .zenoh_context("cannot declare the subscriber")?;
    let _token = session
        .liveliness()
        .declare_token(ready_token(&args))
        .await
        .zenoh_context("cannot announce the subscriber")?;
    collect(&collector, &args).await
}

/// Prints `ready`, then gathers arrivals until the last measured one, the timeout or a signal.
async fn collect(collector: &SharedCollector, args: &RoleArgs) -> anyhow::Result<ExitCode> {
    outln!("ready");
    print_report(&collector.finish(args.timeout).await)?;
    Ok(ExitCode::SUCCESS)
}
