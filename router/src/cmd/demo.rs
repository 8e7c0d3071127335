//! `zshm demo`: the workshop's comparison with nothing to set up. It runs a router, the camera
//! simulator and the latency probe (all as child processes of this program) first over TCP
//! loopback, then through shared memory, prints the probe's workshop lines as they come, and ends
//! with a comparison: latency, loopback vs SHM bytes, CPU time per cloud.
//!
//! Each phase's router listens on an ephemeral loopback port, so a router already running on
//! 7447 is not disturbed. Exit code 0 only when both phases delivered clouds.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use zshm::shm::human_bytes;

use super::children::{Logs, PATIENCE, interrupt, last_json_line, spawn, start_router, stop};
use super::scrape::{self, Traffic};
use crate::cli::DemoArgs;

/// What one phase measured.
struct PhaseResult {
    name: &'static str,
    metrics_url: String,
    summary: Value,
    traffic: Traffic,
    cpu_ms_per_cloud: f64,
}

impl PhaseResult {
    fn received(&self) -> u64 {
        self.summary["received"].as_u64().unwrap_or(0)
    }

    fn latency(&self, field: &str) -> Option<f64> {
        self.summary["latency_ms"][field].as_f64()
    }
}

/// Runs both phases and compares them.
pub async fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context("cannot find this program to start the demo's processes")?;
    println!(
        "zshm demo: a simulated depth camera ({}x{} points, {} per cloud, {} Hz), measured over TCP loopback, \
         then through shared memory, {} s each.",
        args.width,
        args.height,
        human_bytes((args.width * args.height) as u64 * zshm::sim_camera::POINT_STEP as u64),
        args.rate,
        args.duration
    );
    let tcp = phase(&exe, &args, "TCP loopback", true, 1).await?;
    let shm = phase(&exe, &args, "shared memory", false, 2).await?;
    compare(&tcp, &shm);
    let both = tcp.received() > 0 && shm.received() > 0;
    if !both {
        eprintln!("zshm demo: a phase received no cloud; run `zshm doctor` to see why");
    }
    Ok(if both {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn phase(
    exe: &Path,
    args: &DemoArgs,
    name: &'static str,
    no_shm: bool,
    number: u8,
) -> anyhow::Result<PhaseResult> {
    println!("\nPhase {number}/2, {name}: starting a router, the camera and the probe...");
    let shm_flag: &[&str] = if no_shm { &["--no-shm"] } else { &[] };
    let mut router = start_router(
        exe,
        &[&["--metrics", "127.0.0.1:0"], shm_flag].concat(),
        Logs::Shown,
    )
    .await?;
    let (locator, metrics_url) = (
        router.locator.clone(),
        router
            .metrics_url
            .clone()
            .context("the router serves no metrics")?,
    );
    println!("  router at {locator}, metrics at {metrics_url} (scrape it while the phase runs)");
    let before = scrape::traffic(&metrics_url).await?;

    let duration = args.duration.max(1.0).to_string();
    let geometry = [
        args.width.to_string(),
        args.height.to_string(),
        args.rate.to_string(),
    ];
    let mut probe = spawn(
        exe,
        &[
            &[
                "cam-latency",
                "-e",
                &locator,
                "--duration",
                &duration,
                "--json",
                "--timeout",
                "30",
            ],
            shm_flag,
        ]
        .concat(),
        &[],
        Logs::Shown,
    )?;
    let mut camera = spawn(
        exe,
        &[
            &[
                "cam-pub",
                "-e",
                &locator,
                "--json",
                "--wait",
                "30",
                "--width",
                &geometry[0],
                "--height",
                &geometry[1],
                "--rate",
                &geometry[2],
            ],
            shm_flag,
        ]
        .concat(),
        &[],
        Logs::Shown,
    )?;
    println!("  measuring for {duration} s:");
    let mut probe_out = BufReader::new(probe.stdout.take().context("stdout is piped")?).lines();
    let mut summary = Value::Null;
    while let Some(line) = probe_out.next_line().await? {
        let Ok(report) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let whole = report["final"] == true;
        if let Some(latency) = report["latency_ms"].as_object() {
            let get = |k: &str| latency.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
            println!(
                "  [{name}]{} Mean : {:.2} ms | Std : {:.2} ms | Min : {:.2} ms | Max : {:.2} ms",
                if whole { " whole phase:" } else { "" },
                get("mean"),
                get("std"),
                get("min"),
                get("max")
            );
        }
        if whole {
            summary = report;
        }
    }
    let probe_status = tokio::time::timeout(PATIENCE, probe.wait())
        .await
        .context("the probe did not exit")??;
    let traffic = scrape::traffic(&metrics_url).await?.since(&before);

    interrupt(&camera);
    let camera_summary: Value = serde_json::from_str(&last_json_line(&mut camera, PATIENCE).await?)?;
    stop(&mut router.child).await;
    if !probe_status.success() {
        anyhow::bail!("the latency probe failed in the {name} phase (see its message above)");
    }
    let clouds = summary["received"].as_u64().unwrap_or(0).max(1) as f64;
    let cpu = camera_summary["cpu_seconds"].as_f64().unwrap_or(0.0)
        + summary["cpu_seconds"].as_f64().unwrap_or(0.0);
    Ok(PhaseResult {
        name,
        metrics_url,
        summary,
        traffic,
        cpu_ms_per_cloud: 1e3 * cpu / clouds,
    })
}

fn compare(tcp: &PhaseResult, shm: &PhaseResult) {
    println!("\nComparison ({} vs {}):", tcp.name, shm.name);
    println!("  {:<24} {:>16} {:>16} {:>8}", "", tcp.name, shm.name, "ratio");
    for (label, field) in [
        ("mean latency", "mean"),
        ("p50 latency", "p50"),
        ("p99 latency", "p99"),
    ] {
        let (a, b) = (tcp.latency(field), shm.latency(field));
        let fmt = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.2} ms"));
        let ratio = match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.1}x", a / b),
            _ => "-".into(),
        };
        println!("  {label:<24} {:>16} {:>16} {ratio:>8}", fmt(a), fmt(b));
    }
    let bytes = |v: f64| human_bytes(v as u64);
    println!(
        "  {:<24} {:>16} {:>16}",
        "clouds received",
        tcp.received(),
        shm.received()
    );
    println!(
        "  {:<24} {:>16} {:>16}",
        "bytes over loopback",
        bytes(tcp.traffic.loopback),
        bytes(shm.traffic.loopback)
    );
    println!(
        "  {:<24} {:>16} {:>16}",
        "payload through SHM",
        bytes(tcp.traffic.shm),
        bytes(shm.traffic.shm)
    );
    println!(
        "  {:<24} {:>16} {:>16}",
        "payload over network",
        bytes(tcp.traffic.network),
        bytes(shm.traffic.network)
    );
    println!(
        "  {:<24} {:>16} {:>16}",
        "CPU per cloud",
        format!("{:.2} ms", tcp.cpu_ms_per_cloud),
        format!("{:.2} ms", shm.cpu_ms_per_cloud)
    );
    println!(
        "  metrics were served at {} and {} during the phases",
        tcp.metrics_url, shm.metrics_url
    );
}
