//! The report files of `zshm bench`'s sweeps: results.md (the tables, then the targets table it
//! is given), results.csv and results.json.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use zshm::internal::text::human_bytes;
use zshm_ops::tools::latency::Summary;

use super::plan::Sweep;
use super::result::CaseResult;

/// Writes results.json, results.csv and results.md, which ends with `targets` (Markdown);
/// returns the Markdown.
pub(super) fn write_all(
    dir: &Path,
    results: &[CaseResult],
    command: &str,
    targets: &str,
) -> anyhow::Result<String> {
    std::fs::write(dir.join("results.json"), serde_json::to_string_pretty(results)?)
        .context("results.json")?;
    std::fs::write(dir.join("results.csv"), csv(results)).context("results.csv")?;
    let markdown = markdown(results, command, targets);
    std::fs::write(dir.join("results.md"), &markdown).context("results.md")?;
    Ok(markdown)
}

const CSV_HEADER: &str = "sweep,round,mode,payload_bytes,subscribers,rate_hz,count,received,lost,zenoh_dropped,p50_us,p99_us,p999_us,max_us,mean_us,msgs_per_s,bytes_per_s,pub_cpu_us_per_msg,sub_cpu_us_per_msg,pub_peak_rss_mib,sub_peak_rss_mib,shm_share,lane_share,error";

fn csv(results: &[CaseResult]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in results {
        let l = r.latency_us;
        let stat = |f: fn(&Summary) -> f64| l.as_ref().map_or(String::new(), |l| format!("{:.1}", f(l)));
        let _ = writeln!(
            out,
            "{:?},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.1},{:.0},{:.1},{:.1},{:.1},{:.1},{:.3},{:.3},{}",
            r.case.sweep,
            r.case.round,
            r.case.mode,
            r.case.payload,
            r.case.subscribers,
            r.case.rate,
            r.case.count,
            r.received,
            r.lost,
            r.zenoh_dropped,
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
            r.lane_share,
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

/// The messages a case lost, with those its publisher's zenoh counted as dropped (a KEEP_LAST
/// publisher's congestion control DROP) when there were any.
fn lost(r: &CaseResult) -> String {
    match r.zenoh_dropped {
        0 => r.lost.to_string(),
        dropped => format!("{} ({dropped} dropped by zenoh)", r.lost),
    }
}

fn markdown(results: &[CaseResult], command: &str, targets: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# zshm bench results\n");
    let _ = writeln!(
        out,
        "Machine: {}. Command: `{command}`. {}. One run; every ratio below compares cases of this run, in interleaved rounds.\n",
        machine(),
        super::processes_note(),
    );
    let _ = writeln!(
        out,
        "Latency = subscriber CLOCK_MONOTONIC when the data is readable minus publisher CLOCK_MONOTONIC right before publish, in µs. CPU is per message, from getrusage.\n"
    );
    for (sweep, title) in [
        (Sweep::Payload, "Latency against payload (1 subscriber)"),
        (
            Sweep::FanOut,
            "Fan-out: latency against the subscribers of one topic (4 MiB, 30 Hz)",
        ),
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
            "| round | payload | mode | subs | n | p50 | p99 | p99.9 | max | lost | msg/s | MB/s | pub CPU µs/msg | sub CPU µs/msg | pub RSS MiB | sub RSS MiB | SHM | lane |"
        );
        let _ = writeln!(
            out,
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        for r in rows {
            let l = r.latency_us;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {:.0}% | {:.0}% |{}",
                r.case.round + 1,
                human_bytes(r.case.payload as u64),
                r.case.mode,
                r.case.subscribers,
                r.received,
                us(l.map(|l| l.p50)),
                us(l.map(|l| l.p99)),
                us(l.map(|l| l.p999)),
                us(l.map(|l| l.max)),
                lost(r),
                r.msgs_per_s,
                r.bytes_per_s / 1e6,
                r.pub_cpu_us_per_msg,
                r.sub_cpu_us_per_msg,
                r.pub_peak_rss_mib,
                r.sub_peak_rss_mib,
                100.0 * r.shm_share,
                100.0 * r.lane_share,
                r.error
                    .as_deref()
                    .map(|e| format!(" error: {e}"))
                    .unwrap_or_default()
            );
        }
        out.push('\n');
    }
    out.push_str(targets);
    out
}

#[cfg(test)]
mod tests {
    use super::super::plan::{Case, Mode};
    use super::super::shared::{PubReport, SubReport};
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
            round: 0,
        }
    }

    fn sub(latencies_us: &[i64], lost: u64) -> SubReport {
        SubReport {
            received: latencies_us.len() as u64,
            lost,
            shm: latencies_us.len() as u64,
            lane: 0,
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
            zenoh_dropped: 0,
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
            zenoh_dropped: 1,
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
        assert!(
            lines[1].contains(",2,0,1,"),
            "received, lost, dropped by zenoh: {text}"
        );
    }

    #[test]
    fn a_loss_zenoh_counted_says_so() {
        let mut r = CaseResult::failed(case(Mode::Tcp, 64), String::new());
        r.lost = 20;
        assert_eq!(lost(&r), "20");
        r.zenoh_dropped = 20;
        assert_eq!(lost(&r), "20 (20 dropped by zenoh)");
    }
}
