//! `zshm bench --sweeps topics` and `--sweeps subscribers`: a robot-sized workload (see
//! [`layout`]) in each mode, at each topic count or each subscriber count, in interleaved
//! rounds. For each case the bench starts the node processes (`zshm bench-node`), samples the
//! whole machine's CPU (/proc/stat) and /dev/shm while they run, reads back each node's report,
//! then stops them all.

mod iox;
pub mod layout;
mod node;
mod plot;
pub mod report;
pub mod shared;
pub mod trace;

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;

pub use self::shared::NodeArgs;

use self::layout::WARMUP_SECONDS;
pub use self::report::Axis;
use self::report::{TopicsCase, TopicsResult};
use self::shared::{GRACE, NodeReport, mono_ns};
use super::plan::Mode;
use crate::support::children::{ChildProc, Logs, interrupt, line_matching_within, spawn, stop};

/// Runs one node process (`zshm bench-node`).
pub async fn run_node(args: NodeArgs) -> anyhow::Result<ExitCode> {
    args.check()?;
    let node = async {
        match args.mode {
            Mode::Iceoryx2 => iox::node(&args).await,
            Mode::ZenohShm | Mode::ZenohTcp => node::zenoh_node(&args).await,
            _ => node::zshm_node(&args).await,
        }
    };
    // A signal stops a node wherever it is, setting up included (the bench stops a case's
    // nodes together when one of them fails).
    match crate::support::shutdown::unless_signalled(node).await {
        Some(result) => result.map(|()| ExitCode::SUCCESS),
        None => Ok(ExitCode::FAILURE),
    }
}

/// The modes of the sweep unless `--modes` says otherwise.
pub const MODES: [Mode; 5] = [
    Mode::Lane,
    Mode::ShmLoan,
    Mode::Tcp,
    Mode::ZenohShm,
    Mode::Iceoryx2,
];

/// What the topics or subscribers sweep runs.
#[derive(Debug, Clone)]
pub struct TopicsPlan {
    /// What it varies.
    pub axis: Axis,
    /// Modes, in the order each round runs them.
    pub modes: Vec<Mode>,
    /// The points of the axis: topic counts or subscriber counts.
    pub points: Vec<usize>,
    /// Rounds (at least 1).
    pub rounds: usize,
    /// Measured seconds per case.
    pub seconds: u64,
}

impl TopicsPlan {
    /// Every case in the order they run: each round runs every point in every mode, the modes
    /// of one point side by side, so a ratio between modes is taken within a round.
    pub fn cases(&self) -> Vec<TopicsCase> {
        let mut cases = Vec::new();
        for round in 0..self.rounds.max(1) {
            for &x in &self.points {
                for &mode in &self.modes {
                    cases.push(TopicsCase::new(self.axis, mode, x, round, self.seconds));
                }
            }
        }
        cases
    }
}

/// Runs one case; a case that fails is a result with its error. With `trace`, its nodes write
/// every measured message's timestamps into that directory ([`trace`]).
pub async fn run_case(
    exe: &Path,
    locator: &str,
    id: &str,
    case: &TopicsCase,
    trace: Option<&Path>,
) -> TopicsResult {
    match measure_case(exe, locator, id, case, trace).await {
        Ok(result) => result,
        Err(err) => TopicsResult::failed(case.clone(), format!("{err:#}")),
    }
}

/// How long a node may take to set up and meet the others (T = 200 declares hundreds of
/// entities per process on a loaded machine).
const SETUP: Duration = Duration::from_secs(45);

async fn measure_case(
    exe: &Path,
    locator: &str,
    id: &str,
    case: &TopicsCase,
    trace: Option<&Path>,
) -> anyhow::Result<TopicsResult> {
    let workload = case.workload();
    let (topics, subscribers, cloud_subscribers, seconds, timeout) = (
        workload.topics.to_string(),
        workload.subscribers.to_string(),
        workload.cloud_subscribers.to_string(),
        case.seconds.to_string(),
        SETUP.as_secs().to_string(),
    );
    // A pool that holds eight clouds beside the small messages.
    let pool = (40u64 << 20).to_string();
    let env = super::shared::mode_env(case.mode, &pool);
    let shm_before = dev_shm_bytes();
    let samples = Arc::new(Mutex::new(Vec::<Sample>::new()));
    let sampler = {
        let samples = samples.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(200));
            loop {
                tick.tick().await;
                let sample = Sample::now();
                samples.lock().unwrap_or_else(|p| p.into_inner()).push(sample);
            }
        })
    };
    let mut nodes: Vec<ChildProc> = Vec::new();
    let spawned = (0..workload.nodes()).try_for_each(|index| {
        let index = index.to_string();
        let mut args = vec![
            "bench-node",
            "--mode",
            case.mode.name(),
            "--case",
            id,
            "--index",
            &index,
            "--topics",
            &topics,
            "--subscribers",
            &subscribers,
            "--cloud-subscribers",
            &cloud_subscribers,
            "--seconds",
            &seconds,
            "-e",
            locator,
            "--timeout",
            &timeout,
        ];
        if let Some(dir) = trace {
            args.extend([
                "--trace-dir",
                dir.to_str().context("the trace directory is not UTF-8")?,
            ]);
        }
        nodes.push(spawn(exe, &args, &env, Logs::Hidden)?);
        Ok::<_, anyhow::Error>(())
    });
    let reports = async {
        spawned?;
        let wait =
            SETUP + Duration::from_secs(WARMUP_SECONDS + case.seconds) + GRACE + Duration::from_secs(30);
        let mut reports = Vec::new();
        for (index, node) in nodes.iter_mut().enumerate() {
            let line = match line_matching_within(node, |l| l.starts_with('{'), "report", wait).await {
                Ok(line) => line,
                Err(err) => return Err(node.explained(err).context(format!("node {index}"))),
            };
            reports.push(
                serde_json::from_str::<NodeReport>(&line)
                    .with_context(|| format!("node {index}'s report"))?,
            );
        }
        Ok::<_, anyhow::Error>(reports)
    }
    .await;
    sampler.abort();
    // Every node has its messages (or gave up): stop them together.
    for node in &nodes {
        interrupt(node);
    }
    for node in &mut nodes {
        stop(node).await;
    }
    let reports = reports?;
    if reports.iter().any(|r| r.received < r.expected) {
        eprintln!("{id}: lossy; where each node's messages went:");
        for report in &reports {
            eprintln!("  {}", report.explain());
        }
        for (index, node) in nodes.iter().enumerate() {
            let said = node.errors_tail();
            if !said.is_empty() {
                eprintln!("  node {index} logged: {said}");
            }
        }
    }
    let expected: u64 = reports.iter().map(|r| r.expected).sum();
    anyhow::ensure!(
        expected == workload.expected(case.seconds),
        "the nodes expected {expected} messages, the layout says {}",
        workload.expected(case.seconds)
    );
    let start = reports.iter().map(|r| r.window_start_ns).max().unwrap_or(0);
    let end = reports.iter().map(|r| r.window_end_ns).min().unwrap_or(0);
    let samples = samples.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let shm_peak = samples
        .iter()
        .filter(|s| s.at_ns >= start && s.at_ns <= end)
        .map(|s| s.shm_bytes)
        .max()
        .unwrap_or(shm_before);
    Ok(TopicsResult::from_reports(
        case.clone(),
        &reports,
        machine_cpu_percent(&samples, start, end),
        shm_peak.saturating_sub(shm_before) as f64 / (1 << 20) as f64,
    ))
}

/// The machine at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sample {
    at_ns: i64,
    /// Jiffies of all cores spent busy (not idle, not waiting for I/O) since boot.
    busy: u64,
    /// All jiffies of all cores since boot.
    total: u64,
    /// Bytes allocated in /dev/shm.
    shm_bytes: u64,
}

impl Sample {
    fn now() -> Self {
        let (busy, total) = std::fs::read_to_string("/proc/stat")
            .ok()
            .and_then(|stat| cpu_jiffies(&stat))
            .unwrap_or((0, 0));
        Self {
            at_ns: mono_ns(),
            busy,
            total,
            shm_bytes: dev_shm_bytes(),
        }
    }
}

/// (busy, total) jiffies from the first line of /proc/stat (`cpu user nice system idle iowait
/// irq softirq steal ...`; guest time is already inside user).
fn cpu_jiffies(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let total: u64 = fields.iter().sum();
    let idle = fields.get(3)? + fields.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// The machine's CPU between `start` and `end` (CLOCK_MONOTONIC ns), % of all cores: from the
/// last sample at or before `start` to the first at or after `end` (the window's edges, to the
/// sampling period).
fn machine_cpu_percent(samples: &[Sample], start: i64, end: i64) -> Option<f64> {
    let first = samples
        .iter()
        .rev()
        .find(|s| s.at_ns <= start)
        .or(samples.first())?;
    let last = samples.iter().find(|s| s.at_ns >= end).or(samples.last())?;
    let total = last.total.checked_sub(first.total).filter(|&t| t > 0)?;
    Some(100.0 * last.busy.saturating_sub(first.busy) as f64 / total as f64)
}

/// Bytes allocated by the files in /dev/shm (every user's: the host's shared memory in use).
fn dev_shm_bytes() -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir("/dev/shm").map_or(0, |dir| {
        dir.flatten()
            .filter_map(|entry| entry.metadata().ok())
            .map(|m| m.blocks() * 512)
            .sum()
    })
}

/// Writes the sweep's files (for the topics sweep: topics.md, topics.csv, topics.json,
/// topics_p50.svg, topics_p999.svg and topics_cpu.svg; `subscribers.*` for the subscribers
/// sweep); returns the Markdown.
pub fn write_all(dir: &Path, axis: Axis, results: &[TopicsResult], command: &str) -> anyhow::Result<String> {
    let markdown = report::write_all(dir, axis, results, command)?;
    plot::write_all(dir, axis, results)?;
    Ok(markdown)
}

/// The files [`write_all`] writes, for the summary line.
pub fn files(axis: Axis) -> String {
    let n = axis.name();
    format!("{n}.md, {n}.csv, {n}.json, {n}_p50.svg, {n}_p999.svg, {n}_cpu.svg")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_run_every_mode_of_a_topic_count_side_by_side() {
        let plan = TopicsPlan {
            axis: Axis::Topics,
            modes: vec![Mode::Lane, Mode::Iceoryx2],
            points: vec![10, 50],
            rounds: 2,
            seconds: 1,
        };
        let order: Vec<(usize, usize, Mode)> =
            plan.cases().iter().map(|c| (c.round, c.topics, c.mode)).collect();
        let (l, i) = (Mode::Lane, Mode::Iceoryx2);
        assert_eq!(
            order,
            [
                (0, 10, l),
                (0, 10, i),
                (0, 50, l),
                (0, 50, i),
                (1, 10, l),
                (1, 10, i),
                (1, 50, l),
                (1, 50, i)
            ]
        );
    }

    #[test]
    fn proc_stat_gives_busy_and_total_jiffies() {
        let stat = "cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\n";
        assert_eq!(cpu_jiffies(stat), Some((160, 980)));
        assert_eq!(cpu_jiffies("intr 1 2 3"), None);
    }

    #[test]
    fn machine_cpu_is_taken_between_the_samples_around_the_window() {
        let s = |at_ns, busy, total| Sample {
            at_ns,
            busy,
            total,
            shm_bytes: 0,
        };
        let samples = [
            s(0, 0, 0),
            s(10, 10, 100),
            s(20, 60, 200),
            s(30, 110, 300),
            s(40, 200, 310),
        ];
        // Window 12..28: from the sample at 10 to the one at 30.
        assert_eq!(machine_cpu_percent(&samples, 12, 28), Some(50.0));
        assert_eq!(machine_cpu_percent(&[], 0, 1), None);
    }
}
