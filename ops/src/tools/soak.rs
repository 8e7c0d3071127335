//! [`SoakReport`]: what a soak run (`zshm bench --soak`) saw over time, and its verdict: the
//! memory of every process and of /dev/shm must stop growing once warm, and no subscriber may
//! lose a message, however often one of them is killed.
//!
//! The run itself (processes, kills, sampling) is the program's; this is the data and the
//! judgement, so both can be tested without running anything.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// How much a process's resident memory may grow after warm-up before the soak fails.
pub const RSS_GROWTH_BOUND: u64 = 64 << 20;

/// A camera whose subscribers all read through the lane creates its zenoh pool (zshm's default
/// is up to 64.1 MiB, locked, so resident) only when a subscriber first needs zenoh: a
/// restarted one, until it attaches to the lane, at whichever restart that happens. It happens
/// once per process, so the bounds allow it once: in the camera's and the subscribers' memory
/// (they map it) and in /dev/shm. A leak grows again at each restart.
pub const POOL_ONCE_BYTES: u64 = 65 << 20;

/// The segments of that pool (its data and its metadata).
pub const POOL_ONCE_SEGMENTS: u64 = 2;

/// How many more zenoh segments /dev/shm may hold at the end than after warm-up (a killed
/// process's leftovers wait for the next zenoh process to start).
pub const SEGMENT_GROWTH_BOUND: u64 = 3;

/// How many more bytes zenoh's segments may hold at the end than after warm-up.
pub const SEGMENT_BYTES_GROWTH_BOUND: u64 = 16 << 20;

/// How many more same-host lane files /dev/shm may hold at the end than after warm-up: a killed
/// subscriber's connection and event files wait for the next lane process to start.
pub const LANE_FILE_GROWTH_BOUND: u64 = 8;

/// How many more bytes the lane's files may hold at the end than after warm-up.
pub const LANE_BYTES_GROWTH_BOUND: u64 = 16 << 20;

/// One look at the processes and at /dev/shm.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SoakSample {
    /// Seconds since the soak started.
    pub seconds: f64,
    /// Resident memory of each role (`router`, `camera`, `steady`, `restarted`), bytes; a role
    /// whose process is restarting at that instant is missing.
    pub rss_bytes: BTreeMap<String, u64>,
    /// Bytes used in /dev/shm (every file).
    pub dev_shm_used_bytes: u64,
    /// Bytes held by zenoh's `*.zenoh` segments.
    pub zenoh_bytes: u64,
    /// Number of zenoh segments.
    pub zenoh_segments: u64,
    /// Number of the same-host lane's files (every user's).
    #[serde(default)]
    pub lane_files: u64,
    /// Bytes the lane's files hold (allocated pages: its segments are sparse).
    #[serde(default)]
    pub lane_bytes: u64,
}

/// What one subscriber process received, from its start to its end (or its SIGKILL).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProbeLife {
    /// `steady` or `restarted`.
    pub role: String,
    /// Seconds since the soak started when it began.
    pub started_at: f64,
    /// How it ended: `SIGKILL` or `end`.
    pub ended_by: String,
    /// Clouds received.
    pub received: u64,
    /// Clouds missing (sequence gaps).
    pub lost: u64,
    /// Clouds published before the first one it received (from its final report; 0 for a
    /// killed subscriber, which prints none).
    #[serde(default)]
    pub before_first: u64,
}

/// A whole soak run and its verdict.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SoakReport {
    /// Seconds the soak ran.
    pub seconds: f64,
    /// Times the restarted subscriber was killed and started again.
    pub restarts: u64,
    /// Clouds the camera published.
    pub published: u64,
    /// Clouds it could not publish.
    pub publish_failures: u64,
    /// The samples, in time order.
    pub samples: Vec<SoakSample>,
    /// Every subscriber process.
    pub probes: Vec<ProbeLife>,
    /// The checks that failed, in words; empty when the soak passed.
    pub failures: Vec<String>,
}

impl SoakReport {
    /// Fills [`failures`](Self::failures): losses, publish failures, and growth of memory or of
    /// /dev/shm between the first sample after a quarter of the run and the last one, beyond
    /// the bounds and one zenoh pool ([`POOL_ONCE_BYTES`]).
    pub fn judge(&mut self) {
        let mut failures = Vec::new();
        for probe in self.probes.iter().filter(|p| p.lost > 0) {
            failures.push(format!(
                "the {} subscriber started at {:.0} s lost {} clouds",
                probe.role, probe.started_at, probe.lost
            ));
        }
        if self.probes.iter().all(|p| p.received == 0) {
            failures.push("no subscriber received anything".into());
        }
        if self.publish_failures > 0 {
            failures.push(format!("{} clouds could not be published", self.publish_failures));
        }
        let warm = self.seconds / 4.0;
        let reference = self.samples.iter().find(|s| s.seconds >= warm);
        if let (Some(first), Some(last)) = (reference, self.samples.last()) {
            for (role, before) in &first.rss_bytes {
                let Some(after) = last.rss_bytes.get(role) else {
                    continue;
                };
                if *after > before + RSS_GROWTH_BOUND + POOL_ONCE_BYTES {
                    failures.push(format!(
                        "{role}'s memory grew from {} to {} MiB",
                        before >> 20,
                        after >> 20
                    ));
                }
            }
            let segments = growth(
                "/dev/shm",
                "segments",
                (first.zenoh_segments, first.zenoh_bytes),
                (last.zenoh_segments, last.zenoh_bytes),
                (
                    SEGMENT_GROWTH_BOUND + POOL_ONCE_SEGMENTS,
                    SEGMENT_BYTES_GROWTH_BOUND + POOL_ONCE_BYTES,
                ),
            );
            let lane = growth(
                "the lane's files",
                "files",
                (first.lane_files, first.lane_bytes),
                (last.lane_files, last.lane_bytes),
                (LANE_FILE_GROWTH_BOUND, LANE_BYTES_GROWTH_BOUND),
            );
            failures.extend(segments.into_iter().chain(lane));
        } else {
            failures.push("no sample after warm-up".into());
        }
        self.failures = failures;
    }

    /// The report as Markdown: the verdict, the subscribers, and the samples as a table.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "# Soak: {:.0} s, {} restarts of a subscriber, {} clouds published\n\n",
            self.seconds, self.restarts, self.published
        );
        match self.failures.as_slice() {
            [] => out.push_str("Verdict: **pass** (no loss, no growth after warm-up).\n\n"),
            failures => {
                out.push_str("Verdict: **fail**\n\n");
                failures.iter().for_each(|f| _ = writeln!(out, "- {f}"));
                out.push('\n');
            }
        }
        out.push_str("| subscriber | started at | ended by | received | lost |\n|---|---|---|---|---|\n");
        for p in &self.probes {
            let _ = writeln!(
                out,
                "| {} | {:.0} s | {} | {} | {} |",
                p.role, p.started_at, p.ended_by, p.received, p.lost
            );
        }
        // Every role seen in any sample, in name order.
        let roles: BTreeSet<&String> = self.samples.iter().flat_map(|s| s.rss_bytes.keys()).collect();
        out.push_str("\n| t (s) |");
        roles.iter().for_each(|r| _ = write!(out, " {r} RSS (MiB) |"));
        out.push_str(" /dev/shm used (MiB) | zenoh segments | zenoh MiB | lane files | lane MiB |\n|---|");
        roles.iter().for_each(|_| out.push_str("---|"));
        out.push_str("---|---|---|---|---|\n");
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        for s in &self.samples {
            let _ = write!(out, "| {:.0} |", s.seconds);
            for role in &roles {
                match s.rss_bytes.get(role.as_str()) {
                    Some(rss) => _ = write!(out, " {:.1} |", mib(*rss)),
                    None => out.push_str(" - |"),
                }
            }
            let _ = writeln!(
                out,
                " {:.1} | {} | {:.1} | {} | {:.1} |",
                mib(s.dev_shm_used_bytes),
                s.zenoh_segments,
                mib(s.zenoh_bytes),
                s.lane_files,
                mib(s.lane_bytes)
            );
        }
        out
    }
}

/// Says how `what` grew when its (count, bytes) went from `before` to `after` by more than
/// `bounds` allows.
fn growth(
    what: &str,
    unit: &str,
    before: (u64, u64),
    after: (u64, u64),
    bounds: (u64, u64),
) -> Option<String> {
    let grew = after.0 > before.0 + bounds.0 || after.1 > before.1 + bounds.1;
    grew.then(|| {
        format!(
            "{what} grew from {} {unit} ({} MiB) to {} ({} MiB)",
            before.0,
            before.1 >> 20,
            after.0,
            after.1 >> 20
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seconds: f64, rss: u64, segments: u64) -> SoakSample {
        SoakSample {
            seconds,
            rss_bytes: [("camera".to_owned(), rss)].into_iter().collect(),
            dev_shm_used_bytes: 0,
            zenoh_bytes: segments << 20,
            zenoh_segments: segments,
            lane_files: 0,
            lane_bytes: 0,
        }
    }

    fn report(samples: Vec<SoakSample>, lost: u64) -> SoakReport {
        let mut report = SoakReport {
            seconds: 100.0,
            restarts: 1,
            published: 10,
            publish_failures: 0,
            samples,
            probes: vec![ProbeLife {
                role: "steady".into(),
                started_at: 0.0,
                ended_by: "end".into(),
                received: 10,
                lost,
                before_first: 0,
            }],
            failures: Vec::new(),
        };
        report.judge();
        report
    }

    #[test]
    fn a_steady_run_passes_and_growth_or_loss_fails() {
        let warm = 100 << 20;
        let steady = report(
            vec![
                sample(0.0, 10, 2),
                sample(30.0, warm, 6),
                sample(99.0, warm + 1, 6),
            ],
            0,
        );
        assert_eq!(steady.failures, Vec::<String>::new());
        assert!(steady.markdown().contains("**pass**"));
        // One zenoh pool created during the run is allowed, not more.
        let pool_once = report(vec![sample(30.0, warm, 6), sample(99.0, warm + (65 << 20), 8)], 0);
        assert_eq!(pool_once.failures, Vec::<String>::new());
        let grows = report(
            vec![sample(30.0, warm, 6), sample(99.0, warm + (130 << 20), 6)],
            0,
        );
        assert!(
            grows.failures[0].contains("camera's memory grew from 100 to 230 MiB"),
            "{:?}",
            grows.failures
        );
        let leaks = report(vec![sample(30.0, warm, 6), sample(99.0, warm, 12)], 0);
        assert!(
            leaks.failures[0].contains("/dev/shm grew from 6 segments"),
            "{:?}",
            leaks.failures
        );
        let lane_leak = |files| SoakSample {
            lane_files: files,
            ..sample(99.0, warm, 6)
        };
        let lane_leaks = report(vec![lane_leak(5), lane_leak(14)], 0);
        assert!(
            lane_leaks.failures[0].contains("the lane's files grew from 5 files (0 MiB) to 14"),
            "{:?}",
            lane_leaks.failures
        );
        assert!(report(vec![lane_leak(5), lane_leak(13)], 0).failures.is_empty());
        let loses = report(vec![sample(30.0, warm, 6), sample(99.0, warm, 6)], 3);
        assert_eq!(
            loses.failures,
            ["the steady subscriber started at 0 s lost 3 clouds"]
        );
        assert!(loses.markdown().contains("**fail**"));
    }
}
