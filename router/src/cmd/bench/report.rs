//! Results of `zshm bench`: per-case aggregation, the Markdown report with the targets, CSV
//! and JSON.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use zshm::text::human_bytes;
use zshm::tools::latency::Summary;

use super::Args;
use super::plan::{Case, Mode, Sweep};
use super::shared::{PubReport, SubReport};

/// What one case measured, over all its subscribers.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// Measured messages received, over all subscribers.
    pub received: u64,
    /// Measured messages missing, over all subscribers.
    pub lost: u64,
    /// Latency statistics in microseconds.
    pub latency_us: Option<Summary>,
    /// Messages per second at one subscriber.
    pub msgs_per_s: f64,
    /// Payload bytes per second at one subscriber.
    pub bytes_per_s: f64,
    /// Publisher CPU time per message, µs.
    pub pub_cpu_us_per_msg: f64,
    /// Subscriber CPU time per message, µs (mean over subscribers).
    pub sub_cpu_us_per_msg: f64,
    /// Publisher peak RSS, MiB.
    pub pub_peak_rss_mib: f64,
    /// Largest subscriber peak RSS, MiB.
    pub sub_peak_rss_mib: f64,
    /// Share of messages received through shared memory.
    pub shm_share: f64,
    /// Why the case failed, if it did.
    pub error: Option<String>,
}

impl CaseResult {
    pub(super) fn failed(case: Case, error: String) -> Self {
        Self {
            case,
            received: 0,
            lost: 0,
            latency_us: None,
            msgs_per_s: 0.0,
            bytes_per_s: 0.0,
            pub_cpu_us_per_msg: 0.0,
            sub_cpu_us_per_msg: 0.0,
            pub_peak_rss_mib: 0.0,
            sub_peak_rss_mib: 0.0,
            shm_share: 0.0,
            error: Some(error),
        }
    }

    pub(super) fn from_reports(case: Case, publisher: &PubReport, subs: &[SubReport]) -> Self {
        let latencies: Vec<f64> = subs
            .iter()
            .flat_map(|s| s.latencies_ns.iter().map(|ns| *ns as f64 / 1e3))
            .collect();
        let received: u64 = subs.iter().map(|s| s.received).sum();
        let rates: Vec<f64> = subs
            .iter()
            .filter(|s| s.received > 1 && s.last_ns > s.first_ns)
            .map(|s| (s.received - 1) as f64 / ((s.last_ns - s.first_ns) as f64 / 1e9))
            .collect();
        let msgs_per_s = mean(&rates);
        let mib = |bytes: u64| bytes as f64 / (1 << 20) as f64;
        Self {
            latency_us: Summary::of(&latencies),
            received,
            lost: subs.iter().map(|s| s.lost).sum(),
            msgs_per_s,
            bytes_per_s: msgs_per_s * case.payload as f64,
            pub_cpu_us_per_msg: 1e6 * publisher.cpu_seconds / publisher.published.max(1) as f64,
            sub_cpu_us_per_msg: mean(
                &subs
                    .iter()
                    .map(|s| 1e6 * s.cpu_seconds / s.received.max(1) as f64)
                    .collect::<Vec<_>>(),
            ),
            pub_peak_rss_mib: mib(publisher.peak_rss_bytes),
            sub_peak_rss_mib: subs.iter().map(|s| mib(s.peak_rss_bytes)).fold(0.0, f64::max),
            shm_share: if received == 0 {
                0.0
            } else {
                subs.iter().map(|s| s.shm).sum::<u64>() as f64 / received as f64
            },
            error: None,
            case,
        }
    }

    /// p50 latency in µs.
    pub fn p50(&self) -> Option<f64> {
        self.latency_us.map(|l| l.p50)
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Writes results.json, results.csv and results.md; returns the Markdown.
pub(super) fn write_all(dir: &Path, results: &[CaseResult], args: &Args) -> anyhow::Result<String> {
    std::fs::write(dir.join("results.json"), serde_json::to_string_pretty(results)?)
        .context("results.json")?;
    std::fs::write(dir.join("results.csv"), csv(results)).context("results.csv")?;
    let markdown = markdown(results, args);
    std::fs::write(dir.join("results.md"), &markdown).context("results.md")?;
    Ok(markdown)
}

const CSV_HEADER: &str = "sweep,mode,payload_bytes,subscribers,rate_hz,count,received,lost,p50_us,p99_us,p999_us,max_us,mean_us,msgs_per_s,bytes_per_s,pub_cpu_us_per_msg,sub_cpu_us_per_msg,pub_peak_rss_mib,sub_peak_rss_mib,shm_share,error";

fn csv(results: &[CaseResult]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in results {
        let l = r.latency_us;
        let stat = |f: fn(&Summary) -> f64| l.as_ref().map_or(String::new(), |l| format!("{:.1}", f(l)));
        let _ = writeln!(
            out,
            "{:?},{},{},{},{},{},{},{},{},{},{},{},{},{:.1},{:.0},{:.1},{:.1},{:.1},{:.1},{:.3},{}",
            r.case.sweep,
            r.case.mode,
            r.case.payload,
            r.case.subscribers,
            r.case.rate,
            r.case.count,
            r.received,
            r.lost,
            stat(|l| l.p50),
            stat(|l| l.p99),
            stat(|l| l.p999),
            stat(|l| l.max),
            stat(|l| l.mean),
            r.msgs_per_s,
            r.bytes_per_s,
            r.pub_cpu_us_per_msg,
            r.sub_cpu_us_per_msg,
            r.pub_peak_rss_mib,
            r.sub_peak_rss_mib,
            r.shm_share,
            r.error.as_deref().unwrap_or("").replace([',', '\n'], " ")
        );
    }
    out
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{cpu}, {cores} cores, Linux {}", kernel.trim())
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

fn markdown(results: &[CaseResult], args: &Args) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# zshm bench results\n");
    let _ = writeln!(
        out,
        "Machine: {}. Command: `zshm bench{}`. One run; every ratio below compares cases of this run.\n",
        machine(),
        if args.quick { " --quick" } else { "" }
    );
    let _ = writeln!(
        out,
        "Latency = subscriber CLOCK_MONOTONIC when the data is readable minus publisher CLOCK_MONOTONIC right before publish, in µs. CPU is per message, from getrusage.\n"
    );
    for (sweep, title) in [
        (Sweep::Payload, "Latency against payload (1 subscriber)"),
        (Sweep::Subscribers, "Latency against subscribers (4 MiB, 30 Hz)"),
        (
            Sweep::Throughput,
            "Throughput (as fast as possible, 1 subscriber)",
        ),
    ] {
        let rows: Vec<&CaseResult> = results.iter().filter(|r| r.case.sweep == sweep).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "## {title}\n");
        let _ = writeln!(
            out,
            "| payload | mode | subs | n | p50 | p99 | p99.9 | max | lost | msg/s | MB/s | pub CPU µs/msg | sub CPU µs/msg | pub RSS MiB | sub RSS MiB | SHM |"
        );
        let _ = writeln!(
            out,
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        for r in rows {
            let l = r.latency_us;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {:.0}% |{}",
                human_bytes(r.case.payload as u64),
                r.case.mode,
                r.case.subscribers,
                r.received,
                us(l.map(|l| l.p50)),
                us(l.map(|l| l.p99)),
                us(l.map(|l| l.p999)),
                us(l.map(|l| l.max)),
                r.lost,
                r.msgs_per_s,
                r.bytes_per_s / 1e6,
                r.pub_cpu_us_per_msg,
                r.sub_cpu_us_per_msg,
                r.pub_peak_rss_mib,
                r.sub_peak_rss_mib,
                100.0 * r.shm_share,
                r.error
                    .as_deref()
                    .map(|e| format!(" error: {e}"))
                    .unwrap_or_default()
            );
        }
        out.push('\n');
    }
    out.push_str(&targets(results));
    out
}

fn p50_of(results: &[CaseResult], sweep: Sweep, mode: Mode, payload: usize) -> Option<f64> {
    results
        .iter()
        .find(|r| r.case.sweep == sweep && r.case.mode == mode && r.case.payload == payload)
        .and_then(CaseResult::p50)
}

/// The targets, each as measured in this run.
fn targets(results: &[CaseResult]) -> String {
    let mut out = String::from("## Targets\n\n| target | measured | verdict |\n|---|---|---|\n");
    let mut row = |target: &str, measured: Option<String>, ok: Option<bool>| {
        let verdict = match ok {
            Some(true) => "met",
            Some(false) => "missed",
            None => "not measured in this run",
        };
        let _ = writeln!(
            out,
            "| {target} | {} | {verdict} |",
            measured.unwrap_or_else(|| "-".into())
        );
    };
    let p = |mode, payload| p50_of(results, Sweep::Payload, mode, payload);
    let (loan_small, loan_4m) = (p(Mode::ShmLoan, 64), p(Mode::ShmLoan, 4 << 20));
    let flat = loan_small.zip(loan_4m).map(|(a, b)| b / a);
    row(
        "shm-loan p50 at 4 MiB ≤ 1.3 × its p50 at 64 B",
        flat.map(|r| format!("{r:.2}×")),
        flat.map(|r| r <= 1.3),
    );
    let tcp_4m = p(Mode::Tcp, 4 << 20);
    let speedup = tcp_4m.zip(loan_4m).map(|(t, l)| t / l);
    row(
        "at 4 MiB, tcp p50 ≥ 20 × shm-loan p50",
        speedup.map(|r| format!("{r:.1}×")),
        speedup.map(|r| r >= 20.0),
    );
    let copy_4m = p(Mode::ShmCopy, 4 << 20);
    let between = copy_4m
        .zip(tcp_4m.zip(loan_4m))
        .map(|(c, (t, l))| (c, l <= c && c <= t));
    row(
        "at 4 MiB, shm-copy p50 between shm-loan and tcp",
        between.map(|(c, _)| format!("{c:.0} µs")),
        between.map(|(_, ok)| ok),
    );
    let mut overheads = Vec::new();
    for payload in results
        .iter()
        .filter(|r| r.case.sweep == Sweep::Payload)
        .map(|r| r.case.payload)
    {
        for (ours, theirs) in [(Mode::ShmLoan, Mode::ZenohShm), (Mode::Tcp, Mode::ZenohTcp)] {
            if let Some((a, b)) = p(ours, payload).zip(p(theirs, payload)) {
                overheads.push((payload, ours, a / b));
            }
        }
    }
    overheads.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    let worst = overheads.iter().copied().max_by(|a, b| a.2.total_cmp(&b.2));
    row(
        "zshm p50 ≤ 1.10 × plain zenoh p50 at every size",
        worst.map(|(payload, mode, r)| format!("worst {r:.2}× ({mode} at {})", human_bytes(payload as u64))),
        worst.map(|(_, _, r)| r <= 1.10),
    );
    let fan_out = results.iter().find(|r| {
        r.case.sweep == Sweep::Subscribers && r.case.mode == Mode::ShmLoan && r.case.subscribers == 16
    });
    row(
        "16 subscribers × 4 MiB at 30 Hz: nothing lost",
        fan_out.map(|r| format!("{} lost of {}", r.lost, r.case.count * 16)),
        fan_out.map(|r| r.lost == 0 && r.error.is_none()),
    );
    let floor = p(Mode::Iceoryx2, 64).zip(loan_small).map(|(i, l)| l / i);
    row(
        "shm-loan p50 at 64 B as a multiple of iceoryx2 (event-driven)",
        floor.map(|r| format!("{r:.0}×")),
        floor.map(|_| true),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(mode: Mode, payload: usize) -> Case {
        Case {
            sweep: Sweep::Payload,
            mode,
            payload,
            subscribers: 1,
            rate: 100.0,
            count: 3,
            warmup: 1,
        }
    }

    fn sub(latencies_us: &[i64], lost: u64) -> SubReport {
        SubReport {
            received: latencies_us.len() as u64,
            lost,
            shm: latencies_us.len() as u64,
            latencies_ns: latencies_us.iter().map(|us| us * 1000).collect(),
            first_ns: 0,
            last_ns: 2_000_000_000,
            cpu_seconds: 0.003,
            peak_rss_bytes: 10 << 20,
        }
    }

    #[test]
    fn subscribers_are_pooled_and_costs_are_per_message() {
        let publisher = PubReport {
            published: 3,
            cpu_seconds: 0.006,
            peak_rss_bytes: 20 << 20,
        };
        let r = CaseResult::from_reports(
            case(Mode::ShmLoan, 4096),
            &publisher,
            &[sub(&[100, 200, 300], 0), sub(&[400, 500], 1)],
        );
        let l = r.latency_us.unwrap();
        assert_eq!(
            (r.received, r.lost, l.count, l.p50, l.max),
            (5, 1, 5, 300.0, 500.0)
        );
        assert_eq!(r.pub_cpu_us_per_msg, 2000.0);
        assert_eq!(r.pub_peak_rss_mib, 20.0);
        assert_eq!(r.shm_share, 1.0);
        assert!(
            (r.msgs_per_s - 0.75).abs() < 1e-9,
            "(2 + 1) / 2 s over two subscribers: {}",
            r.msgs_per_s
        );
    }

    #[test]
    fn csv_has_one_line_per_case_and_a_header() {
        let publisher = PubReport {
            published: 3,
            cpu_seconds: 0.0,
            peak_rss_bytes: 0,
        };
        let results = vec![
            CaseResult::from_reports(case(Mode::Tcp, 64), &publisher, &[sub(&[10, 20], 0)]),
            CaseResult::failed(case(Mode::ShmLoan, 64), "boom, bad".into()),
        ];
        let text = csv(&results);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let columns = CSV_HEADER.split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == columns), "{text}");
    }

    #[test]
    fn targets_compare_cases_of_the_run() {
        let publisher = PubReport {
            published: 3,
            cpu_seconds: 0.0,
            peak_rss_bytes: 0,
        };
        let results = vec![
            CaseResult::from_reports(case(Mode::ShmLoan, 64), &publisher, &[sub(&[100], 0)]),
            CaseResult::from_reports(case(Mode::ShmLoan, 4 << 20), &publisher, &[sub(&[120], 0)]),
            CaseResult::from_reports(case(Mode::Tcp, 4 << 20), &publisher, &[sub(&[3000], 0)]),
        ];
        let text = targets(&results);
        assert!(text.contains("| 1.20× | met |"), "{text}");
        assert!(text.contains("| 25.0× | met |"), "{text}");
        assert!(text.contains("not measured in this run"), "{text}");
    }
}
