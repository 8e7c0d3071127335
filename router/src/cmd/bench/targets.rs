//! The issues' targets, each computed from cases of one run (ratios, never absolute times):
//! zenoh's shared memory against TCP and plain zenoh, and the same-host lane against iceoryx2
//! and TCP.

use std::fmt::Write as _;

use zshm::text::human_bytes;

use super::plan::{Mode, Sweep};
use super::report::CaseResult;

const MIB4: usize = 4 << 20;

fn find(
    results: &[CaseResult],
    sweep: Sweep,
    mode: Mode,
    payload: usize,
    subscribers: usize,
) -> Option<&CaseResult> {
    results.iter().find(|r| {
        r.case.sweep == sweep
            && r.case.mode == mode
            && r.case.payload == payload
            && r.case.subscribers == subscribers
            && r.error.is_none()
    })
}

/// The targets table in Markdown.
pub(super) fn table(results: &[CaseResult]) -> String {
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
    let p = |mode, payload| find(results, Sweep::Payload, mode, payload, 1).and_then(CaseResult::p50);
    let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);

    // The same-host lane (issue 12).
    for payload in [64, MIB4] {
        let r = ratio(p(Mode::Lane, payload), p(Mode::Iceoryx2, payload));
        row(
            &format!("lane p50 at {} ≤ 1.5 × iceoryx2 p50", human_bytes(payload as u64)),
            r.map(|r| format!("{r:.2}×")),
            r.map(|r| r <= 1.5),
        );
    }
    let speedup = ratio(p(Mode::Tcp, MIB4), p(Mode::Lane, MIB4));
    row(
        "at 4 MiB, tcp p50 ≥ 40 × lane p50",
        speedup.map(|r| format!("{r:.1}×")),
        speedup.map(|r| r >= 40.0),
    );
    let cpu = |mode| {
        find(results, Sweep::Payload, mode, MIB4, 1).map(|r| r.pub_cpu_us_per_msg + r.sub_cpu_us_per_msg)
    };
    let cpu_ratio = ratio(cpu(Mode::Tcp), cpu(Mode::Lane));
    row(
        "CPU per 4 MiB message (publisher + subscriber): lane ≤ 1/20 of tcp",
        cpu_ratio.map(|r| format!("1/{r:.1}")),
        cpu_ratio.map(|r| r >= 20.0),
    );
    let fan = |n| find(results, Sweep::Subscribers, Mode::Lane, MIB4, n);
    let p99 = |r: &CaseResult| r.latency_us.map(|l| l.p99);
    let fan_out = fan(16).zip(fan(1)).and_then(|(many, one)| {
        let growth = p99(many)? / p99(one)?;
        Some((many.lost, many.case.count * 16, growth))
    });
    row(
        "16 subscribers × 4 MiB at 30 Hz through the lane: 0 lost, p99 ≤ 3 × 1-subscriber p99",
        fan_out.map(|(lost, of, growth)| format!("{lost} lost of {of}, p99 {growth:.2}×")),
        fan_out.map(|(lost, _, growth)| lost == 0 && growth <= 3.0),
    );

    // zenoh's shared memory (issue 9).
    let (loan_small, loan_4m) = (p(Mode::ShmLoan, 64), p(Mode::ShmLoan, MIB4));
    let flat = ratio(loan_4m, loan_small);
    row(
        "shm-loan p50 at 4 MiB ≤ 1.3 × its p50 at 64 B",
        flat.map(|r| format!("{r:.2}×")),
        flat.map(|r| r <= 1.3),
    );
    let speedup = ratio(p(Mode::Tcp, MIB4), loan_4m);
    row(
        "at 4 MiB, tcp p50 ≥ 20 × shm-loan p50",
        speedup.map(|r| format!("{r:.1}×")),
        speedup.map(|r| r >= 20.0),
    );
    let tcp_4m = p(Mode::Tcp, MIB4);
    let between = p(Mode::ShmCopy, MIB4)
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
            if let Some(r) = ratio(p(ours, payload), p(theirs, payload)) {
                overheads.push((payload, ours, r));
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
    let fan_out = find(results, Sweep::Subscribers, Mode::ShmLoan, MIB4, 16);
    row(
        "16 subscribers × 4 MiB at 30 Hz through zenoh's SHM: nothing lost",
        fan_out.map(|r| format!("{} lost of {}", r.lost, r.case.count * 16)),
        fan_out.map(|r| r.lost == 0),
    );
    let floor = ratio(loan_small, p(Mode::Iceoryx2, 64));
    row(
        "shm-loan p50 at 64 B as a multiple of iceoryx2 (event-driven)",
        floor.map(|r| format!("{r:.1}×")),
        floor.map(|_| true),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::super::plan::Case;
    use super::super::shared::{PubReport, SubReport};
    use super::*;

    fn result(mode: Mode, payload: usize, latency_us: i64, cpu_seconds: f64) -> CaseResult {
        let case = Case {
            sweep: Sweep::Payload,
            mode,
            payload,
            subscribers: 1,
            rate: 100.0,
            count: 1,
            warmup: 1,
        };
        let publisher = PubReport {
            published: 1,
            cpu_seconds,
            peak_rss_bytes: 0,
        };
        let sub = SubReport {
            received: 1,
            latencies_ns: vec![latency_us * 1000],
            cpu_seconds,
            ..SubReport::default()
        };
        CaseResult::from_reports(case, &publisher, &[sub])
    }

    #[test]
    fn targets_compare_cases_of_the_run() {
        let results = vec![
            result(Mode::ShmLoan, 64, 100, 0.0),
            result(Mode::ShmLoan, MIB4, 120, 0.0),
            result(Mode::Tcp, MIB4, 3000, 0.004),
            result(Mode::Lane, MIB4, 60, 0.0001),
            result(Mode::Iceoryx2, MIB4, 50, 0.0),
        ];
        let text = table(&results);
        assert!(text.contains("| 1.20× | met |"), "{text}");
        assert!(text.contains("| 25.0× | met |"), "{text}");
        assert!(
            text.contains("lane p50 at 4.0 MiB ≤ 1.5 × iceoryx2 p50 | 1.20× | met |"),
            "{text}"
        );
        assert!(text.contains("tcp p50 ≥ 40 × lane p50 | 50.0× | met |"), "{text}");
        assert!(text.contains("| 1/40.0 | met |"), "{text}");
        assert!(text.contains("not measured in this run"), "{text}");
    }
}
