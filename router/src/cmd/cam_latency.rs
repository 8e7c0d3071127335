//! `zshm cam-latency`: the workshop's point-cloud latency probe (`just cam_latency`), native.
//!
//! Latency of a sample = the wall clock (CLOCK_REALTIME) in the subscription callback, with the
//! message readable, minus `header.stamp`. Every `--window` seconds it prints the workshop's line
//! `Mean : 9.40 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms`; `--verbose` adds
//! percentiles, losses, SHM share and size; `--json` prints objects instead.
//!
//! Silence is reported: no first message within `--timeout` is an error, and a stream that stops
//! mid-run is said on stderr once it has been silent for `--timeout`, then again when it resumes.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use zshm::internal::text::{human_bytes, seconds};
use zshm::msgs::sensor_msgs::msg::{Image, PointCloud2};
use zshm::msgs::wall_clock_nanos;
use zshm::msgs::{Message, SensorMessage};
use zshm::ros::qos::QosProfile;
use zshm::ros::{Node, Sample, Subscription};
use zshm::stats::histogram::LatencyHistogram;
use zshm_ops::tools::latency::{Observation, Probe, ProbeReport, StampVerdict, WindowReport};
use zshm_ops::tools::sim_camera::SimCamera;

use crate::cli::{self, NodeArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm cam-latency`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session, namespace and domain.
    #[command(flatten)]
    pub node: NodeArgs,
    /// What to measure: `points` (/camera/points) or `image` (/camera/image_raw).
    #[arg(value_enum, default_value_t = CamStream::Points)]
    pub stream: CamStream,
    /// Topic, instead of the stream's default.
    #[arg(short, long)]
    pub topic: Option<String>,
    /// Seconds per printed window (the workshop script uses 3).
    #[arg(short, long, default_value = "3", value_parser = cli::positive_seconds)]
    pub window: Duration,
    /// Also print count, percentiles, lost messages, SHM share and message size per window.
    #[arg(short, long)]
    pub verbose: bool,
    /// One JSON object per window (and a final one) instead of text ([`ProbeReport`]).
    #[arg(long)]
    pub json: bool,
    /// Stop after this many samples and print a summary.
    #[arg(short = 'n', long)]
    pub count: Option<u64>,
    /// Stop after this many seconds and print a summary.
    #[arg(short, long, value_parser = cli::seconds)]
    pub duration: Option<Duration>,
    /// Exit with an error if no sample arrives within this many seconds; later, say so on stderr
    /// when the stream stays silent this long.
    #[arg(long, default_value = "15", value_parser = cli::seconds)]
    pub timeout: Duration,
    /// Check the point data against `cam-pub --pattern` (byte for byte).
    #[arg(long)]
    pub verify: bool,
    /// Sleep this many seconds in each callback, after measuring: a slow consumer, to see what
    /// the subscription drops (the oldest clouds, counted) and that nothing else stalls.
    #[arg(long, value_name = "SECONDS", value_parser = cli::seconds)]
    pub callback_delay: Option<Duration>,
}

/// Which message `cam-latency` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CamStream {
    /// sensor_msgs/PointCloud2 on /camera/points.
    Points,
    /// sensor_msgs/Image on /camera/image_raw.
    Image,
}

/// The subscription, kept alive for the run.
enum Probed {
    Points(Subscription<PointCloud2>),
    Image(Subscription<Image>),
}

/// Measures until `--count`, `--duration` or a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let node = session::open_node(&args.node, "cam_latency").await?;
    let topic = args.topic.clone().unwrap_or_else(|| match args.stream {
        CamStream::Points => "/camera/points".into(),
        CamStream::Image => "/camera/image_raw".into(),
    });
    // Bounded: when this loop falls behind, the callback waits, and the subscription's own queue
    // drops the oldest samples (counted) instead of this process growing.
    let (tx, rx) = flume::bounded(OBSERVATIONS_QUEUE);
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
            Probed::Points(subscribe(&node, &topic, qos, tx, verify, histogram, args.callback_delay).await?)
        }
        CamStream::Image => {
            let verify = expect(layout_of(&shapes.image_shape("")));
            Probed::Image(subscribe(&node, &topic, qos, tx, verify, histogram, args.callback_delay).await?)
        }
    };
    let topic = match &subscription {
        Probed::Points(s) => s.info().topic.clone(),
        Probed::Image(s) => s.info().topic.clone(),
    };
    // What this process can do; which path the messages really take is said after the first
    // window, from what arrived (a same-host publisher of another user cannot share memory).
    eprintln!(
        "zshm cam-latency: measuring {topic} (this process: shared memory {}; lane {})",
        node.session().shm_status(),
        node.session().lane_status()
    );
    let mut path_said = false;

    let started = Instant::now();
    let mut probe = Probe::new(args.window, started);
    let first_deadline = tokio::time::Instant::now() + args.timeout;
    let end = args.duration.map(|d| tokio::time::Instant::now() + d);
    let mut shutdown = std::pin::pin!(shutdown::signal());
    let mut silence = Silence::default();
    loop {
        let waiting_for_first = probe.received() == 0;
        let observation = tokio::select! {
            obs = rx.recv_async() => obs.ok(),
            _ = tokio::time::sleep_until(silence.deadline(args.timeout)), if silence.watching() => {
                silence.report_start(&topic, args.timeout);
                continue;
            }
            _ = tokio::time::sleep_until(first_deadline), if waiting_for_first => {
                anyhow::bail!(
                    "no message on {topic} within {}. Check: is a router running (`just router` / `zshm router`) \
                     and are both sides connected to it? same ROS_DOMAIN_ID (here {})? is the publisher running \
                     and publishing {}?",
                    seconds(args.timeout),
                    node.info().domain,
                    match args.stream { CamStream::Points => PointCloud2::TYPE.name, CamStream::Image => Image::TYPE.name }
                );
            }
            _ = sleep_until_opt(end) => None,
            _ = &mut shutdown => None,
        };
        let Some(observation) = observation else { break };
        silence.heard(&topic);
        let outcome = probe.observe(observation);
        if let Some((verdict, latency_ns)) = outcome.first_implausible {
            report_implausible(verdict, latency_ns);
        }
        if let Some(report) = outcome.closed_window {
            if !std::mem::replace(&mut path_said, true) {
                say_which_path(&node, &topic, &report, probe.network_before_shm()).await;
            }
            print_report(&args, &node, &topic, &report, None);
        }
        if args.count.is_some_and(|count| probe.received() >= count) {
            break;
        }
    }
    // The receiver first: a callback waiting on a full channel returns at once, so dropping the
    // subscription (which waits for a running callback) cannot hang.
    drop(rx);
    drop(subscription);

    let total = probe.total(Instant::now());
    if !path_said && total.received > 0 {
        say_which_path(&node, &topic, &total, probe.network_before_shm()).await;
    }
    let bounded = args.count.is_some() || args.duration.is_some();
    if bounded {
        print_report(
            &args,
            &node,
            &topic,
            &total,
            Some((probe.before_first(), probe.network_before_shm())),
        );
    }
    session::close(node.session()).await?;
    let corrupt = corrupt.load(Ordering::Relaxed);
    if corrupt > 0 {
        anyhow::bail!(
            "{corrupt} messages did not match what `cam-pub --pattern` sends (layout, length or data)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Says once which path the messages took: never "shared memory" when nothing came through it,
/// and the cause when this process could have received through it but did not: the link to the
/// topic's publisher as the session found it (another user, shared memory off, another zenoh).
async fn say_which_path(node: &Node, topic: &str, report: &WindowReport, network_before_shm: u64) {
    let session = node.session();
    let lane = 100.0 * report.lane_share();
    let network = report.received - report.shm;
    if network == 0 {
        eprintln!(
            "zshm cam-latency: messages arrive through shared memory ({lane:.0}% through the same-host lane)"
        );
        return;
    }
    if network == network_before_shm {
        eprintln!(
            "zshm cam-latency: messages arrive through shared memory ({lane:.0}% through the same-host lane); \
             the first {network} arrived over the network, before the publisher's shared memory was ready \
             (zenoh creates its pool on first use)"
        );
        return;
    }
    let percent = 100.0 * report.shm_share();
    let why = if !session.shm_status().is_active() {
        format!("this process has shared memory {}", session.shm_status())
    } else {
        match publisher_link_problem(node, topic).await {
            Some(problem) => format!("{problem}; fix: {}", problem.remedy()),
            None => "the publisher sends copies (its shared memory is off, it runs on another host, or its \
                     messages are below its SHM threshold)"
                .to_owned(),
        }
    };
    eprintln!(
        "zshm cam-latency: {percent:.0}% of messages arrive through shared memory, the rest over the network: {why}"
    );
}

/// The problem the session found on the link to a publisher of `topic`, if any.
async fn publisher_link_problem(node: &Node, topic: &str) -> Option<zshm::LinkShmProblem> {
    let session = node.session();
    let graph = zshm::ros::graph::snapshot(session, node.info().domain, Duration::from_secs(2))
        .await
        .ok()?;
    graph
        .endpoints
        .iter()
        .filter(|e| e.kind == zshm::ros::liveliness::EntityKind::Publisher && e.topic == topic)
        .find_map(|publisher| session.shm_link_problem_of(&publisher.node.zid))
}

/// Observations waiting for the main loop at most.
const OBSERVATIONS_QUEUE: usize = 1024;

/// Whether the stream went silent after its first message, and since when.
#[derive(Debug, Default)]
struct Silence {
    last: Option<tokio::time::Instant>,
    reported: bool,
}

impl Silence {
    /// True while a silence can still be reported: after the first message, not yet reported.
    fn watching(&self) -> bool {
        self.last.is_some() && !self.reported
    }

    fn deadline(&self, timeout: Duration) -> tokio::time::Instant {
        self.last.unwrap_or_else(tokio::time::Instant::now) + timeout
    }

    fn report_start(&mut self, topic: &str, timeout: Duration) {
        self.reported = true;
        eprintln!(
            "zshm cam-latency: no message on {topic} for {}: the publisher stopped, or the link to it is down; \
             still waiting",
            seconds(timeout)
        );
    }

    fn heard(&mut self, topic: &str) {
        let now = tokio::time::Instant::now();
        if let (true, Some(last)) = (self.reported, self.last) {
            eprintln!(
                "zshm cam-latency: messages on {topic} again, after {} of silence",
                seconds(now - last)
            );
        }
        (self.last, self.reported) = (Some(now), false);
    }
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
/// latency is taken. With `verify`, data that does not match `cam-pub --pattern` is counted there;
/// with `delay`, the callback then sleeps (on the subscription's own thread, as a slow consumer).
async fn subscribe<T: SensorMessage>(
    node: &Node,
    topic: &str,
    qos: QosProfile,
    tx: flume::Sender<Observation>,
    verify: Option<Verify>,
    histogram: Arc<LatencyHistogram>,
    delay: Option<Duration>,
) -> anyhow::Result<Subscription<T>> {
    Ok(node
        .create_subscription::<T>(topic, qos, move |received: Sample<'_, T>| {
            let view = received.view();
            let latency_ns = wall_clock_nanos() - T::stamp(view).as_nanos();
            if StampVerdict::of(latency_ns) == StampVerdict::Valid {
                histogram.observe_ns(latency_ns);
            }
            if let Some(verify) = &verify
                && (T::layout(view) != verify.layout
                    || !T::consistent(view)
                    || zshm_ops::tools::pattern::verify(T::data(view)).is_err())
            {
                verify.corrupt.fetch_add(1, Ordering::Relaxed);
            }
            // The receiver lives until the subscription is dropped.
            let _ = tx.send(Observation {
                at: Instant::now(),
                latency_ns,
                publisher: received.publisher_gid(),
                sequence_number: received.sequence_number(),
                path: received.path(),
                bytes: received.payload().len(),
            });
            if let Some(delay) = delay {
                std::thread::sleep(delay);
            }
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

/// Messages the probe's subscription queue dropped so far (its only subscription: the session's
/// count of queue overflows).
fn queue_dropped(node: &Node) -> u64 {
    let stats = node.session().stats().snapshot();
    stats.overflow_keep_last_reliable
        + stats.overflow_keep_last_best_effort
        + stats.overflow_keep_all_reliable
        + stats.overflow_keep_all_best_effort
}

/// Messages zenoh dropped in this process so far because it could not read their shared memory.
fn shm_unreadable(node: &Node) -> u64 {
    node.session().stats().snapshot().shm_unreadable.iter().sum()
}

/// Prints a window, or with `whole_run` the final summary.
/// `whole_run`: for the summary of the whole run, the messages sent before the first one
/// received and those that came over the network before the publisher's shared memory was ready.
fn print_report(args: &Args, node: &Node, topic: &str, report: &WindowReport, whole_run: Option<(u64, u64)>) {
    let final_summary = whole_run.is_some();
    if args.json {
        let cpu = zshm_ops::tools::usage::cpu_seconds();
        let (before_first, network_before_shm) = whole_run.unwrap_or_default();
        let line = ProbeReport {
            zid: node.session().zid(),
            before_first,
            network_before_shm,
            queue_dropped: if final_summary { queue_dropped(node) } else { 0 },
            shm_unreadable: if final_summary { shm_unreadable(node) } else { 0 },
            ..ProbeReport::new(topic, report, final_summary, cpu)
        };
        match serde_json::to_string(&line) {
            Ok(line) => outln!("{line}"),
            Err(err) => tracing::error!("report not serialized: {err}"),
        }
        return;
    }
    let line = match &report.latency_ms {
        Some(latency) => latency.workshop_line(),
        None => format!("no valid stamp among {} messages", report.received),
    };
    if final_summary {
        outln!("Summary over {:.1} s: {line}", report.seconds);
    } else {
        outln!("{line}");
    }
    if args.verbose || final_summary {
        let (p50, p99, p999) =
            report
                .latency_ms
                .map(|l| (l.p50, l.p99, l.p999))
                .unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        let dropped_here = match final_summary.then(|| queue_dropped(node)) {
            Some(n) if n > 0 => {
                format!(" (of which {n} dropped by this probe's own queue: its callback fell behind)")
            }
            _ => String::new(),
        };
        let unreadable = match final_summary.then(|| shm_unreadable(node)) {
            Some(n) if n > 0 => format!(
                " (zenoh dropped {n} on arrival: their shared memory could not be read; see the warning above)"
            ),
            _ => String::new(),
        };
        outln!(
            "  n={} p50={p50:.2} ms p99={p99:.2} ms p99.9={p999:.2} ms lost={}{dropped_here}{unreadable} invalid_stamps={} shm={:.0}% lane={:.0}% size={}",
            report.received,
            report.lost,
            report.invalid_stamps,
            100.0 * report.shm_share(),
            100.0 * report.lane_share(),
            human_bytes(report.message_bytes as u64)
        );
    }
}
