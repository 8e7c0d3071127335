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
use zshm::msgs::LoanableMessage;
use zshm::msgs::builtin_interfaces::Time;
use zshm::msgs::sensor_msgs::{PointCloud2, PointField};
use zshm::ros::qos::QosProfile;
use zshm::ros::{Node, NodeOptions};

use super::plan::Mode;
use crate::cli::BenchRoleArgs;

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the host.
pub fn mono_ns() -> i64 {
    let now = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .expect("CLOCK_MONOTONIC exists on Linux");
    now.tv_sec() * 1_000_000_000 + now.tv_nsec()
}

/// What a subscriber reports.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SubReport {
    /// Measured messages received.
    pub received: u64,
    /// Measured messages missing.
    pub lost: u64,
    /// Of which received through shared memory.
    pub shm: u64,
    /// Latency of each received message, ns.
    pub latencies_ns: Vec<i64>,
    /// First and last receive time (CLOCK_MONOTONIC ns), for throughput.
    pub first_ns: i64,
    /// See `first_ns`.
    pub last_ns: i64,
    /// CPU seconds spent while measuring.
    pub cpu_seconds: f64,
    /// Peak resident set size.
    pub peak_rss_bytes: u64,
}

/// What a publisher reports.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PubReport {
    /// Measured messages published.
    pub published: u64,
    /// CPU seconds spent while measuring.
    pub cpu_seconds: f64,
    /// Peak resident set size.
    pub peak_rss_bytes: u64,
}

impl PubReport {
    /// The report of `published` messages that took `cpu_seconds`, with this process's peak RSS.
    pub fn measured(published: u64, cpu_seconds: f64) -> Self {
        Self {
            published,
            cpu_seconds,
            peak_rss_bytes: zshm::usage::peak_rss_bytes(),
        }
    }
}

/// One received message, as the callback saw it.
struct Arrival {
    at_ns: i64,
    sent_ns: i64,
    seq: u64,
    shm: bool,
}

/// Runs the role and prints its report as one JSON line.
pub async fn run(args: BenchRoleArgs) -> anyhow::Result<ExitCode> {
    match (args.publisher, args.mode) {
        (_, Mode::Iceoryx2) => super::iox::run(args),
        (true, Mode::ZenohTcp | Mode::ZenohShm) => zenoh_publisher(args).await,
        (false, Mode::ZenohTcp | Mode::ZenohShm) => zenoh_subscriber(args).await,
        (true, _) => zshm_publisher(args).await,
        (false, _) => zshm_subscriber(args).await,
    }
}

fn topic(args: &BenchRoleArgs) -> String {
    format!("/bench/{}", args.case)
}

fn raw_key(args: &BenchRoleArgs) -> String {
    format!("bench/{}/raw", args.case)
}

fn ready_token(args: &BenchRoleArgs) -> String {
    format!("zshm-bench/{}/sub/{}", args.case, std::process::id())
}

async fn zshm_session(args: &BenchRoleArgs) -> anyhow::Result<zshm::Session> {
    zshm::Session::builder()
        .connect([args.connect.as_str()])
        .listen(["tcp/127.0.0.1:0"])
        .no_shm(!args.mode.shm())
        .open()
        .await
        .context("cannot open the session")
}

async fn zenoh_session(args: &BenchRoleArgs) -> anyhow::Result<zenoh::Session> {
    let mut request = zshm::config::ConfigRequest::new(zshm::Role::Session);
    request.connect = vec![args.connect.clone()];
    request.listen = vec!["tcp/127.0.0.1:0".into()];
    request.no_shm = !args.mode.shm();
    let resolved = zshm::config::resolve(&request, &zshm::config::Environment::from_process())?;
    zenoh::open(resolved.zenoh)
        .await
        .map_err(|err| anyhow::anyhow!("cannot open zenoh: {err}"))
}

/// A cloud of `payload` serialized bytes: one `uint8` field per point.
fn cloud_shape(payload: usize) -> (PointCloud2, usize) {
    let mut shape = PointCloud2 {
        header: zshm::msgs::std_msgs::Header {
            frame_id: "b".into(),
            ..Default::default()
        },
        height: 1,
        fields: vec![PointField::new("v", 0, PointField::UINT8)],
        point_step: 1,
        is_dense: true,
        ..Default::default()
    };
    let data_len = payload.saturating_sub(shape.shape_len(0));
    shape.width = data_len as u32;
    shape.row_step = data_len as u32;
    (shape, data_len)
}

/// Waits until `expected` subscribers announced themselves.
async fn wait_for_subscribers(session: &zenoh::Session, args: &BenchRoleArgs) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);
    let selector = format!("zshm-bench/{}/sub/*", args.case);
    loop {
        let replies = session
            .liveliness()
            .get(&selector)
            .timeout(Duration::from_secs(1))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut count = 0;
        while replies.recv_async().await.is_ok() {
            count += 1;
        }
        if count >= args.subscribers {
            return Ok(());
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "only {count} of {} subscribers appeared",
            args.subscribers
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Paces the publishing loop at `rate` (0: no pacing).
fn ticker(rate: f64) -> Option<tokio::time::Interval> {
    (rate > 0.0).then(|| {
        let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        interval
    })
}

async fn zshm_publisher(args: BenchRoleArgs) -> anyhow::Result<ExitCode> {
    let session = zshm_session(&args).await?;
    let node = Node::new(&session, "bench_pub", NodeOptions::default()).await?;
    let publisher = node
        .create_publisher::<PointCloud2>(&topic(&args), QosProfile::keep_last(16))
        .await?;
    wait_for_subscribers(session.zenoh(), &args).await?;
    anyhow::ensure!(
        publisher
            .wait_for_subscribers(Duration::from_secs_f64(args.timeout))
            .await,
        "no subscriber matched"
    );
    let (shape, data_len) = cloud_shape(args.payload);
    let mut owned = PointCloud2 {
        data: vec![7; data_len],
        ..shape.clone()
    };
    let mut ticker = ticker(args.rate);
    let mut cpu_start = zshm::usage::cpu_seconds();
    for i in 0..args.warmup + args.count {
        if i == args.warmup {
            cpu_start = zshm::usage::cpu_seconds();
        }
        if let Some(ticker) = &mut ticker {
            ticker.tick().await;
        }
        if args.mode == Mode::ShmLoan {
            let mut loan = publisher.loan(&shape, data_len).await;
            loan.data_mut().fill(i as u8); // the producer writes its data in place (not timed)
            loan.set_stamp(Time::from_nanos(mono_ns()));
            publisher.publish_loan(loan).await?;
        } else {
            owned.header.stamp = Time::from_nanos(mono_ns());
            publisher.publish(&owned).await?; // serialization copies the data: the ordinary API
        }
    }
    let cpu_seconds = zshm::usage::cpu_seconds() - cpu_start;
    publisher
        .wait_for_no_subscribers(Duration::from_secs_f64(args.timeout))
        .await;
    print_report(&PubReport::measured(args.count, cpu_seconds))?;
    session.close().await.map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}

async fn zshm_subscriber(args: BenchRoleArgs) -> anyhow::Result<ExitCode> {
    let session = zshm_session(&args).await?;
    let node = Node::new(&session, "bench_sub", NodeOptions::default()).await?;
    let (tx, rx) = flume::unbounded();
    let _subscription = node
        .create_subscription::<PointCloud2>(&topic(&args), QosProfile::keep_last(16), move |msg| {
            let view = msg.view();
            let touched = view.data.first().copied().unwrap_or(0) ^ view.data.last().copied().unwrap_or(0);
            std::hint::black_box(touched);
            let at_ns = mono_ns();
            let _ = tx.send(Arrival {
                at_ns,
                sent_ns: view.header.stamp.as_nanos(),
                seq: msg.sequence_number() as u64,
                shm: msg.is_shm(),
            });
        })
        .await?;
    let _token = session
        .zenoh()
        .liveliness()
        .declare_token(ready_token(&args))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    collect(rx, &args).await
}

async fn zenoh_publisher(args: BenchRoleArgs) -> anyhow::Result<ExitCode> {
    let session = zenoh_session(&args).await?;
    let publisher = session
        .declare_publisher(raw_key(&args))
        .reliability(Reliability::Reliable)
        .congestion_control(CongestionControl::Drop)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let provider = if args.mode.shm() {
        session.get_shm_provider().await
    } else {
        None
    };
    anyhow::ensure!(
        !args.mode.shm() || provider.is_some(),
        "zenoh has no SHM provider"
    );
    wait_for_subscribers(&session, &args).await?;
    let payload = args.payload.max(16);
    let data = vec![7u8; payload];
    let mut ticker = ticker(args.rate);
    let mut cpu_start = zshm::usage::cpu_seconds();
    for i in 0..args.warmup + args.count {
        if i == args.warmup {
            cpu_start = zshm::usage::cpu_seconds();
        }
        if let Some(ticker) = &mut ticker {
            ticker.tick().await;
        }
        let put = match &provider {
            Some(provider) => {
                let mut buffer = provider
                    .alloc(payload)
                    .with_policy::<zenoh::shm::BlockOn<zenoh::shm::GarbageCollect>>()
                    .await
                    .map_err(|e| anyhow::anyhow!("SHM allocation: {e}"))?;
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
        put.map_err(|e| anyhow::anyhow!("put: {e}"))?;
    }
    let cpu_seconds = zshm::usage::cpu_seconds() - cpu_start;
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);
    while publisher.matching_status().await.is_ok_and(|s| s.matching()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    print_report(&PubReport::measured(args.count, cpu_seconds))?;
    session.close().await.map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}

async fn zenoh_subscriber(args: BenchRoleArgs) -> anyhow::Result<ExitCode> {
    let session = zenoh_session(&args).await?;
    let (tx, rx) = flume::unbounded();
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
            let _ = tx.send(Arrival {
                at_ns,
                sent_ns: i64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes")),
                seq: u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")),
                shm: payload.as_shm().is_some(),
            });
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let _token = session
        .liveliness()
        .declare_token(ready_token(&args))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    collect(rx, &args).await
}

/// Prints `ready`, then gathers arrivals until the last measured one, the timeout or a signal.
async fn collect(rx: flume::Receiver<Arrival>, args: &BenchRoleArgs) -> anyhow::Result<ExitCode> {
    println!("ready");
    let last = args.warmup + args.count;
    let mut report = SubReport::default();
    let mut cpu_start = 0.0;
    let deadline = tokio::time::sleep(Duration::from_secs_f64(args.timeout));
    tokio::pin!(deadline);
    let mut shutdown = std::pin::pin!(crate::cmd::shutdown_signal());
    loop {
        let arrival = tokio::select! {
            arrival = rx.recv_async() => arrival.ok(),
            _ = &mut deadline => None,
            _ = &mut shutdown => None,
        };
        let Some(arrival) = arrival else { break };
        if arrival.seq <= args.warmup {
            continue;
        }
        if report.received == 0 {
            cpu_start = zshm::usage::cpu_seconds();
            report.first_ns = arrival.at_ns;
        }
        report.received += 1;
        report.shm += u64::from(arrival.shm);
        report.last_ns = arrival.at_ns;
        report.latencies_ns.push(arrival.at_ns - arrival.sent_ns);
        if arrival.seq >= last {
            break;
        }
    }
    report.lost = args.count.saturating_sub(report.received);
    report.cpu_seconds = zshm::usage::cpu_seconds() - cpu_start;
    report.peak_rss_bytes = zshm::usage::peak_rss_bytes();
    print_report(&report)?;
    Ok(ExitCode::SUCCESS)
}

fn print_report(report: &impl serde::Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string(report)?);
    Ok(())
}
