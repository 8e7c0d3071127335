//! What the topics and subscribers sweeps measured ([`TopicsResult`]), their files
//! (`topics.md`, `.csv`, `.json`, and the same for `subscribers`) and their targets: zshm's lane
//! against iceoryx2 (delivery, p99.9, CPU), a lane node's own threads and memory, zshm through
//! zenoh's SHM against plain zenoh, and the threads of a zshm node against its subscriptions.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use zshm_ops::tools::latency::Summary;

use super::super::plan::Mode;
use super::super::spread::Spread;
use super::layout::{CLOUD_SUBSCRIBERS, SUBSCRIBERS_PER_TOPIC, Workload};
use super::shared::NodeReport;

/// What a sweep over the robot-sized workload varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// The number of small topics, T ([`Workload::topics_sweep`]).
    #[default]
    Topics,
    /// The subscribers of each topic, S ([`Workload::subscribers_sweep`]).
    Subscribers,
}

impl Axis {
    /// The sweep's name, and the stem of its files.
    pub fn name(self) -> &'static str {
        match self {
            Axis::Topics => "topics",
            Axis::Subscribers => "subscribers",
        }
    }

    /// The letter the tables use.
    pub fn symbol(self) -> &'static str {
        match self {
            Axis::Topics => "T",
            Axis::Subscribers => "S",
        }
    }

    /// The workload at point `x` of this axis.
    pub fn workload(self, x: usize) -> Workload {
        match self {
            Axis::Topics => Workload::topics_sweep(x),
            Axis::Subscribers => Workload::subscribers_sweep(x),
        }
    }

    /// What the nodes run, for the report's header.
    fn describe(self) -> &'static str {
        match self {
            Axis::Topics => {
                "10 node processes; T small topics at 100 Hz (64 B–4 KiB), 2 subscribers each, plus a 2 MiB cloud at 10 Hz with 4 subscribers"
            }
            Axis::Subscribers => {
                "max(10, S + 1) node processes; 10 small topics at 100 Hz (64 B–4 KiB) and a 2 MiB cloud at 10 Hz, each read by S subscriber processes"
            }
        }
    }
}

fn two() -> usize {
    SUBSCRIBERS_PER_TOPIC
}

fn four() -> usize {
    CLOUD_SUBSCRIBERS
}

/// One case of the topics or subscribers sweep.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TopicsCase {
    /// What the sweep varies.
    #[serde(default)]
    pub axis: Axis,
    /// The path.
    pub mode: Mode,
    /// Small topics (the cloud comes on top).
    pub topics: usize,
    /// Subscribers of each small topic.
    #[serde(default = "two")]
    pub subscribers: usize,
    /// Subscribers of the cloud.
    #[serde(default = "four")]
    pub cloud_subscribers: usize,
    /// The round, from 0.
    pub round: usize,
    /// Measured seconds.
    pub seconds: u64,
}

impl TopicsCase {
    /// The case at point `x` of `axis`.
    pub fn new(axis: Axis, mode: Mode, x: usize, round: usize, seconds: u64) -> Self {
        let workload = axis.workload(x);
        Self {
            axis,
            mode,
            topics: workload.topics,
            subscribers: workload.subscribers,
            cloud_subscribers: workload.cloud_subscribers,
            round,
            seconds,
        }
    }

    /// What its nodes run.
    pub fn workload(&self) -> Workload {
        Workload {
            topics: self.topics,
            subscribers: self.subscribers,
            cloud_subscribers: self.cloud_subscribers,
        }
    }

    /// Its point on the sweep's axis.
    pub fn x(&self) -> usize {
        match self.axis {
            Axis::Topics => self.topics,
            Axis::Subscribers => self.subscribers,
        }
    }

    /// The name of its directory under `--trace`'s: `round1-S1-lane` for round 1 of S = 1.
    pub fn trace_name(&self) -> String {
        format!(
            "round{}-{}{}-{}",
            self.round + 1,
            self.axis.symbol(),
            self.x(),
            self.mode.name()
        )
    }
}

/// What one case of the topics sweep measured, over all its nodes.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TopicsResult {
    /// The case.
    pub case: TopicsCase,
    /// Measured messages delivered, over all subscriptions.
    pub delivered: u64,
    /// Measured messages that should have been.
    pub expected: u64,
    /// End-to-end latency in µs, over all deliveries.
    pub latency_us: Option<Summary>,
    /// CPU of the whole machine over the measured window, % of all cores (/proc/stat).
    pub machine_cpu_percent: Option<f64>,
    /// Threads of each node process at the end of its window.
    pub threads: Vec<u64>,
    /// Resident memory of each node process then, MiB.
    pub rss_mib: Vec<f64>,
    /// Its proportional share (PSS) then, MiB: what the node adds to the machine, its shares of
    /// the program's code and of the segments it maps divided among the processes sharing them.
    #[serde(default)]
    pub pss_mib: Vec<f64>,
    /// CPU of the node processes over their windows, seconds per second, summed.
    pub nodes_cpu_cores: f64,
    /// The node processes' voluntary context switches over their windows, summed: each a
    /// thread going to sleep, so about one per wake-up.
    #[serde(default)]
    pub voluntary_switches: u64,
    /// Their involuntary ones: a thread taken off its CPU while it could run.
    #[serde(default)]
    pub involuntary_switches: u64,
    /// Growth of /dev/shm in use during the window over before the case, MiB (whole host).
    pub dev_shm_mib: f64,
    /// Why the case failed, if it did.
    pub error: Option<String>,
}

impl TopicsResult {
    /// A case that did not run to the end, with why.
    pub fn failed(case: TopicsCase, error: String) -> Self {
        Self {
            case,
            delivered: 0,
            expected: 0,
            latency_us: None,
            machine_cpu_percent: None,
            threads: Vec::new(),
            rss_mib: Vec::new(),
            pss_mib: Vec::new(),
            nodes_cpu_cores: 0.0,
            voluntary_switches: 0,
            involuntary_switches: 0,
            dev_shm_mib: 0.0,
            error: Some(error),
        }
    }

    /// Pools the nodes' reports, with what the bench measured of the machine.
    pub fn from_reports(
        case: TopicsCase,
        nodes: &[NodeReport],
        machine_cpu_percent: Option<f64>,
        dev_shm_mib: f64,
    ) -> Self {
        let latencies: Vec<f64> = nodes
            .iter()
            .flat_map(|n| n.latencies_ns.iter().map(|ns| *ns as f64 / 1e3))
            .collect();
        let seconds = case.seconds.max(1) as f64;
        Self {
            delivered: nodes.iter().map(|n| n.received).sum(),
            expected: nodes.iter().map(|n| n.expected).sum(),
            latency_us: Summary::of(&latencies),
            machine_cpu_percent,
            threads: nodes.iter().map(|n| n.threads).collect(),
            rss_mib: nodes
                .iter()
                .map(|n| n.rss_bytes as f64 / (1 << 20) as f64)
                .collect(),
            pss_mib: nodes
                .iter()
                .map(|n| n.pss_bytes as f64 / (1 << 20) as f64)
                .collect(),
            nodes_cpu_cores: nodes
                .iter()
                .map(|n| {
                    n.cpu_seconds
                        / if n.active_seconds > 0.0 {
                            n.active_seconds
                        } else {
                            seconds
                        }
                })
                .sum(),
            voluntary_switches: nodes.iter().map(|n| n.voluntary_switches).sum(),
            involuntary_switches: nodes.iter().map(|n| n.involuntary_switches).sum(),
            dev_shm_mib,
            error: None,
            case,
        }
    }

    /// Every measured message arrived.
    pub fn lossless(&self) -> bool {
        self.error.is_none() && self.expected > 0 && self.delivered == self.expected
    }

    /// The nodes' context switches per delivered message: (voluntary, involuntary).
    pub fn switches_per_message(&self) -> Option<(f64, f64)> {
        (self.delivered > 0).then(|| {
            let per = |n: u64| n as f64 / self.delivered as f64;
            (per(self.voluntary_switches), per(self.involuntary_switches))
        })
    }

    fn p999(&self) -> Option<f64> {
        self.latency_us.map(|l| l.p999)
    }
}

/// Writes `<axis>.json`, `<axis>.csv` and `<axis>.md`; returns the Markdown.
pub fn write_all(dir: &Path, axis: Axis, results: &[TopicsResult], command: &str) -> anyhow::Result<String> {
    let file = |ext: &str| dir.join(format!("{}.{ext}", axis.name()));
    std::fs::write(file("json"), serde_json::to_string_pretty(results)?)
        .with_context(|| format!("{}.json", axis.name()))?;
    std::fs::write(file("csv"), csv(results)).with_context(|| format!("{}.csv", axis.name()))?;
    let markdown = markdown(axis, results, command);
    std::fs::write(file("md"), &markdown).with_context(|| format!("{}.md", axis.name()))?;
    Ok(markdown)
}

const CSV_HEADER: &str = "round,topics,subscribers,cloud_subscribers,mode,seconds,delivered,expected,p50_us,p99_us,p999_us,max_us,machine_cpu_percent,nodes_cpu_cores,voluntary_switches,involuntary_switches,threads_min,threads_max,rss_mib_max,pss_mib_max,dev_shm_mib,error";

fn min_max<T: Copy + PartialOrd>(values: &[T]) -> Option<(T, T)> {
    let first = *values.first()?;
    Some(values.iter().fold((first, first), |(lo, hi), &v| {
        (if v < lo { v } else { lo }, if v > hi { v } else { hi })
    }))
}

fn csv(results: &[TopicsResult]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in results {
        let stat = |f: fn(&Summary) -> f64| {
            r.latency_us
                .as_ref()
                .map_or(String::new(), |l| format!("{:.1}", f(l)))
        };
        let threads = min_max(&r.threads);
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{:.2},{},{},{},{},{},{},{:.1},{}",
            r.case.round,
            r.case.topics,
            r.case.subscribers,
            r.case.cloud_subscribers,
            r.case.mode,
            r.case.seconds,
            r.delivered,
            r.expected,
            stat(|l| l.p50),
            stat(|l| l.p99),
            stat(|l| l.p999),
            stat(|l| l.max),
            r.machine_cpu_percent.map_or(String::new(), |c| format!("{c:.1}")),
            r.nodes_cpu_cores,
            r.voluntary_switches,
            r.involuntary_switches,
            threads.map_or(String::new(), |t| t.0.to_string()),
            threads.map_or(String::new(), |t| t.1.to_string()),
            min_max(&r.rss_mib).map_or(String::new(), |m| format!("{:.1}", m.1)),
            min_max(&r.pss_mib).map_or(String::new(), |m| format!("{:.1}", m.1)),
            r.dev_shm_mib,
            r.error.as_deref().unwrap_or("").replace([',', '\n'], " ")
        );
    }
    out
}

fn us(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| {
        if v >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    })
}

fn markdown(axis: Axis, results: &[TopicsResult], command: &str) -> String {
    let (name, sym) = (axis.name(), axis.symbol());
    let mut out = format!("# zshm bench: {name} sweep\n\n");
    let _ = writeln!(
        out,
        "Command: `{command}`. {}. {}. Latency end to end (µs); CPU of the whole machine over the measured window (100% = every core busy); the node processes' own CPU (cores): each node's CPU over its measured window (not the warm-up; from its measured publishing's start to its last message in or out), summed over the nodes; and their threads' context switches per delivered message (voluntary: a thread going to sleep, about one per wake-up; involuntary: a thread taken off a CPU while it could run); threads, RSS and PSS (RSS with shared pages divided among the processes sharing them) per node process; /dev/shm growth over the case.\n",
        axis.describe(),
        super::super::processes_note(),
    );
    let _ = writeln!(
        out,
        "| round | {sym} | mode | delivered / expected | p50 | p99 | p99.9 | machine CPU | node CPU (cores) | switches per message (vol. / invol.) | threads per node | RSS (PSS) per node MiB (max) | /dev/shm MiB |"
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in results {
        let l = r.latency_us;
        let threads = min_max(&r.threads).map_or("-".into(), |(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}–{hi}")
            }
        });
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} / {}{} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {:.1} |{}",
            r.case.round + 1,
            r.case.x(),
            r.case.mode,
            r.delivered,
            r.expected,
            if r.lossless() { "" } else { " (lossy)" },
            us(l.map(|l| l.p50)),
            us(l.map(|l| l.p99)),
            us(l.map(|l| l.p999)),
            r.machine_cpu_percent.map_or("-".into(), |c| format!("{c:.0}%")),
            r.nodes_cpu_cores,
            r.switches_per_message()
                .map_or("-".into(), |(v, i)| format!("{v:.2} / {i:.2}")),
            threads,
            match (min_max(&r.rss_mib), min_max(&r.pss_mib)) {
                (Some(rss), Some(pss)) if pss.1 > 0.0 => format!("{:.0} ({:.0})", rss.1, pss.1),
                (Some(rss), None) => format!("{:.0}", rss.1),
                _ => "-".into(),
            },
            r.dev_shm_mib,
            r.error
                .as_deref()
                .map(|e| format!(" error: {e}"))
                .unwrap_or_default()
        );
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "## Largest {sym} held without loss (in every round)\n\n| mode | largest {sym} |\n|---|---|"
    );
    for mode in modes(results) {
        let _ = writeln!(
            out,
            "| {mode} | {} |",
            largest_lossless(results, mode).map_or("none".into(), |t| t.to_string())
        );
    }
    out.push('\n');
    out.push_str(&targets(axis, results));
    out
}

fn modes(results: &[TopicsResult]) -> Vec<Mode> {
    let mut modes: Vec<Mode> = results.iter().map(|r| r.case.mode).collect();
    modes.sort();
    modes.dedup();
    modes
}

/// The points of the axis measured, in order.
fn points(results: &[TopicsResult]) -> Vec<usize> {
    let mut points: Vec<usize> = results.iter().map(|r| r.case.x()).collect();
    points.sort_unstable();
    points.dedup();
    points
}

/// Whether `mode` delivered everything at point `x` in every round it ran.
fn holds(results: &[TopicsResult], mode: Mode, x: usize) -> bool {
    let mut runs = results
        .iter()
        .filter(|r| r.case.mode == mode && r.case.x() == x)
        .peekable();
    runs.peek().is_some() && runs.all(TopicsResult::lossless)
}

/// The largest point of the axis that `mode` held without loss in every round.
pub fn largest_lossless(results: &[TopicsResult], mode: Mode) -> Option<usize> {
    points(results)
        .into_iter()
        .filter(|&x| holds(results, mode, x))
        .max()
}

/// `of(ours) / of(theirs)` at point `x`, per round, summarised.
fn ratio(
    results: &[TopicsResult],
    ours: Mode,
    theirs: Mode,
    x: usize,
    of: fn(&TopicsResult) -> Option<f64>,
) -> Option<Spread> {
    let at = |mode, round| {
        results
            .iter()
            .find(|r| r.case.mode == mode && r.case.x() == x && r.case.round == round && r.error.is_none())
            .and_then(of)
    };
    let mut rounds: Vec<usize> = results.iter().map(|r| r.case.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    Spread::of(
        rounds
            .into_iter()
            .filter_map(|round| Some(at(ours, round)? / at(theirs, round)?)),
    )
}

/// Issue 30's targets for a node on the lane, against iceoryx2 in the same run.
pub const P999_RATIO: f64 = 1.0;
/// See [`P999_RATIO`].
pub const CPU_RATIO: f64 = 1.2;
/// Threads a lane node may have, whatever its topics.
pub const MAX_THREADS: u64 = 8;
/// Resident memory a lane node may have, MiB.
pub const MAX_RSS_MIB: f64 = 32.0;

fn targets(axis: Axis, results: &[TopicsResult]) -> String {
    let (name, sym) = (axis.name(), axis.symbol());
    let mut out = format!(
        "## Targets ({name} sweep)\n\nRatios per round, judged on their median over rounds (range, rounds).\n\n| target | measured | verdict |\n|---|---|---|\n"
    );
    let mut row = |target: String, measured: String, ok: Option<bool>| {
        let verdict = match ok {
            Some(true) => "met",
            Some(false) => "missed",
            None => "not measured in this run",
        };
        let _ = writeln!(out, "| {target} | {measured} | {verdict} |");
    };
    let present = modes(results);
    let has = |mode| present.contains(&mode);
    // Both lane modes are judged: `lane` (the executor's queue) and, when asked for,
    // `lane-inline` (the callback on the reading thread, as the iceoryx2 floor runs its own).
    let lanes: Vec<Mode> = [Mode::Lane, Mode::LaneInline]
        .into_iter()
        .filter(|&m| has(m))
        .collect();
    if lanes.is_empty() || !has(Mode::Iceoryx2) {
        row("lane against iceoryx2".into(), "-".into(), None);
    }
    for &lane in lanes.iter().filter(|_| has(Mode::Iceoryx2)) {
        let held: Vec<usize> = points(results)
            .into_iter()
            .filter(|&x| holds(results, Mode::Iceoryx2, x))
            .collect();
        let lane_misses: Vec<usize> = held
            .iter()
            .copied()
            .filter(|&x| !holds(results, lane, x))
            .collect();
        row(
            format!("{lane} holds without loss every {sym} that iceoryx2 holds"),
            format!(
                "iceoryx2 holds {held:?}; {lane} misses {}",
                if lane_misses.is_empty() {
                    "none".into()
                } else {
                    format!("{lane_misses:?}")
                }
            ),
            Some(lane_misses.is_empty()),
        );
        for x in held {
            let p999 = ratio(results, lane, Mode::Iceoryx2, x, TopicsResult::p999);
            row(
                format!("{sym} = {x}: {lane} p99.9 ≤ {P999_RATIO:.1} × iceoryx2 p99.9"),
                p999.map_or("-".into(), |s| s.to_string()),
                p999.map(|s| s.median <= P999_RATIO),
            );
            // Other load on a shared machine fills the machine's CPU in both modes; the nodes'
            // own CPU time is what the modes spend.
            let own = ratio(results, lane, Mode::Iceoryx2, x, |r| Some(r.nodes_cpu_cores));
            row(
                format!("{sym} = {x}: the nodes' own CPU with {lane} ≤ {CPU_RATIO:.1} × with iceoryx2"),
                own.map_or("-".into(), |s| s.to_string()),
                own.map(|s| s.median <= CPU_RATIO),
            );
        }
    }
    for &lane in &lanes {
        let lane_results = || results.iter().filter(move |r| r.case.mode == lane);
        let threads = lane_results().flat_map(|r| r.threads.iter().copied()).max();
        row(
            format!("{lane}: threads per node ≤ {MAX_THREADS} at every {sym}"),
            threads.map_or("-".into(), |t| format!("{t} (max over nodes and cases)")),
            threads.map(|t| t <= MAX_THREADS),
        );
        let largest = |values: fn(&TopicsResult) -> &Vec<f64>| {
            lane_results()
                .flat_map(|r| values(r).iter().copied())
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        };
        // Reports written before nodes measured PSS have none (0).
        let (rss, pss) = (
            largest(|r| &r.rss_mib),
            largest(|r| &r.pss_mib).filter(|p| *p > 0.0),
        );
        row(
            format!("{lane}: RSS per node ≤ {MAX_RSS_MIB:.0} MiB at every {sym}"),
            rss.map_or("-".into(), |r| {
                let pss = pss.map_or(String::new(), |p| format!("; PSS {p:.0} MiB"));
                format!("{r:.0} MiB (max over nodes and cases{pss})")
            }),
            rss.map(|r| r <= MAX_RSS_MIB),
        );
    }
    if has(Mode::ShmLoan) && has(Mode::ZenohShm) {
        let (ours, theirs) = (
            largest_lossless(results, Mode::ShmLoan),
            largest_lossless(results, Mode::ZenohShm),
        );
        let show = |x: Option<usize>| x.map_or("none".into(), |x| x.to_string());
        row(
            format!("shm-loan holds at least the largest {sym} zenoh-shm holds"),
            format!("shm-loan {}, zenoh-shm {}", show(ours), show(theirs)),
            Some(ours.unwrap_or(0) >= theirs.unwrap_or(0)),
        );
    } else {
        row("shm-loan against zenoh-shm".into(), "-".into(), None);
    }
    // One executor per node: its threads must not follow its subscriptions. zenoh's and
    // tokio's pools vary by a few threads from run to run, so the verdict is "no more at the
    // largest point measured than at the smallest".
    for mode in present
        .iter()
        .copied()
        .filter(|m| !matches!(m, Mode::ZenohShm | Mode::ZenohTcp | Mode::Iceoryx2))
    {
        let at = |x: usize| {
            let runs = || results.iter().filter(|r| r.case.mode == mode && r.case.x() == x);
            let threads = runs().flat_map(|r| r.threads.iter().copied()).max()?;
            let reads = runs().next().map(|r| most_reads(&r.case.workload()))?;
            Some((x, threads, reads))
        };
        let measured: Vec<(usize, u64, usize)> = points(results).into_iter().filter_map(at).collect();
        let (Some(&(low, a, low_reads)), Some(&(high, b, high_reads))) = (measured.first(), measured.last())
        else {
            continue;
        };
        row(
            format!(
                "{mode}: threads per node no more at {sym} = {high} than at {sym} = {low} (up to {high_reads} and {low_reads} subscriptions per node)"
            ),
            format!("{b} and {a} threads (max over nodes)"),
            (low != high).then_some(b <= a),
        );
    }
    out
}

/// The most subscriptions one node of `workload` has.
fn most_reads(workload: &Workload) -> usize {
    let layout = workload.layout();
    (0..workload.nodes())
        .map(|node| layout.iter().filter(|t| t.subscribers.contains(&node)).count())
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(
        mode: Mode,
        topics: usize,
        round: usize,
        delivered: u64,
        p999_us: i64,
        cpu: f64,
    ) -> TopicsResult {
        let case = TopicsCase::new(Axis::Topics, mode, topics, round, 1);
        let node = NodeReport {
            received: delivered,
            expected: 100,
            latencies_ns: vec![p999_us * 1000],
            threads: 8,
            rss_bytes: 40 << 20,
            cpu_seconds: cpu,
            ..NodeReport::default()
        };
        TopicsResult::from_reports(case, &[node], Some(cpu), 1.0)
    }

    #[test]
    fn each_node_s_cpu_is_over_its_own_window_and_the_nodes_cores_are_their_sum() {
        let case = TopicsCase::new(Axis::Topics, Mode::Lane, 10, 0, 10);
        let node = |cpu_seconds, active_seconds| NodeReport {
            cpu_seconds,
            active_seconds,
            ..NodeReport::default()
        };
        // One node on time, one whose messages came 2.5 s late, one from an older report.
        let result = TopicsResult::from_reports(
            case,
            &[node(2.0, 10.0), node(2.5, 12.5), node(1.0, 0.0)],
            None,
            0.0,
        );
        assert!(
            (result.nodes_cpu_cores - 0.5).abs() < 1e-9,
            "0.2 + 0.2 + 0.1 cores: {}",
            result.nodes_cpu_cores
        );
    }

    #[test]
    fn context_switches_are_summed_over_the_nodes_and_counted_per_delivered_message() {
        let case = TopicsCase::new(Axis::Topics, Mode::Lane, 10, 0, 1);
        let node = |received, voluntary, involuntary| NodeReport {
            received,
            expected: 100,
            voluntary_switches: voluntary,
            involuntary_switches: involuntary,
            ..NodeReport::default()
        };
        let result = TopicsResult::from_reports(case.clone(), &[node(60, 30, 3), node(40, 20, 7)], None, 0.0);
        assert_eq!((result.voluntary_switches, result.involuntary_switches), (50, 10));
        assert_eq!(result.switches_per_message(), Some((0.5, 0.1)));
        assert!(
            markdown(Axis::Topics, &[result], "zshm bench").contains("| 0.50 / 0.10 |"),
            "the table shows them per message"
        );
        let none = TopicsResult::from_reports(case, &[node(0, 30, 3)], None, 0.0);
        assert_eq!(none.switches_per_message(), None, "nothing delivered: no ratio");
    }

    #[test]
    fn the_largest_lossless_t_needs_every_round_and_targets_use_the_median() {
        let mut results = Vec::new();
        for round in 0..3 {
            results.push(result(Mode::Iceoryx2, 10, round, 100, 100, 20.0));
            results.push(result(Mode::Lane, 10, round, 100, [90, 400, 80][round], 22.0));
            results.push(result(Mode::Iceoryx2, 50, round, 100, 100, 40.0));
            // One lossy round is enough to not hold T = 50.
            results.push(result(
                Mode::Lane,
                50,
                round,
                if round == 1 { 99 } else { 100 },
                100,
                40.0,
            ));
        }
        assert_eq!(largest_lossless(&results, Mode::Iceoryx2), Some(50));
        assert_eq!(largest_lossless(&results, Mode::Lane), Some(10));
        let text = targets(Axis::Topics, &results);
        assert!(text.contains("lane misses [50] | missed |"), "{text}");
        assert!(
            text.contains("T = 10: lane p99.9 ≤ 1.0 × iceoryx2 p99.9 | 0.90× (0.80–4.00, 3 rounds) | met |"),
            "{text}"
        );
        assert!(
            text.contains("T = 10: the nodes' own CPU with lane ≤ 1.2 × with iceoryx2 | 1.10× (1.10–1.10, 3 rounds) | met |"),
            "{text}"
        );
        assert!(
            text.contains("threads per node ≤ 8 at every T | 8 (max over nodes and cases) | met |"),
            "{text}"
        );
        assert!(
            text.contains("RSS per node ≤ 32 MiB at every T | 40 MiB (max over nodes and cases) | missed |"),
            "{text}"
        );
        for r in &mut results {
            r.pss_mib = vec![17.0];
        }
        let text = targets(Axis::Topics, &results);
        assert!(
            text.contains("| 40 MiB (max over nodes and cases; PSS 17 MiB) | missed |"),
            "{text}"
        );
        assert!(
            text.contains("8 and 8 threads (max over nodes) | met |"),
            "{text}"
        );
    }

    #[test]
    fn the_subscribers_sweep_is_judged_against_s() {
        let case = |mode, s| TopicsCase::new(Axis::Subscribers, mode, s, 0, 1);
        let node = |delivered| NodeReport {
            received: delivered,
            expected: 10,
            latencies_ns: vec![50_000],
            threads: 6,
            cpu_seconds: 1.0,
            ..NodeReport::default()
        };
        let results: Vec<TopicsResult> = [
            (Mode::Iceoryx2, 1, 10),
            (Mode::Lane, 1, 10),
            (Mode::Iceoryx2, 32, 10),
            (Mode::Lane, 32, 9),
        ]
        .into_iter()
        .map(|(mode, s, delivered)| TopicsResult::from_reports(case(mode, s), &[node(delivered)], None, 0.0))
        .collect();
        assert_eq!(results[2].case.workload().nodes(), 33);
        let text = markdown(Axis::Subscribers, &results, "zshm bench --sweeps subscribers");
        assert!(text.starts_with("# zshm bench: subscribers sweep"), "{text}");
        assert!(text.contains("| 1 | 32 | lane | 9 / 10 (lossy) |"), "{text}");
        assert!(
            text.contains("iceoryx2 holds [1, 32]; lane misses [32] | missed |"),
            "{text}"
        );
        assert!(
            text.contains("S = 1: lane p99.9 ≤ 1.0 × iceoryx2 p99.9 | 1.00× (1 round) | met |"),
            "{text}"
        );
    }

    #[test]
    fn csv_has_one_line_per_case_and_a_header() {
        let results = vec![
            result(Mode::Lane, 10, 0, 100, 50, 10.0),
            TopicsResult::failed(
                TopicsCase::new(Axis::Topics, Mode::Tcp, 10, 0, 1),
                "boom, bad".into(),
            ),
        ];
        let text = csv(&results);
        let columns = CSV_HEADER.split(',').count();
        assert_eq!(text.lines().count(), 3);
        assert!(text.lines().all(|l| l.split(',').count() == columns), "{text}");
    }

    #[test]
    fn old_reports_read_as_the_topics_sweep() {
        let old = r#"{"mode":"lane","topics":10,"round":0,"seconds":5}"#;
        let case: TopicsCase = serde_json::from_str(old).unwrap();
        assert_eq!(case, TopicsCase::new(Axis::Topics, Mode::Lane, 10, 0, 5));
    }
}
