//! `zshm cam-pub`: a simulated depth camera. Each cloud is written straight into its send
//! buffer (a shared-memory loan when SHM is on), stamped with the wall clock as late as
//! possible, then published. Reports its own rate, SHM share and failures.
//!
//! Its node (`sim_camera`) declares `rate`, `width`, `height` and `frame_id` as parameters, the
//! flags giving their defaults and `--ros-args -p`/`--params-file` overriding them. `rate` and
//! `frame_id` may be set while it runs (the next cloud follows them); `width` and `height` are
//! read-only, since they fix the size of every buffer.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use zshm::internal::text::human_bytes;
use zshm::msgs::builtin_interfaces::msg::Time;
use zshm::msgs::sensor_msgs::msg::{Image, PointCloud2};
use zshm::ros::parameter::{ParameterDescriptor, ParameterValue};
use zshm::ros::qos::{History, QosProfile};
use zshm::ros::{Node, Publisher};

use crate::support::delivery::{Deliveries, DeliveryWatch};
use zshm_ops::tools::sim_camera::{CameraCounts, CameraSummary, SimCamera};

use crate::cli::{self, CloudArgs, FlagError, NodeArgs};
use crate::support::out::outln;
use crate::support::ticker::{MissedTickBehavior, Ticker};
use crate::support::{session, shutdown};

/// `zshm cam-pub`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session, namespace and domain.
    #[command(flatten)]
    pub node: NodeArgs,
    /// Point-cloud topic.
    #[arg(short, long, default_value = "/camera/points")]
    pub topic: String,
    /// Also publish an RGB image on this topic (e.g. /camera/image_raw).
    #[arg(long, value_name = "TOPIC")]
    pub image: Option<String>,
    /// Cloud size.
    #[command(flatten)]
    pub cloud: CloudArgs,
    /// Clouds per second.
    #[arg(short, long, default_value = "15", value_parser = cli::rate)]
    pub rate: f64,
    /// Coordinate frame of the clouds.
    #[arg(long, default_value = "camera_depth_optical_frame")]
    pub frame_id: String,
    /// Stop after this many clouds (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
    /// Seconds to wait for a subscriber before the first cloud (0: do not wait).
    #[arg(long, default_value = "0", value_parser = cli::seconds)]
    pub wait: Duration,
    /// Seconds between two rate reports.
    #[arg(long, default_value = "3", value_parser = cli::positive_seconds)]
    pub report: Duration,
    /// Reliable KEEP_ALL instead of KEEP_LAST(10): no cloud is ever dropped, the camera waits for
    /// a congested link instead (rmw_zenoh's mapping: CongestionControl::Block).
    #[arg(long)]
    pub keep_all: bool,
    /// Fill the point data with a verifiable pattern instead of a scene (`cam-latency --verify`).
    #[arg(long)]
    pub pattern: bool,
    /// Print the final summary as JSON ([`CameraSummary`]).
    #[arg(long)]
    pub json: bool,
}

/// The longest cam-pub waits, after its last cloud, for subscribers to leave.
const LINGER: Duration = Duration::from_secs(5);

/// The camera's settings, as its parameters hold them (the flags are their defaults).
struct Settings {
    rate: f64,
    cloud: CloudArgs,
    frame_id: String,
}

/// Declares the camera's parameters; their values are the overrides where given, else the flags.
fn declare_parameters(node: &Node, args: &Args) -> anyhow::Result<Settings> {
    let size = |what: &str| {
        ParameterDescriptor::new(format!("{what} of the cloud (fixes the buffer size)"))
            .integer_range(1, 16384, 0)
            .read_only()
    };
    let rate = node.declare_parameter(
        "rate",
        args.rate,
        ParameterDescriptor::new("clouds per second").floating_point_range(0.001, cli::MAX_RATE, 0.0),
    );
    let width = node.declare_parameter("width", i64::from(args.cloud.width), size("points per row"));
    let height = node.declare_parameter("height", i64::from(args.cloud.height), size("rows"));
    let frame_id = node.declare_parameter(
        "frame_id",
        args.frame_id.as_str(),
        ParameterDescriptor::new("coordinate frame of the clouds"),
    );
    let bad = |err: zshm::ros::parameter::ParameterError| FlagError(format!("--ros-args: {err}"));
    let int = |value: ParameterValue| {
        value
            .as_integer()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(1)
    };
    let settings = Settings {
        rate: rate.map_err(bad)?.as_double().unwrap_or(args.rate),
        cloud: CloudArgs {
            width: int(width.map_err(bad)?),
            height: int(height.map_err(bad)?),
        },
        frame_id: frame_id
            .map_err(bad)?
            .as_str()
            .unwrap_or(&args.frame_id)
            .to_owned(),
    };
    settings.cloud.validate()?;
    Ok(settings)
}

/// Publishes clouds at `--rate` until `--count` or a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    args.cloud.validate()?;
    // Spun once the parameters are declared (see `open_node_on`).
    let executor = zshm::ros::Executor::single_threaded()?;
    let node = session::open_node_on(&args.node, "sim_camera", Some(executor.clone())).await?;
    let settings = declare_parameters(&node, &args)?;
    // Sets of `rate` and `frame_id` reach the loop through these; the parameters' checks (type,
    // range, read-only) have passed when the callback sees a change.
    let (rate_tx, mut rate_rx) = tokio::sync::watch::channel(settings.rate);
    let (frame_tx, mut frame_rx) = tokio::sync::watch::channel(settings.frame_id.clone());
    let _on_set = node.on_set_parameters(move |changes| {
        for change in changes {
            match (change.name.as_str(), &change.value) {
                ("rate", ParameterValue::Double(rate)) => {
                    rate_tx.send_replace(*rate);
                }
                ("frame_id", ParameterValue::String(frame)) => {
                    frame_tx.send_replace(frame.clone());
                }
                _ => {}
            }
        }
        Ok(())
    });
    let _spinning = executor.spin_in_background()?;
    let qos = if args.keep_all {
        QosProfile {
            history: History::KeepAll,
            ..QosProfile::keep_last(10)
        }
    } else {
        QosProfile::keep_last(10)
    };
    let clouds = node.create_publisher::<PointCloud2>(&args.topic, qos).await?;
    let images = match &args.image {
        Some(topic) => Some(node.create_publisher::<Image>(topic, qos).await?),
        None => None,
    };
    let found = if args.wait.is_zero() {
        Some(true)
    } else {
        shutdown::unless_signalled(clouds.wait_for_subscribers(args.wait)).await
    };
    if found == Some(false) {
        anyhow::bail!(
            "no subscriber on {} within {}",
            clouds.info().topic,
            zshm::internal::text::seconds(args.wait)
        );
    }

    let camera = SimCamera {
        width: settings.cloud.width,
        height: settings.cloud.height,
    };
    let (mut cloud_shape, mut image_shape) = (
        camera.cloud_shape(&settings.frame_id),
        camera.image_shape(&settings.frame_id),
    );
    let mut ticker = Ticker::new(settings.rate, MissedTickBehavior::Skip);
    // Where the clouds go, per window and in all: counted from zenoh's own per-transport
    // statistics, not from where the buffers live.
    let mut window_deliveries = DeliveryWatch::start(node.session()).await;
    let mut all_deliveries = DeliveryWatch::start(node.session()).await;
    let mut names = ProcessNames::default();
    // The subscribers found are in the graph now; one that takes its last cloud and exits may
    // be gone by the summary.
    names.learn_graph(&node).await;
    let mut shutdown = std::pin::pin!(shutdown::signal());
    let (mut total, mut window, mut window_start) =
        (CameraCounts::default(), CameraCounts::default(), Instant::now());

    let mut drops_said = false;
    let mut frame = 0u64;
    while found.is_some() {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = &mut shutdown => break,
            Ok(()) = rate_rx.changed() => {
                let rate = *rate_rx.borrow_and_update();
                tracing::info!("rate is now {rate} Hz");
                ticker = Ticker::new(rate, MissedTickBehavior::Skip);
                continue;
            }
            Ok(()) = frame_rx.changed() => {
                let frame_id = frame_rx.borrow_and_update().clone();
                tracing::info!("frame_id is now {frame_id}");
                (cloud_shape, image_shape) = (camera.cloud_shape(&frame_id), camera.image_shape(&frame_id));
                continue;
            }
        }
        let shm = publish_cloud(&clouds, &cloud_shape, &camera, frame, args.pattern).await;
        if let Some(images) = &images {
            let mut loan = images.loan(&image_shape, camera.image_data_len()).await;
            camera.fill_image(frame, loan.data_mut());
            loan.set_stamp(Time::now());
            if let Err(err) = images.publish_loan(loan).await {
                tracing::warn!("image not published: {err}");
            }
        }
        for counts in [&mut total, &mut window] {
            match shm {
                Ok(shm) => {
                    counts.published += 1;
                    counts.shm += u64::from(shm);
                }
                Err(_) => counts.failures += 1,
            }
        }
        if let Err(err) = shm
            && total.failures == 1
        {
            tracing::warn!("cloud not published (later failures are counted, not logged): {err}");
        }
        if window_start.elapsed() >= args.report {
            let deliveries = window_deliveries.take(node.session()).await;
            names.learn(&node, &deliveries).await;
            if deliveries.dropped() > 0 && !std::mem::replace(&mut drops_said, true) {
                warn_dropped(&deliveries, &names, clouds.info().qos.blocks_when_congested());
            }
            print_rate(
                &window,
                &deliveries,
                window_start.elapsed(),
                camera.cloud_data_len(),
            );
            (window, window_start) = (CameraCounts::default(), Instant::now());
        }
        frame += 1;
        if frame == args.count {
            break;
        }
    }
    // Stay until the subscribers have the last clouds: closing at once could cut them off (not
    // after a signal: the user wants it to stop).
    shutdown::unless_signalled(clouds.wait_for_no_subscribers(LINGER)).await;
    let deliveries = all_deliveries.take(node.session()).await;
    if deliveries.dropped() > 0 && !drops_said {
        warn_dropped(&deliveries, &names, clouds.info().qos.blocks_when_congested());
    }
    if args.json {
        let summary = CameraSummary {
            counts: total,
            stats: node.session().stats().snapshot(),
            cpu_seconds: zshm_ops::tools::usage::cpu_seconds(),
            shm_status: node.session().shm_status().to_string(),
            zenoh_dropped: deliveries
                .processes
                .iter()
                .filter(|p| p.dropped > 0)
                .map(|p| (p.zid.clone(), p.dropped))
                .collect(),
        };
        outln!("{}", serde_json::to_string(&summary)?);
    } else {
        // The cause of each link carrying copies is found a little after it opened.
        node.session()
            .settle_link_problems(std::time::Duration::from_secs(6))
            .await;
        outln!(
            "cam-pub: published {} clouds, {} failures; {}{}",
            total.published,
            total.failures,
            describe(&node, &deliveries, &names),
            describe_drops(&deliveries, &names)
        );
    }
    session::close(node.session()).await?;
    Ok(if total.failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Builds one cloud in place and publishes it; returns whether it went through SHM.
async fn publish_cloud(
    publisher: &Publisher<PointCloud2>,
    shape: &PointCloud2,
    camera: &SimCamera,
    frame: u64,
    pattern: bool,
) -> Result<bool, zshm::raw::PublishError> {
    let mut loan = publisher.loan(shape, camera.cloud_data_len()).await;
    if pattern {
        zshm_ops::tools::pattern::fill(loan.data_mut(), frame);
    } else {
        camera.fill_cloud(frame, loan.data_mut());
    }
    let shm = loan.is_shm();
    loan.set_stamp(Time::now());
    publisher.publish_loan(loan).await?;
    Ok(shm)
}

fn print_rate(counts: &CameraCounts, deliveries: &Deliveries, elapsed: Duration, cloud_bytes: usize) {
    let seconds = elapsed.as_secs_f64();
    let shm = match deliveries.shm_share() {
        Some(share) => format!("{:.0}%", 100.0 * share),
        None => "- (no subscriber)".to_owned(),
    };
    let dropped = match deliveries.dropped() {
        0 => String::new(),
        n => format!(", dropped by zenoh {n}"),
    };
    outln!(
        "cam-pub: {} clouds in {seconds:.2} s ({:.1} Hz), {} each, shared memory {shm}, failures {}{dropped}",
        counts.published,
        counts.published as f64 / seconds,
        human_bytes(cloud_bytes as u64),
        counts.failures
    );
}

/// Says once that zenoh dropped clouds, to whom, and why (later drops are counted: in each
/// report line, the summary and `zshm_dropped_payload_bytes_total{reason="congestion"}`).
fn warn_dropped(deliveries: &Deliveries, names: &ProcessNames, blocks: bool) {
    let to: Vec<String> = deliveries
        .processes
        .iter()
        .filter(|p| p.dropped > 0)
        .map(|p| format!("{} to {}", p.dropped, names.of(&p.zid)))
        .collect();
    let why = if blocks {
        ""
    } else {
        ": a KEEP_LAST publisher drops when a subscriber's queue is full rather than wait, as \
         rmw_zenoh's do; publish with --keep-all to wait instead"
    };
    tracing::warn!(
        "zenoh dropped clouds because the queue to their subscriber stayed full ({}){why} (counted; later drops \
         are not logged)",
        to.join(", ")
    );
}

/// The ROS nodes of the processes that got copies, learnt while they run (a subscriber that took
/// its last cloud may be gone from the graph when the summary is printed).
#[derive(Debug, Default)]
struct ProcessNames(std::collections::BTreeMap<String, Vec<String>>);

impl ProcessNames {
    /// Learns the nodes of every process in the graph now.
    async fn learn_graph(&mut self, node: &Node) {
        // Until two answers agree: right after the session opened, one can come back empty.
        let timeout = Duration::from_secs(2);
        let graph = match zshm::ros::graph::snapshot(node.session(), node.info().domain, timeout).await {
            Ok(graph) => graph,
            Err(err) => {
                tracing::debug!("graph not read: {err}");
                return;
            }
        };
        tracing::debug!(nodes = graph.nodes.len(), "graph read for the subscribers' names");
        for seen in &graph.nodes {
            self.0
                .entry(seen.zid.clone())
                .or_default()
                .push(seen.fully_qualified_name());
        }
        for names in self.0.values_mut() {
            names.sort();
            names.dedup();
        }
    }

    /// Learns the nodes of the processes that got copies, unless already known.
    async fn learn(&mut self, node: &Node, deliveries: &Deliveries) {
        if deliveries.copied().all(|p| self.0.contains_key(&p.zid)) {
            return;
        }
        self.learn_graph(node).await;
    }

    fn of(&self, zid: &str) -> String {
        match self.0.get(zid).map(Vec::as_slice) {
            Some([]) | None => zid.to_owned(),
            Some(names) => format!("{} ({zid})", names.join(", ")),
        }
    }
}

/// Where the messages went, in words: the share through shared memory, and each process that got
/// copies over the network, by name when the graph knew it, with the cause the session found.
fn describe(node: &Node, deliveries: &Deliveries, names: &ProcessNames) -> String {
    let Some(share) = deliveries.shm_share() else {
        return "no subscriber received any".to_owned();
    };
    let mut text = format!(
        "delivered through shared memory {:.0}% ({} messages through zenoh's, {} through the lane)",
        100.0 * share,
        deliveries.processes.iter().map(|p| p.shm).sum::<u64>(),
        deliveries.lane
    );
    let copied: Vec<_> = deliveries.copied().collect();
    if copied.is_empty() {
        return text;
    }
    for process in copied {
        let who = names.of(&process.zid);
        let why = match node.session().shm_link_problem_of(&process.zid) {
            Some(problem) => format!(": {problem}; fix: {}", problem.remedy()),
            None => String::new(),
        };
        text.push_str(&format!(
            "; {} of {} to {who} went over the network{why}",
            process.network,
            process.network + process.shm
        ));
    }
    text
}

/// The clouds zenoh dropped, per process, in words (empty when none).
fn describe_drops(deliveries: &Deliveries, names: &ProcessNames) -> String {
    deliveries
        .processes
        .iter()
        .filter(|p| p.dropped > 0)
        .map(|p| {
            format!(
                "; zenoh dropped {} of {} to {} (its queue stayed full)",
                p.dropped,
                p.dropped + p.shm + p.network,
                names.of(&p.zid)
            )
        })
        .collect()
}
