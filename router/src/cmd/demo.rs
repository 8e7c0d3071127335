//! `zshm demo`: the workshop's comparison with nothing to set up. It runs a router, the camera
//! simulator and the latency probe (all as child processes of this program) first over TCP
//! loopback, then through shared memory, prints the probe's workshop lines as they come, and ends
//! with a comparison: latency, loopback vs SHM bytes, CPU time per cloud.
//!
//! Each phase's router listens on an ephemeral loopback port, so a router already running on
//! 7447 is not disturbed. Exit code 0 only when both phases delivered clouds.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;
use zshm::text::human_bytes;
use zshm::tools::latency::{ProbeReport, Summary};
use zshm::tools::sim_camera::CameraSummary;

use crate::cli::{self, CloudArgs};
use crate::support::children::{
    ChildRouter, Logs, PATIENCE, interrupt, last_json_line, remove_their_segments, spawn, start_router, stop,
};
use crate::support::scrape::{self, Traffic};

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
}

impl PhaseResult {
    fn latency(&self, pick: fn(&Summary) -> f64) -> Option<f64> {
        self.probe.latency_ms.as_ref().map(pick)
    }
}

/// Runs both phases and compares them.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context("cannot find this program to start the demo's processes")?;
    println!(
        "zshm demo: a simulated depth camera ({}x{} points, {} per cloud, {} Hz), measured over TCP loopback, \
         then through shared memory, {} each.",
        args.cloud.width,
        args.cloud.height,
        human_bytes(
            u64::from(args.cloud.width * args.cloud.height) * zshm::tools::sim_camera::POINT_STEP as u64
        ),
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
    let tcp = tcp.run(&exe, &args).await?;
    let shm = shm.run(&exe, &args).await?;
    remove_their_segments();
    compare(&tcp, &shm);
    let both = tcp.probe.received > 0 && shm.probe.received > 0;
    if !both {
        eprintln!("zshm demo: a phase received no cloud; run `zshm doctor` to see why");
    }
    Ok(if both {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The processes of a running phase.
struct Running {
    router: ChildRouter,
    metrics_url: String,
    before: Traffic,
    probe: Child,
    camera: Child,
}

impl Phase {
    async fn run(&self, exe: &Path, args: &Args) -> anyhow::Result<PhaseResult> {
        println!(
            "\nPhase {}/2, {}: starting a router, the camera and the probe...",
            self.number, self.name
        );
        let mut running = self.start(exe, args).await?;
        println!("  measuring for {}:", zshm::text::seconds(args.duration));
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
        println!("  router at {locator}, metrics at {metrics_url} (scrape it while the phase runs)");
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
        let camera = spawn(
            exe,
            &[&camera_args[..], self.shm_flag()].concat(),
            &[],
            Logs::Shown,
        )?;
        Ok(Running {
            router,
            metrics_url,
            before,
            probe,
            camera,
        })
    }

    /// Prints the probe's windows as they come; returns its final report.
    async fn measure(&self, probe: &mut Child) -> anyhow::Result<Option<ProbeReport>> {
        let mut lines = BufReader::new(probe.stdout.take().context("stdout is piped")?).lines();
        let mut whole = None;
        while let Some(line) = lines.next_line().await? {
            let Ok(report) = serde_json::from_str::<ProbeReport>(&line) else {
                continue;
            };
            if let Some(latency) = &report.latency_ms {
                println!(
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
        interrupt(&running.camera);
        let camera = last_json_line(&mut running.camera, PATIENCE).await?;
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
        })
    }
}

fn compare(tcp: &PhaseResult, shm: &PhaseResult) {
    println!("\nComparison ({} vs {}):", tcp.name, shm.name);
    println!("  {:<24} {:>16} {:>16} {:>8}", "", tcp.name, shm.name, "ratio");
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
        println!("  {label:<24} {:>16} {:>16} {ratio:>8}", fmt(a), fmt(b));
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
        println!("  {label:<24} {a:>16} {b:>16}");
    }
    println!(
        "  metrics were served at {} and {} during the phases",
        tcp.metrics_url, shm.metrics_url
    );
}
