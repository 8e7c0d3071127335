//! What the topics sweep measured ([`TopicsResult`]), its files (topics.md, topics.csv,
//! topics.json) and its targets: zshm's lane against iceoryx2, zshm through zenoh's SHM against
//! plain zenoh, and the threads of a zshm node against its subscriptions.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use zshm_ops::tools::latency::Summary;

use super::super::plan::Mode;
use super::super::spread::Spread;
use super::shared::NodeReport;

/// One case of the topics sweep.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TopicsCase {
    /// The path.
    pub mode: Mode,
    /// Small topics (the cloud comes on top).
    pub topics: usize,
    /// The round, from 0.
    pub round: usize,
    /// Measured seconds.
    pub seconds: u64,
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
    /// CPU of the node processes over their windows, seconds per second, summed.
    pub nodes_cpu_cores: f64,
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
            nodes_cpu_cores: 0.0,
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
            nodes_cpu_cores: nodes.iter().map(|n| n.cpu_seconds).sum::<f64>() / seconds,
            dev_shm_mib,
            error: None,
            case,
        }
    }

    /// Every measured message arrived.
    pub fn lossless(&self) -> bool {
        self.error.is_none() && self.expected > 0 && self.delivered == self.expected
    }

    fn p999(&self) -> Option<f64> {
        self.latency_us.map(|l| l.p999)
    }
}

/// Writes topics.json, topics.csv and topics.md; returns the Markdown.
pub fn write_all(dir: &Path, results: &[TopicsResult], command: &str) -> anyhow::Result<String> {
    std::fs::write(dir.join("topics.json"), serde_json::to_string_pretty(results)?).context("topics.json")?;
    std::fs::write(dir.join("topics.csv"), csv(results)).context("topics.csv")?;
    let markdown = markdown(results, command);
    std::fs::write(dir.join("topics.md"), &markdown).context("topics.md")?;
    Ok(markdown)
}

const CSV_HEADER: &str = "round,topics,mode,seconds,delivered,expected,p50_us,p99_us,p999_us,max_us,machine_cpu_percent,nodes_cpu_cores,threads_min,threads_max,rss_mib_max,dev_shm_mib,error";

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
            "{},{},{},{},{},{},{},{},{},{},{},{:.2},{},{},{},{:.1},{}",
            r.case.round,
            r.case.topics,
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
            threads.map_or(String::new(), |t| t.0.to_string()),
            threads.map_or(String::new(), |t| t.1.to_string()),
            min_max(&r.rss_mib).map_or(String::new(), |m| format!("{:.1}", m.1)),
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

fn markdown(results: &[TopicsResult], command: &str) -> String {
    let mut out = String::from("# zshm bench: topics sweep\n\n");
    let _ = writeln!(
        out,
        "Command: `{command}`. 10 node processes; T small topics at 100 Hz (64 B–4 KiB), 2 subscribers each, plus a 2 MiB cloud at 10 Hz with 4 subscribers. Latency end to end (µs); CPU of the whole machine over the measured window (100% = every core busy); threads and RSS per node process; /dev/shm growth over the case.\n"
    );
    out.push_str("| round | T | mode | delivered / expected | p50 | p99 | p99.9 | machine CPU | node CPU (cores) | threads per node | RSS per node MiB (max) | /dev/shm MiB |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
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
            "| {} | {} | {} | {} / {}{} | {} | {} | {} | {} | {:.2} | {} | {} | {:.1} |{}",
            r.case.round + 1,
            r.case.topics,
            r.case.mode,
            r.delivered,
            r.expected,
            if r.lossless() { "" } else { " (lossy)" },
            us(l.map(|l| l.p50)),
            us(l.map(|l| l.p99)),
            us(l.map(|l| l.p999)),
            r.machine_cpu_percent.map_or("-".into(), |c| format!("{c:.0}%")),
            r.nodes_cpu_cores,
            threads,
            min_max(&r.rss_mib).map_or("-".into(), |m| format!("{:.0}", m.1)),
            r.dev_shm_mib,
            r.error
                .as_deref()
                .map(|e| format!(" error: {e}"))
                .unwrap_or_default()
        );
    }
    out.push('\n');
    out.push_str("## Largest T held without loss (in every round)\n\n| mode | largest T |\n|---|---|\n");
    for mode in modes(results) {
        let _ = writeln!(
            out,
            "| {mode} | {} |",
            largest_lossless(results, mode).map_or("none".into(), |t| t.to_string())
        );
    }
    out.push('\n');
    out.push_str(&targets(results));
    out
}

fn modes(results: &[TopicsResult]) -> Vec<Mode> {
    let mut modes: Vec<Mode> = results.iter().map(|r| r.case.mode).collect();
    modes.sort();
    modes.dedup();
    modes
}

fn topic_counts(results: &[TopicsResult]) -> Vec<usize> {
    let mut counts: Vec<usize> = results.iter().map(|r| r.case.topics).collect();
    counts.sort_unstable();
    counts.dedup();
    counts
}

/// Whether `mode` delivered everything at `topics` in every round it ran.
fn holds(results: &[TopicsResult], mode: Mode, topics: usize) -> bool {
    let mut runs = results
        .iter()
        .filter(|r| r.case.mode == mode && r.case.topics == topics)
        .peekable();
    runs.peek().is_some() && runs.all(TopicsResult::lossless)
}

/// The largest T that `mode` held without loss in every round.
pub fn largest_lossless(results: &[TopicsResult], mode: Mode) -> Option<usize> {
    topic_counts(results)
        .into_iter()
        .filter(|&t| holds(results, mode, t))
        .max()
}

/// `of(ours) / of(theirs)` at `topics`, per round, summarised.
fn ratio(
    results: &[TopicsResult],
    ours: Mode,
    theirs: Mode,
    topics: usize,
    of: fn(&TopicsResult) -> Option<f64>,
) -> Option<Spread> {
    let at = |mode, round| {
        results
            .iter()
            .find(|r| {
                r.case.mode == mode && r.case.topics == topics && r.case.round == round && r.error.is_none()
            })
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

fn targets(results: &[TopicsResult]) -> String {
    let mut out = String::from(
        "## Targets (topics sweep)\n\nRatios per round, judged on their median over rounds (range, rounds).\n\n| target | measured | verdict |\n|---|---|---|\n",
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
    if has(Mode::Lane) && has(Mode::Iceoryx2) {
        let held: Vec<usize> = topic_counts(results)
            .into_iter()
            .filter(|&t| holds(results, Mode::Iceoryx2, t))
            .collect();
        let lane_misses: Vec<usize> = held
            .iter()
            .copied()
            .filter(|&t| !holds(results, Mode::Lane, t))
            .collect();
        row(
            "lane holds without loss every T that iceoryx2 holds".into(),
            format!(
                "iceoryx2 holds {held:?}; lane misses {}",
                if lane_misses.is_empty() {
                    "none".into()
                } else {
                    format!("{lane_misses:?}")
                }
            ),
            Some(lane_misses.is_empty()),
        );
        for t in held {
            let p999 = ratio(results, Mode::Lane, Mode::Iceoryx2, t, TopicsResult::p999);
            row(
                format!("T = {t}: lane p99.9 ≤ 1.5 × iceoryx2 p99.9"),
                p999.map_or("-".into(), |s| s.to_string()),
                p999.map(|s| s.median <= 1.5),
            );
            let cpu = ratio(results, Mode::Lane, Mode::Iceoryx2, t, |r| r.machine_cpu_percent);
            row(
                format!("T = {t}: machine CPU with lane ≤ 1.5 × with iceoryx2"),
                cpu.map_or("-".into(), |s| s.to_string()),
                cpu.map(|s| s.median <= 1.5),
            );
            // Other load on a shared machine fills the machine's CPU in both modes; the nodes'
            // own CPU time is what the modes spend.
            let own = ratio(results, Mode::Lane, Mode::Iceoryx2, t, |r| {
                Some(r.nodes_cpu_cores)
            });
            row(
                format!("T = {t}: the nodes' own CPU with lane ≤ 1.5 × with iceoryx2"),
                own.map_or("-".into(), |s| s.to_string()),
                own.map(|s| s.median <= 1.5),
            );
        }
    } else {
        row("lane against iceoryx2".into(), "-".into(), None);
    }
    if has(Mode::ShmLoan) && has(Mode::ZenohShm) {
        let (ours, theirs) = (
            largest_lossless(results, Mode::ShmLoan),
            largest_lossless(results, Mode::ZenohShm),
        );
        let show = |t: Option<usize>| t.map_or("none".into(), |t| t.to_string());
        row(
            "shm-loan holds at least the largest T zenoh-shm holds".into(),
            format!("shm-loan {}, zenoh-shm {}", show(ours), show(theirs)),
            Some(ours.unwrap_or(0) >= theirs.unwrap_or(0)),
        );
    } else {
        row("shm-loan against zenoh-shm".into(), "-".into(), None);
    }
    // One executor per node: its threads must not follow its subscriptions (T / 5 of them).
    // zenoh's and tokio's pools vary by a few threads from run to run, so the verdict is "no
    // more at the largest T measured than at the smallest".
    for mode in present
        .iter()
        .copied()
        .filter(|m| !matches!(m, Mode::ZenohShm | Mode::ZenohTcp | Mode::Iceoryx2))
    {
        let threads_at = |t: usize| {
            results
                .iter()
                .filter(|r| r.case.mode == mode && r.case.topics == t)
                .flat_map(|r| r.threads.iter().copied())
                .max()
        };
        let measured: Vec<(usize, u64)> = topic_counts(results)
            .into_iter()
            .filter_map(|t| Some((t, threads_at(t)?)))
            .collect();
        let (Some(&(low, a)), Some(&(high, b))) = (measured.first(), measured.last()) else {
            continue;
        };
        row(
            format!(
                "{mode}: threads per node no more at T = {high} than at T = {low} (about {} and {} subscriptions per node)",
                high / 5,
                low / 5
            ),
            format!("{b} and {a} threads (max over nodes)"),
            (low != high).then_some(b <= a),
        );
    }
    out
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
        let case = TopicsCase {
            mode,
            topics,
            round,
            seconds: 1,
        };
        let node = NodeReport {
            received: delivered,
            expected: 100,
            latencies_ns: vec![p999_us * 1000],
            threads: 14,
            ..NodeReport::default()
        };
        TopicsResult::from_reports(case, &[node], Some(cpu), 1.0)
    }

    #[test]
    fn the_largest_lossless_t_needs_every_round_and_targets_use_the_median() {
        let mut results = Vec::new();
        for round in 0..3 {
            results.push(result(Mode::Iceoryx2, 10, round, 100, 100, 20.0));
            results.push(result(Mode::Lane, 10, round, 100, [120, 400, 140][round], 25.0));
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
        let text = targets(&results);
        assert!(text.contains("lane misses [50] | missed |"), "{text}");
        assert!(
            text.contains("T = 10: lane p99.9 ≤ 1.5 × iceoryx2 p99.9 | 1.40× (1.20–4.00, 3 rounds) | met |"),
            "{text}"
        );
        assert!(text.contains("| 1.25× (1.25–1.25, 3 rounds) | met |"), "{text}");
        assert!(
            text.contains("14 and 14 threads (max over nodes) | met |"),
            "{text}"
        );
    }

    #[test]
    fn csv_has_one_line_per_case_and_a_header() {
        let results = vec![
            result(Mode::Lane, 10, 0, 100, 50, 10.0),
            TopicsResult::failed(
                TopicsCase {
                    mode: Mode::Tcp,
                    topics: 10,
                    round: 0,
                    seconds: 1,
                },
                "boom, bad".into(),
            ),
        ];
        let text = csv(&results);
        let columns = CSV_HEADER.split(',').count();
        assert_eq!(text.lines().count(), 3);
        assert!(text.lines().all(|l| l.split(',').count() == columns), "{text}");
    }
}
