//! `zshm bench --soak SECONDS`: the long run of docs/RELIABILITY.md. A router, a camera
//! publishing 7 MB clouds at 15 Hz, and two subscribers (`cam-latency`); one of them is SIGKILLed
//! and started again every `--restart-every`. Every few seconds it samples the resident memory
//! of every process and what /dev/shm holds. At the end it writes soak.md and soak.json to
//! `--out`, prints the Markdown, and exits 1 if a subscriber lost a cloud or memory kept growing
//! ([`SoakReport::judge`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use zshm_ops::tools::sim_camera::CameraSummary;
use zshm_ops::tools::soak::{ProbeLife, SoakReport, SoakSample};

use crate::support::children::{ChildProc, Logs, PATIENCE, spawn, start_router, stop};
use crate::support::out::outln;

/// The camera's rate (`cam-pub --rate`), clouds per second.
const CAMERA_RATE: f64 = 15.0;

/// How long a subscriber's run is allowed: far beyond any soak, it ends by signal.
const PROBE_DURATION: &str = "31536000";

/// What a subscriber's JSON lines said so far.
#[derive(Debug, Default)]
struct Tally {
    received: u64,
    lost: u64,
    final_line: Option<(u64, u64, u64)>,
}

/// One subscriber process, with its stdout read as it goes.
struct Probe {
    role: &'static str,
    started_at: f64,
    child: ChildProc,
    tally: Arc<Mutex<Tally>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Probe {
    fn start(exe: &Path, locator: &str, role: &'static str, started_at: f64) -> anyhow::Result<Self> {
        let args = [
            "cam-latency",
            "-e",
            locator,
            "--json",
            "--window",
            "5",
            "--duration",
            PROBE_DURATION,
            "--timeout",
            "600",
        ];
        let mut child = spawn(exe, &args, &[], Logs::Hidden)?;
        let stdout = child.stdout.take().context("stdout is piped")?;
        let tally = Arc::new(Mutex::new(Tally::default()));
        let sink = tally.clone();
        let reader = tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(report) = serde_json::from_str::<zshm_ops::tools::latency::ProbeReport>(&line) else {
                    continue;
                };
                let mut tally = sink.lock().unwrap_or_else(|p| p.into_inner());
                if report.is_final {
                    tally.final_line = Some((report.received, report.lost, report.before_first));
                } else {
                    tally.received += report.received;
                    tally.lost += report.lost;
                }
            }
        });
        Ok(Self {
            role,
            started_at,
            child,
            tally,
            reader,
        })
    }

    /// Ends the process (SIGKILL, or SIGINT for its summary) and says what it received.
    async fn end(mut self, kill: bool) -> ProbeLife {
        if kill {
            let _ = self.child.kill().await;
        } else {
            stop(&mut self.child).await;
        }
        let _ = tokio::time::timeout(PATIENCE, &mut self.reader).await;
        let tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
        // A killed process never prints its summary: its closed windows are what is known.
        let (received, lost, before_first) = tally.final_line.unwrap_or((tally.received, tally.lost, 0));
        ProbeLife {
            role: self.role.to_owned(),
            started_at: self.started_at,
            ended_by: if kill { "SIGKILL" } else { "end" }.to_owned(),
            received,
            lost,
            before_first,
        }
    }
}

fn sample(seconds: f64, pids: &[(&str, Option<u32>)]) -> SoakSample {
    let rss_bytes: BTreeMap<String, u64> = pids
        .iter()
        .filter_map(|(role, pid)| Some(((*role).to_owned(), zshm_ops::tools::usage::rss_bytes((*pid)?)?)))
        .collect();
    let dev_shm = Path::new(zshm::internal::shm::preflight::DEV_SHM);
    let shm = zshm::internal::shm::usage::dev_shm(dev_shm).unwrap_or_default();
    let (lane_files, lane_bytes) = zshm::internal::lane::clean::dev_shm_usage(dev_shm);
    SoakSample {
        seconds,
        rss_bytes,
        dev_shm_used_bytes: shm.size_bytes.saturating_sub(shm.free_bytes),
        zenoh_bytes: shm.zenoh_bytes,
        zenoh_segments: shm.zenoh_segments,
        lane_files,
        lane_bytes,
    }
}

/// Runs the soak for `duration`, killing and restarting a subscriber every `restart_every`.
pub async fn run(
    exe: &Path,
    out: &Path,
    duration: Duration,
    restart_every: Duration,
) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let since = || started.elapsed().as_secs_f64();
    let mut router = start_router(exe, &["--no-metrics"], Logs::Hidden).await?;
    let locator = router.locator.clone();
    let steady = Probe::start(exe, &locator, "steady", since())?;
    let mut restarted = Some(Probe::start(exe, &locator, "restarted", since())?);
    // The camera publishes a count and ends by itself: it then lingers until its subscribers
    // have the last clouds, where a signal would close it at once and could cut them off.
    let clouds = (duration.as_secs_f64() * CAMERA_RATE).ceil().max(1.0).to_string();
    let camera_args = [
        "cam-pub",
        "-e",
        &locator,
        "--json",
        "--rate",
        &CAMERA_RATE.to_string(),
        "--count",
        &clouds,
    ];
    let mut camera = spawn(exe, &camera_args, &[], Logs::Hidden)?;
    let camera_summary = camera.drain_json()?;

    let sample_every = (restart_every / 6).clamp(Duration::from_secs(1), Duration::from_secs(10));
    let mut ticker = tokio::time::interval(sample_every);
    let (mut samples, mut probes, mut restarts) = (Vec::new(), Vec::new(), 0);
    let mut next_restart = restart_every;
    while started.elapsed() < duration {
        ticker.tick().await;
        let pids = [
            ("router", router.child.id()),
            ("camera", camera.id()),
            ("steady", steady.child.id()),
            ("restarted", restarted.as_ref().and_then(|p| p.child.id())),
        ];
        samples.push(sample(since(), &pids));
        if started.elapsed() >= next_restart && started.elapsed() < duration {
            // Killed first, then started again: the new process's start removes the segments
            // the killed one left (zenoh cleans orphans when a process first touches SHM).
            if let Some(victim) = restarted.take() {
                probes.push(victim.end(true).await);
            }
            restarted = Some(Probe::start(exe, &locator, "restarted", since())?);
            restarts += 1;
            next_restart += restart_every;
        }
    }

    // Its last cloud is due about now; it lingers at most `cam-pub`'s 5 s for the subscribers.
    if tokio::time::timeout(PATIENCE + Duration::from_secs(5), camera.wait())
        .await
        .is_err()
    {
        stop(&mut camera).await;
    }
    let camera: CameraSummary = tokio::time::timeout(PATIENCE, camera_summary)
        .await
        .context("the camera's stdout did not close")??
        .and_then(|line| serde_json::from_str(&line).ok())
        .context("the camera printed no summary")?;
    if let Some(last) = restarted {
        probes.push(last.end(false).await);
    }
    probes.push(steady.end(false).await);
    stop(&mut router.child).await;

    let mut report = SoakReport {
        seconds: since(),
        restarts,
        published: camera.counts.published,
        publish_failures: camera.counts.failures,
        samples,
        probes,
        failures: Vec::new(),
    };
    report.judge();
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let markdown = report.markdown();
    std::fs::write(out.join("soak.md"), &markdown).context("soak.md")?;
    std::fs::write(out.join("soak.json"), serde_json::to_string_pretty(&report)?).context("soak.json")?;
    outln!("{markdown}");
    outln!("{}", serde_json::to_string(&report)?);
    Ok(if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
