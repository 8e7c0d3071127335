//! `zshm demo`: the workshop's comparison with nothing to set up. It runs a router, the camera
//! simulator and the latency probe (all as child processes of this program) three times: over
//! TCP loopback, through zenoh's shared memory (the lane off), and through the same-host lane
//! (the default between zshm nodes). It prints the probe's workshop lines as they come, and ends
//! with a comparison: latency, bytes by path, CPU time per cloud.
//!
//! With `--camera-command`, a real ROS 2 camera node replaces the simulated one (the workshop's
//! camera: an rclpy or rclcpp node on rmw_zenoh_cpp): the demo starts it in each phase, pointed
//! at the phase's router with shared memory on or off through `ZENOH_CONFIG_OVERRIDE`, and runs
//! the TCP and zenoh SHM phases only (rmw_zenoh nodes do not speak the lane).
//!
//! Each phase's router listens on an ephemeral loopback port, so a router already running on
//! 7447 is not disturbed. Exit code 0 only when every phase delivered clouds and the two
//! shared-memory phases really went through shared memory; otherwise the summary says what
//! happened, in words, with the fix. SIGINT or SIGTERM stops every child (they are stopped on
//! any error too).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use zshm::internal::text::human_bytes;
use zshm_ops::tools::latency::{ProbeReport, Summary};
use zshm_ops::tools::sim_camera::CameraSummary;

use crate::cli::{self, CloudArgs};
use crate::support::children::{ChildProc, ChildRouter, Logs, PATIENCE, spawn, start_router, stop};
use crate::support::out::outln;
use crate::support::scrape::{self, Traffic};
use crate::support::shutdown;

/// `zshm demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds to measure in each phase.
    #[arg(short, long, default_value = "10", value_parser = duration)]
    pub duration: Duration,
    /// Size of the simulated cloud.
    #[command(flatten)]
    pub cloud: CloudArgs,
    /// Clouds per second.
    #[arg(short, long, default_value = "15", value_parser = cli::rate)]
    pub rate: f64,
    /// A real camera node to measure instead of the simulated one, run with `sh -c` in each
    /// phase: any ROS 2 node on rmw_zenoh_cpp publishing sensor_msgs/PointCloud2 on
    /// /camera/points (e.g. `ros2 run my_camera node`). The demo sets its
    /// `ZENOH_CONFIG_OVERRIDE` to the phase's router and shared memory setting.
    #[arg(long, value_name = "COMMAND")]
    pub camera_command: Option<String>,
}

/// A phase lasts from 1 s to one hour.
fn duration(text: &str) -> Result<Duration, String> {
    let value = cli::seconds(text)?;
    if !(Duration::from_secs(1)..=Duration::from_secs(3600)).contains(&value) {
        return Err(format!("expected seconds from 1 to 3600, got {text}"));
    }
    Ok(value)
}

/// One phase of the comparison: how its processes are told to move the clouds.
struct Phase {
    name: &'static str,
    number: u8,
    no_shm: bool,
    /// Whether the phase measures the same-host lane (judged by its lane share).
    lane: bool,
    /// Environment of the camera and the probe (the lane is on unless told otherwise).
    env: &'static [(&'static str, &'static str)],
}

/// The phases, in order.
const PHASES: [Phase; 3] = [
    Phase {
        name: "TCP loopback",
        number: 1,
        no_shm: true,
        lane: false,
        env: &[],
    },
    Phase {
        name: "zenoh SHM",
        number: 2,
        no_shm: false,
        lane: false,
        env: &[("ZSHM_LANE", "off")],
    },
    Phase {
        name: "lane",
        number: 3,
        no_shm: false,
        lane: true,
        env: &[],
    },
];

/// What one phase measured.
struct PhaseResult {
    name: &'static str,
    metrics_url: String,
    probe: ProbeReport,
    traffic: Traffic,
    /// The camera's and the probe's CPU time per cloud (the simulated camera's only: a real
    /// camera's includes its start-up).
    cpu_ms_per_cloud: Option<f64>,
    /// The simulated camera's shared-memory status in words (with the reason and the fix when
    /// off); a real camera does not report it.
    camera_shm: Option<String>,
}

impl PhaseResult {
    fn latency(&self, pick: fn(&Summary) -> f64) -> Option<f64> {
        self.probe.latency_ms.as_ref().map(pick)
    }
}

/// Runs the phases and compares them, unless a signal stops it first: then every child is
/// stopped (the program's `finish` waits for them and removes their segments) and it exits 1.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    tokio::select! {
        result = all_phases(&args) => result,
        signal = shutdown::signal() => {
            eprintln!("zshm demo: {} received: stopping the router, the camera and the probe", signal?);
            Ok(ExitCode::FAILURE)
        }
    }
}

async fn all_phases(args: &Args) -> anyhow::Result<ExitCode> {
    args.cloud.validate()?;
    let exe = std::env::current_exe().context("cannot find this program to start the demo's processes")?;
    match &args.camera_command {
        Some(command) => outln!(
            "zshm demo: your camera (`{command}`), measured over TCP loopback, then through zenoh's shared \
             memory, {} each.",
            zshm::internal::text::seconds(args.duration)
        ),
        None => outln!(
            "zshm demo: a simulated depth camera ({}x{} points, {} per cloud, {} Hz), measured over TCP loopback, \
             through zenoh's shared memory, then through the same-host lane, {} each.",
            args.cloud.width,
            args.cloud.height,
            human_bytes(args.cloud.data_bytes()),
            args.rate,
            zshm::internal::text::seconds(args.duration)
        ),
    }
    // rmw_zenoh nodes do not speak the lane: a real camera runs the first two phases only.
    let phases = if args.camera_command.is_some() {
        &PHASES[..2]
    } else {
        &PHASES[..]
    };
    let mut results = Vec::new();
    for phase in phases {
        results.push(phase.run(&exe, args).await?);
    }
    compare(&results);
    let all = results.iter().all(|r| r.probe.received > 0);
    if !all {
        eprintln!("zshm demo: a phase received no cloud; run `zshm doctor` to see why");
    }
    let verdicts: Vec<String> = phases
        .iter()
        .zip(&results)
        .filter(|(phase, _)| !phase.no_shm)
        .filter_map(|(phase, result)| {
            if phase.lane {
                lane_verdict(phase.number, result)
            } else {
                shm_verdict(phase.number, result)
            }
        })
        .collect();
    for verdict in &verdicts {
        outln!("\n{verdict}");
    }
    Ok(if all && verdicts.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// When a shared-memory phase did not move its clouds through shared memory, says so in plain
/// words with the reason and the fix: its column compared TCP with TCP.
fn shm_verdict(number: u8, shm: &PhaseResult) -> Option<String> {
    let share = shm.probe.shm_share;
    let through_shm = (share * shm.probe.received as f64).round() as u64;
    // A publisher that creates its pool on first use (rmw_zenoh_cpp) sends its first clouds as
    // copies; the probe counts them apart.
    if shm.probe.received == 0 || through_shm + shm.probe.network_before_shm >= shm.probe.received {
        return None;
    }
    let mut text = format!(
        "Phase {number} did not use shared memory: only {:.0}% of its {} clouds came through it, the rest over \
         TCP loopback, so the \"{}\" column above measures TCP.",
        100.0 * share,
        shm.probe.received,
        shm.name
    );
    match (
        &shm.camera_shm,
        shm.camera_shm
            .as_deref()
            .and_then(|s| s.strip_prefix("off, falling back to TCP: ")),
    ) {
        (_, Some(why)) => text.push_str(&format!("\nThe camera fell back to TCP: {why}")),
        (Some(_), None) => text.push_str(
            "\nThe camera had shared memory; the probe or the router did not (see their warnings above).",
        ),
        (None, None) => {
            text.push_str("\nThe probe named the cause above (`zshm cam-latency: … over the network: …`).")
        }
    }
    text.push_str(
        "\nzshm nodes of one user still meet through the same-host lane (phase 3); rmw_zenoh nodes and \
         other users need zenoh's shared memory.",
    );
    text.push_str("\nRun `zshm doctor` for every check and its fix.");
    Some(text)
}

/// Share of a lane phase's clouds that must come through the lane: the first ones may go through
/// zenoh while the probe attaches to the camera's lane (over TCP when zenoh's SHM is off), which
/// on a loaded machine can take a good part of a short phase. A lane that does not work carries
/// none.
const LANE_SHARE_EXPECTED: f64 = 0.5;

/// When the lane phase did not move (nearly) all its clouds through the lane, says so.
fn lane_verdict(number: u8, lane: &PhaseResult) -> Option<String> {
    let share = lane.probe.lane_share;
    if lane.probe.received == 0 || share >= LANE_SHARE_EXPECTED {
        return None;
    }
    Some(format!(
        "Phase {number} did not use the same-host lane: only {:.0}% of its {} clouds came through it, so the \
         \"{}\" column above measures zenoh.\nThe camera and the probe logged why above (`lane unavailable` or \
         `received through zenoh`); run `zshm doctor` for the lane's check and its fix.",
        100.0 * share,
        lane.probe.received,
        lane.name
    ))
}

/// The processes of a running phase. Dropped early (an error, a signal), each child is
/// interrupted and then stopped by the program's `finish`.
struct Running {
    router: ChildRouter,
    metrics_url: String,
    before: Traffic,
    probe: ChildProc,
    camera: ChildProc,
    /// The camera's stdout, read all along (its rate lines would fill the pipe in about half an
    /// hour and block it); resolves to its summary.
    camera_summary: tokio::task::JoinHandle<Option<String>>,
}

impl Phase {
    async fn run(&self, exe: &Path, args: &Args) -> anyhow::Result<PhaseResult> {
        outln!(
            "\nPhase {}/{}, {}: starting a router, the camera and the probe...",
            self.number,
            if args.camera_command.is_some() {
                2
            } else {
                PHASES.len()
            },
            self.name
        );
        let mut running = self.start(exe, args).await?;
        outln!(
            "  measuring for {}:",
            zshm::internal::text::seconds(args.duration)
        );
        let probe = self.measure(&mut running.probe).await?;
        self.collect(running, probe, args.camera_command.is_some()).await
    }

    fn shm_flag(&self) -> &'static [&'static str] {
        if self.no_shm { &["--no-shm"] } else { &[] }
    }

    /// Starts the router, the probe and the camera, in that order.
    async fn start(&self, exe: &Path, args: &Args) -> anyhow::Result<Running> {
        let router = start_router(
            exe,
            &[&["--metrics", "127.0.0.1:0"], self.shm_flag()].concat(),
            Logs::Shown,
        )
        .await?;
        let locator = router.locator.clone();
        let metrics_url = router
            .metrics_url
            .clone()
            .context("the router serves no metrics")?;
        outln!("  router at {locator}, metrics at {metrics_url} (scrape it while the phase runs)");
        let before = scrape::traffic(&metrics_url).await?;

        let duration = args.duration.as_secs_f64().to_string();
        let probe_args = [
            "cam-latency",
            "-e",
            &locator,
            "--duration",
            &duration,
            "--json",
            "--timeout",
            "30",
        ];
        let probe = spawn(
            exe,
            &[&probe_args[..], self.shm_flag()].concat(),
            self.env,
            Logs::Shown,
        )?;
        let (width, height, rate) = (
            args.cloud.width.to_string(),
            args.cloud.height.to_string(),
            args.rate.to_string(),
        );
        let camera_args = [
            "cam-pub", "-e", &locator, "--json", "--wait", "30", "--width", &width, "--height", &height,
            "--rate", &rate,
        ];
        let mut camera = match &args.camera_command {
            Some(command) => {
                // rmw_zenoh reads its config overrides from this variable (`key=value;…`).
                let overrides = format!(
                    "connect/endpoints=[\"{locator}\"];transport/shared_memory/enabled={}",
                    !self.no_shm
                );
                spawn(
                    Path::new("/bin/sh"),
                    &["-c", &format!("exec {command}")],
                    &[("ZENOH_CONFIG_OVERRIDE", &overrides)],
                    Logs::Shown,
                )?
            }
            None => spawn(
                exe,
                &[&camera_args[..], self.shm_flag()].concat(),
                self.env,
                Logs::Shown,
            )?,
        };
        let camera_summary = camera.drain_json()?;
        Ok(Running {
            router,
            metrics_url,
            before,
            probe,
            camera,
            camera_summary,
        })
    }

    /// Prints the probe's windows as they come; returns its final report.
    async fn measure(&self, probe: &mut ChildProc) -> anyhow::Result<Option<ProbeReport>> {
        let mut lines = BufReader::new(probe.stdout.take().context("stdout is piped")?).lines();
        let mut whole = None;
        while let Some(line) = lines.next_line().await? {
            let Ok(report) = serde_json::from_str::<ProbeReport>(&line) else {
                continue;
            };
            if let Some(latency) = &report.latency_ms {
                outln!(
                    "  [{}]{} Mean : {:.2} ms | Std : {:.2} ms | Min : {:.2} ms | Max : {:.2} ms",
                    self.name,
                    if report.is_final { " whole phase:" } else { "" },
                    latency.mean,
                    latency.std,
                    latency.min,
                    latency.max
                );
            }
            if report.is_final {
                whole = Some(report);
            }
        }
        Ok(whole)
    }

    /// Waits for the probe, stops the camera and the router, and reads what they reported.
    async fn collect(
        &self,
        mut running: Running,
        probe: Option<ProbeReport>,
        real_camera: bool,
    ) -> anyhow::Result<PhaseResult> {
        let probe_status = tokio::time::timeout(PATIENCE, running.probe.wait())
            .await
            .context("the probe did not exit")??;
        let traffic = scrape::traffic(&running.metrics_url)
            .await?
            .since(&running.before);
        stop(&mut running.camera).await;
        let summary = tokio::time::timeout(PATIENCE, &mut running.camera_summary)
            .await
            .context("the camera's stdout did not close")??;
        let camera: Option<CameraSummary> = match summary {
            Some(line) => Some(serde_json::from_str(&line).context("the camera's summary")?),
            None if real_camera => None,
            None => anyhow::bail!("the camera printed no summary"),
        };
        stop(&mut running.router.child).await;
        if !probe_status.success() {
            anyhow::bail!(
                "the latency probe failed in the {} phase (see its message above)",
                self.name
            );
        }
        let probe = probe.context("the probe printed no summary")?;
        let clouds = probe.received.max(1) as f64;
        Ok(PhaseResult {
            name: self.name,
            metrics_url: running.metrics_url,
            cpu_ms_per_cloud: camera
                .as_ref()
                .map(|camera| 1e3 * (camera.cpu_seconds + probe.cpu_seconds) / clouds),
            camera_shm: camera.map(|camera| camera.shm_status),
            probe,
            traffic,
        })
    }
}

/// The table of the phases side by side; the ratio is the first phase over the last.
fn compare(phases: &[PhaseResult]) {
    let (Some(first), Some(last)) = (phases.first(), phases.last()) else {
        return;
    };
    let names: Vec<&str> = phases.iter().map(|p| p.name).collect();
    outln!("\nComparison ({}):", names.join(" vs "));
    let header: String = names.iter().map(|n| format!(" {n:>14}")).collect();
    outln!("  {:<22}{header} {:>8}", "", "ratio");
    type Pick = fn(&Summary) -> f64;
    let latencies: [(&str, Pick); 3] = [
        ("mean latency", |s| s.mean),
        ("p50 latency", |s| s.p50),
        ("p99 latency", |s| s.p99),
    ];
    let ms = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.2} ms"));
    for (label, pick) in latencies {
        let cells: String = phases
            .iter()
            .map(|p| format!(" {:>14}", ms(p.latency(pick))))
            .collect();
        let ratio = match (first.latency(pick), last.latency(pick)) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.1}x", a / b),
            _ => "-".into(),
        };
        outln!("  {label:<22}{cells} {ratio:>8}");
    }
    fn bytes(v: f64) -> String {
        human_bytes(v as u64)
    }
    type Cell = fn(&PhaseResult) -> String;
    let rows: [(&str, Cell); 6] = [
        ("clouds received", |p| p.probe.received.to_string()),
        ("bytes over loopback", |p| bytes(p.traffic.loopback)),
        ("payload through lane", |p| bytes(p.traffic.lane)),
        ("payload through SHM", |p| bytes(p.traffic.shm)),
        ("payload over network", |p| bytes(p.traffic.network)),
        ("CPU per cloud", |p| {
            p.cpu_ms_per_cloud
                .map_or("-".to_owned(), |cpu| format!("{cpu:.2} ms"))
        }),
    ];
    for (label, cell) in rows {
        let cells: String = phases.iter().map(|p| format!(" {:>14}", cell(p))).collect();
        outln!("  {label:<22}{cells}");
    }
    let urls: Vec<&str> = phases.iter().map(|p| p.metrics_url.as_str()).collect();
    outln!("  metrics were served at {} during the phases", urls.join(", "));
}
