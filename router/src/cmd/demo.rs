//! `zshm demo`: the workshop's comparison with nothing to set up. It runs a router, the camera
//! simulator and the latency probe (all as child processes of this program) first over TCP
//! loopback, then through shared memory, prints the probe's workshop lines as they come, and ends
//! with a comparison: latency, loopback vs SHM bytes, CPU time per cloud.
//!
//! Each phase's router listens on an ephemeral loopback port, so a router already running on
//! 7447 is not disturbed. Exit code 0 only when both phases delivered clouds and the second one
//! really went through shared memory; otherwise the summary says what happened, in words, with
//! the fix. SIGINT or SIGTERM stops every child (they are stopped on any error too).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use zshm::text::human_bytes;
use zshm::tools::latency::{ProbeReport, Summary};
use zshm::tools::sim_camera::CameraSummary;

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
}

/// What one phase measured.
struct PhaseResult {
    name: &'static str,
    metrics_url: String,
    probe: ProbeReport,
    traffic: Traffic,
    cpu_ms_per_cloud: f64,
    /// The camera's shared-memory status in words (with the reason and the fix when off).
    camera_shm: String,
}

impl PhaseResult {
    fn latency(&self, pick: fn(&Summary) -> f64) -> Option<f64> {
        self.probe.latency_ms.as_ref().map(pick)
    }
}

/// Runs both phases and compares them, unless a signal stops it first: then every child is
/// stopped (the program's `finish` waits for them and removes their segments) and it exits 1.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    tokio::select! {
        result = both_phases(&args) => result,
        signal = shutdown::signal() => {
            eprintln!("zshm demo: {} received: stopping the router, the camera and the probe", signal?);
            Ok(ExitCode::FAILURE)
        }
    }
}

async fn both_phases(args: &Args) -> anyhow::Result<ExitCode> {
    args.cloud.validate()?;
    let exe = std::env::current_exe().context("cannot find this program to start the demo's processes")?;
    outln!(
        "zshm demo: a simulated depth camera ({}x{} points, {} per cloud, {} Hz), measured over TCP loopback, \
         then through shared memory, {} each.",
        args.cloud.width,
        args.cloud.height,
        human_bytes(args.cloud.data_bytes()),
        args.rate,
        zshm::text::seconds(args.duration)
    );
    let tcp = Phase {
        name: "TCP loopback",
        number: 1,
        no_shm: true,
    };
    let shm = Phase {
        name: "shared memory",
        number: 2,
        no_shm: false,
    };
    let tcp = tcp.run(&exe, args).await?;
    let shm = shm.run(&exe, args).await?;
    compare(&tcp, &shm);
    let both = tcp.probe.received > 0 && shm.probe.received > 0;
    if !both {
        eprintln!("zshm demo: a phase received no cloud; run `zshm doctor` to see why");
    }
    let verdict = shm_verdict(&shm);
    if let Some(verdict) = &verdict {
        outln!("\n{verdict}");
    }
    Ok(if both && verdict.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// When the shared-memory phase did not move its clouds through shared memory, says so in plain
/// words with the reason and the fix: its column compared TCP with TCP.
fn shm_verdict(shm: &PhaseResult) -> Option<String> {
    let share = shm.probe.shm_share;
    if shm.probe.received == 0 || share >= 1.0 {
        return None;
    }
    let mut text = format!(
        "Phase 2 did not use shared memory: only {:.0}% of its {} clouds came through it, the rest over TCP \
         loopback, so the \"{}\" column above measures TCP.",
        100.0 * share,
        shm.probe.received,
        shm.name
    );
    match shm.camera_shm.strip_prefix("off, falling back to TCP: ") {
        Some(why) => text.push_str(&format!("\nThe camera fell back to TCP: {why}")),
        None => text.push_str(
            "\nThe camera had shared memory; the probe or the router did not (see their warnings above).",
        ),
    }
    text.push_str("\nRun `zshm doctor` for every check and its fix.");
    Some(text)
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
            "\nPhase {}/2, {}: starting a router, the camera and the probe...",
            self.number,
            self.name
        );
        let mut running = self.start(exe, args).await?;
        outln!("  measuring for {}:", zshm::text::seconds(args.duration));
        let probe = self.measure(&mut running.probe).await?;
        self.collect(running, probe).await
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
            &[],
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
        let mut camera = spawn(
            exe,
            &[&camera_args[..], self.shm_flag()].concat(),
            &[],
            Logs::Shown,
        )?;
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
    async fn collect(&self, mut running: Running, probe: Option<ProbeReport>) -> anyhow::Result<PhaseResult> {
        let probe_status = tokio::time::timeout(PATIENCE, running.probe.wait())
            .await
            .context("the probe did not exit")??;
        let traffic = scrape::traffic(&running.metrics_url)
            .await?
            .since(&running.before);
        stop(&mut running.camera).await;
        let camera = tokio::time::timeout(PATIENCE, &mut running.camera_summary)
            .await
            .context("the camera's stdout did not close")??
            .context("the camera printed no summary")?;
        let camera: CameraSummary = serde_json::from_str(&camera).context("the camera's summary")?;
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
            cpu_ms_per_cloud: 1e3 * (camera.cpu_seconds + probe.cpu_seconds) / clouds,
            probe,
            traffic,
            camera_shm: camera.shm_status,
        })
    }
}

fn compare(tcp: &PhaseResult, shm: &PhaseResult) {
    outln!("\nComparison ({} vs {}):", tcp.name, shm.name);
    outln!("  {:<24} {:>16} {:>16} {:>8}", "", tcp.name, shm.name, "ratio");
    type Pick = fn(&Summary) -> f64;
    let latencies: [(&str, Pick); 3] = [
        ("mean latency", |s| s.mean),
        ("p50 latency", |s| s.p50),
        ("p99 latency", |s| s.p99),
    ];
    for (label, pick) in latencies {
        let (a, b) = (tcp.latency(pick), shm.latency(pick));
        let fmt = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.2} ms"));
        let ratio = match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.1}x", a / b),
            _ => "-".into(),
        };
        outln!("  {label:<24} {:>16} {:>16} {ratio:>8}", fmt(a), fmt(b));
    }
    let bytes = |v: f64| human_bytes(v as u64);
    let rows = [
        (
            "clouds received",
            tcp.probe.received.to_string(),
            shm.probe.received.to_string(),
        ),
        (
            "bytes over loopback",
            bytes(tcp.traffic.loopback),
            bytes(shm.traffic.loopback),
        ),
        (
            "payload through SHM",
            bytes(tcp.traffic.shm),
            bytes(shm.traffic.shm),
        ),
        (
            "payload over network",
            bytes(tcp.traffic.network),
            bytes(shm.traffic.network),
        ),
        (
            "CPU per cloud",
            format!("{:.2} ms", tcp.cpu_ms_per_cloud),
            format!("{:.2} ms", shm.cpu_ms_per_cloud),
        ),
    ];
    for (label, a, b) in rows {
        outln!("  {label:<24} {a:>16} {b:>16}");
    }
    outln!(
        "  metrics were served at {} and {} during the phases",
        tcp.metrics_url,
        shm.metrics_url
    );
}
