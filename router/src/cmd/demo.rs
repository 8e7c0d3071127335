//! `zshm demo`: the workshop's comparison with nothing to set up. It runs a router, the camera
//! simulator and the latency probe (all as child processes of this program) three times: over
//! TCP loopback, through zenoh's shared memory (the lane off), and through the same-host lane
//! (the default between zshm nodes). It prints the probe's workshop lines as they come, and ends
//! with a comparison: latency, bytes by path, CPU time per cloud.
//!
//! Each phase's router listens on an ephemeral loopback port, so a router already running on
//! 7447 is not disturbed. Exit code 0 only when every phase delivered clouds.

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
    /// Environment of the camera and the probe (the lane is on unless told otherwise).
    env: &'static [(&'static str, &'static str)],
}

/// The phases, in order.
const PHASES: [Phase; 3] = [
    Phase {
        name: "TCP loopback",
        number: 1,
        no_shm: true,
        env: &[],
    },
    Phase {
        name: "zenoh SHM",
        number: 2,
        no_shm: false,
        env: &[("ZSHM_LANE", "off")],
    },
    Phase {
        name: "lane",
        number: 3,
        no_shm: false,
        env: &[],
    },
];

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
         through zenoh's shared memory, then through the same-host lane, {} each.",
        args.cloud.width,
        args.cloud.height,
        human_bytes(
            u64::from(args.cloud.width * args.cloud.height) * zshm::tools::sim_camera::POINT_STEP as u64
        ),
        args.rate,
        zshm::text::seconds(args.duration)
    );
    let mut results = Vec::new();
    for phase in &PHASES {
        results.push(phase.run(&exe, &args).await?);
    }
    remove_their_segments();
    compare(&results);
    let all = results.iter().all(|r| r.probe.received > 0);
    if !all {
        eprintln!("zshm demo: a phase received no cloud; run `zshm doctor` to see why");
    }
    Ok(if all { ExitCode::SUCCESS } else { ExitCode::FAILURE })
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
            "\nPhase {}/{}, {}: starting a router, the camera and the probe...",
            self.number,
            PHASES.len(),
            self.name
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
        let camera = spawn(
            exe,
            &[&camera_args[..], self.shm_flag()].concat(),
            self.env,
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

/// The table of the phases side by side; the ratio is the first phase over the last.
fn compare(phases: &[PhaseResult]) {
    let (Some(first), Some(last)) = (phases.first(), phases.last()) else {
        return;
    };
    let names: Vec<&str> = phases.iter().map(|p| p.name).collect();
    println!("\nComparison ({}):", names.join(" vs "));
    let header: String = names.iter().map(|n| format!(" {n:>14}")).collect();
    println!("  {:<22}{header} {:>8}", "", "ratio");
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
        println!("  {label:<22}{cells} {ratio:>8}");
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
        ("CPU per cloud", |p| format!("{:.2} ms", p.cpu_ms_per_cloud)),
    ];
    for (label, cell) in rows {
        let cells: String = phases.iter().map(|p| format!(" {:>14}", cell(p))).collect();
        println!("  {label:<22}{cells}");
    }
    let urls: Vec<&str> = phases.iter().map(|p| p.metrics_url.as_str()).collect();
    println!("  metrics were served at {} during the phases", urls.join(", "));
}
