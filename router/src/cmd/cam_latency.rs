//! `zshm cam-latency`: the workshop's point-cloud latency probe (`just cam_latency`), native.
//!
//! Latency of a sample = the wall clock (CLOCK_REALTIME) in the subscription callback, with the
//! message readable, minus `header.stamp`. Every `--window` seconds it prints the workshop's line
//! `Mean : 9.40 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms`; `--verbose` adds
//! percentiles, losses, SHM share and size; `--json` prints objects instead.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use zshm::latency::{Observation, Probe, StampVerdict, WindowReport};
use zshm::msgs::builtin_interfaces::wall_clock_nanos;
use zshm::msgs::sensor_msgs::{Image, PointCloud2};
use zshm::msgs::{Message, SensorMessage};
use zshm::ros::qos::QosProfile;
use zshm::ros::{Node, Received, RosSubscription};
use zshm::shm::human_bytes;
use zshm::sim_camera::SimCamera;

use crate::cli::{CamLatencyArgs, CamStream};

/// The subscription, kept alive for the run.
enum Subscription {
    Points(RosSubscription<PointCloud2>),
    Image(RosSubscription<Image>),
}

/// Measures until `--count`, `--duration` or a signal.
pub async fn run(args: CamLatencyArgs) -> anyhow::Result<ExitCode> {
    let node = super::open_node(&args.session, &args.node, "cam_latency").await?;
    let topic = args.topic.clone().unwrap_or_else(|| match args.stream {
        CamStream::Points => "/camera/points".into(),
        CamStream::Image => "/camera/image_raw".into(),
    });
    let (tx, rx) = flume::unbounded();
    let corrupt = Arc::new(AtomicU64::new(0));
    // Reliable, keep last 10: the rclpy subscription of the original script.
    let qos = QosProfile::keep_last(10);
    let histogram = node.session().latency_histogram(&node.expand_topic(&topic)?);
    // `--verify` compares each message with what `cam-pub --pattern` sends: the simulated
    // camera's layout, geometry consistent with the data length, and every data byte.
    let shapes = SimCamera::default();
    let expect = |layout: String| {
        args.verify.then(|| Verify {
            layout,
            corrupt: corrupt.clone(),
        })
    };
    let subscription = match args.stream {
        CamStream::Points => {
            let verify = expect(layout_of(&shapes.cloud_shape("")));
            Subscription::Points(subscribe(&node, &topic, qos, tx, verify, histogram).await?)
        }
        CamStream::Image => {
            let verify = expect(layout_of(&shapes.image_shape("")));
            Subscription::Image(subscribe(&node, &topic, qos, tx, verify, histogram).await?)
        }
    };
    let topic = match &subscription {
        Subscription::Points(s) => s.info().topic.clone(),
        Subscription::Image(s) => s.info().topic.clone(),
    };
    eprintln!(
        "zshm cam-latency: measuring {topic} (shared memory {})",
        node.session().shm_status()
    );

    let started = Instant::now();
    let mut probe = Probe::new(Duration::from_secs_f64(args.window.max(0.001)), started);
    let first_deadline = tokio::time::Instant::now() + Duration::from_secs_f64(args.timeout.max(0.0));
    let end = args
        .duration
        .map(|d| tokio::time::Instant::now() + Duration::from_secs_f64(d.max(0.0)));
    let mut shutdown = std::pin::pin!(super::shutdown_signal());
    loop {
        let waiting_for_first = probe.received() == 0;
        let observation = tokio::select! {
            obs = rx.recv_async() => obs.ok(),
            _ = tokio::time::sleep_until(first_deadline), if waiting_for_first => {
                anyhow::bail!(
                    "no message on {topic} within {} s. Check: is a router running (`just router` / `zshm router`) \
                     and are both sides connected to it? same ROS_DOMAIN_ID (here {})? is the publisher running \
                     and publishing {}?",
                    args.timeout,
                    node.info().domain,
                    match args.stream { CamStream::Points => PointCloud2::TYPE.name, CamStream::Image => Image::TYPE.name }
                );
            }
            _ = sleep_until_opt(end) => None,
            _ = &mut shutdown => None,
        };
        let Some(observation) = observation else { break };
        let outcome = probe.observe(observation);
        if let Some((verdict, latency_ns)) = outcome.first_implausible {
            report_implausible(verdict, latency_ns);
        }
        if let Some(report) = outcome.closed_window {
            print_report(&args, &topic, &report, false);
        }
        if args.count.is_some_and(|count| probe.received() >= count) {
            break;
        }
    }
    drop(subscription);

    let total = probe.total(Instant::now());
    let bounded = args.count.is_some() || args.duration.is_some();
    if bounded {
        print_report(&args, &topic, &total, true);
    }
    node.session()
        .close()
        .await
        .map_err(|err| anyhow::anyhow!("closing the session: {err}"))?;
    let corrupt = corrupt.load(Ordering::Relaxed);
    if corrupt > 0 {
        anyhow::bail!(
            "{corrupt} messages did not match what `cam-pub --pattern` sends (layout, length or data)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What `--verify` expects, and where it counts mismatches.
struct Verify {
    layout: String,
    corrupt: Arc<AtomicU64>,
}

/// The layout of a message shaped like `shape` (whatever its data).
fn layout_of<T: SensorMessage>(shape: &T) -> String {
    let bytes = shape.to_cdr();
    T::layout(&T::view_cdr(&bytes).expect("a message zshm serialized reads back"))
}

/// Subscribes to `T` and turns each message into an [`Observation`] in the callback, where the
/// latency is taken. With `verify`, data that does not match `cam-pub --pattern` is counted there.
async fn subscribe<T: SensorMessage>(
    node: &Node,
    topic: &str,
    qos: QosProfile,
    tx: flume::Sender<Observation>,
    verify: Option<Verify>,
    histogram: Arc<zshm::telemetry::histogram::LatencyHistogram>,
) -> anyhow::Result<RosSubscription<T>> {
    Ok(node
        .create_subscription::<T>(topic, qos, move |received: Received<T>| {
            let view = received.view();
            let latency_ns = wall_clock_nanos() - T::stamp(&view).as_nanos();
            if StampVerdict::of(latency_ns) == StampVerdict::Valid {
                histogram.observe_ns(latency_ns);
            }
            if let Some(verify) = &verify
                && (T::layout(&view) != verify.layout
                    || !T::consistent(&view)
                    || zshm::pattern::verify(T::data(&view)).is_err())
            {
                verify.corrupt.fetch_add(1, Ordering::Relaxed);
            }
            // The receiver lives until the subscription is dropped.
            let _ = tx.send(Observation {
                at: Instant::now(),
                latency_ns,
                publisher: received.publisher_gid(),
                sequence_number: received.sequence_number(),
                shm: received.is_shm(),
                bytes: received.payload().len(),
            });
        })
        .await?)
}

async fn sleep_until_opt(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

fn report_implausible(verdict: StampVerdict, latency_ns: i64) {
    let ms = latency_ns as f64 / 1e6;
    match verdict {
        StampVerdict::InTheFuture => eprintln!(
            "zshm cam-latency: header.stamp is {:.2} ms in the future: the publisher's clock is ahead (another host?) \
             or it uses sim time; such samples are counted as invalid_stamps, not averaged",
            -ms
        ),
        _ => eprintln!(
            "zshm cam-latency: header.stamp is {:.1} s old: the publisher is probably on sim time (restart it with \
             use_wall_time:=True); such samples are counted as invalid_stamps, not averaged",
            ms / 1e3
        ),
    }
}

fn print_report(args: &CamLatencyArgs, topic: &str, report: &WindowReport, final_summary: bool) {
    if args.json {
        let value = serde_json::json!({
            "topic": topic,
            "final": final_summary,
            "seconds": report.seconds,
            "received": report.received,
            "lost": report.lost,
            "invalid_stamps": report.invalid_stamps,
            "shm_share": report.shm_share(),
            "message_bytes": report.message_bytes,
            "latency_ms": report.latency_ms,
            "cpu_seconds": zshm::usage::cpu_seconds(),
        });
        println!("{value}");
        return;
    }
    let line = match &report.latency_ms {
        Some(latency) => latency.workshop_line(),
        None => format!("no valid stamp among {} messages", report.received),
    };
    if final_summary {
        println!("Summary over {:.1} s: {line}", report.seconds);
    } else {
        println!("{line}");
    }
    if args.verbose || final_summary {
        let (p50, p99, p999) =
            report
                .latency_ms
                .map(|l| (l.p50, l.p99, l.p999))
                .unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        println!(
            "  n={} p50={p50:.2} ms p99={p99:.2} ms p99.9={p999:.2} ms lost={} invalid_stamps={} shm={:.0}% size={}",
            report.received,
            report.lost,
            report.invalid_stamps,
            100.0 * report.shm_share(),
            human_bytes(report.message_bytes as u64)
        );
    }
}
