//! `zshm bench --sweeps service`: request/response round trips, zshm's services against a plain
//! zenoh queryable and `get` on the same key expression, through shared memory and over TCP
//! loopback, with a small (64 B) and a large (4 MiB) response, in interleaved rounds. Each case
//! runs a server process and a client process ([`role`]); the client makes its calls one at a
//! time and reports every round trip. Ratios are taken within a round and judged on their median
//! ([`Spread`]): zshm / plain zenoh at 64 B, TCP / SHM at 4 MiB, SHM with the response copied
//! (the ordinary API) and loaned and read in place (the zero-copy API).

pub mod blob;
pub mod role;

use std::path::Path;
use std::time::Duration;

use anyhow::Context;

pub use self::role::ServiceArgs;

use self::role::ClientReport;
use super::plan::Mode;
use super::spread::Spread;
use crate::support::children::{Logs, first_line_matching, last_json_line, spawn, stop};

/// The modes of the sweep: zshm through SHM (the response copied, or loaned and read in place)
/// and over TCP, plain zenoh through SHM and over TCP.
pub const MODES: [Mode; 5] = [
    Mode::ShmCopy,
    Mode::ShmLoan,
    Mode::Tcp,
    Mode::ZenohShm,
    Mode::ZenohTcp,
];

/// The response sizes: a small one, where overhead shows, and a large one, where copies show.
pub const PAYLOADS: [usize; 2] = [64, 4 << 20];

/// zshm / plain zenoh at 64 B: at most this.
const OVERHEAD_TARGET: f64 = 1.2;

/// TCP / SHM at 4 MiB: at least this.
const SHM_GAIN_TARGET: f64 = 10.0;

/// What the service sweep runs.
#[derive(Debug, Clone)]
pub struct ServicePlan {
    /// Modes, in the order each round runs them.
    pub modes: Vec<Mode>,
    /// Response sizes in bytes.
    pub payloads: Vec<usize>,
    /// Rounds (at least 1).
    pub rounds: usize,
    /// Measured calls per case.
    pub count: u64,
}

/// One case of the sweep.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ServiceCase {
    /// The path.
    pub mode: Mode,
    /// Bytes of the response's CDR.
    pub payload: usize,
    /// Measured calls.
    pub count: u64,
    /// The round, from 0.
    pub round: usize,
}

/// A case's outcome.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ServiceResult {
    /// The case.
    pub case: ServiceCase,
    /// Measured calls answered.
    pub answered: u64,
    /// Of those, the replies that came through shared memory.
    #[serde(default)]
    pub through_shm: u64,
    /// Measured calls that failed.
    pub failed: u64,
    /// Round trip percentiles in µs (`p50`, `p99`, `max`); absent when nothing was answered.
    pub rtt_us: Option<Percentiles>,
    /// Why the case failed or what the first failed call said.
    pub error: Option<String>,
}

/// Round trip percentiles, µs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Slowest.
    pub max: f64,
}

impl ServicePlan {
    /// Every case in the order they run: each round runs every size in every mode, the modes of
    /// one size side by side.
    pub fn cases(&self) -> Vec<ServiceCase> {
        let mut cases = Vec::new();
        for round in 0..self.rounds.max(1) {
            for &payload in &self.payloads {
                for &mode in &self.modes {
                    cases.push(ServiceCase {
                        mode,
                        payload,
                        count: self.count,
                        round,
                    });
                }
            }
        }
        cases
    }
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

impl ServiceResult {
    fn from_report(case: ServiceCase, report: ClientReport) -> Self {
        let rtt_us = (!report.rtt_us.is_empty()).then(|| Percentiles {
            p50: percentile(&report.rtt_us, 0.5),
            p99: percentile(&report.rtt_us, 0.99),
            max: percentile(&report.rtt_us, 1.0),
        });
        Self {
            case,
            answered: report.answered,
            through_shm: report.through_shm,
            failed: report.failed,
            rtt_us,
            error: report.error,
        }
    }

    fn failed(case: ServiceCase, error: String) -> Self {
        Self {
            failed: case.count,
            case,
            answered: 0,
            through_shm: 0,
            rtt_us: None,
            error: Some(error),
        }
    }
}

/// Runs one case: the server, then the client, and reads the client's report.
pub async fn run_case(exe: &Path, locator: &str, id: &str, case: &ServiceCase) -> ServiceResult {
    match measure_case(exe, locator, id, case).await {
        Ok(result) => result,
        Err(err) => ServiceResult::failed(case.clone(), format!("{err:#}")),
    }
}

async fn measure_case(
    exe: &Path,
    locator: &str,
    id: &str,
    case: &ServiceCase,
) -> anyhow::Result<ServiceResult> {
    let (payload, count) = (case.payload.to_string(), case.count.to_string());
    let common = [
        "bench-service",
        "--mode",
        case.mode.name(),
        "--case",
        id,
        "--payload",
        &payload,
        "--count",
        &count,
        "--warmup",
        "10",
        "-e",
        locator,
        "--timeout",
        "30",
    ];
    // A pool that holds eight responses.
    let pool = (8 * case.payload + (1 << 20)).max(64 << 20).to_string();
    let env = super::shared::mode_env(case.mode, &pool);
    let mut server = spawn(exe, &[&common[..], &["--server"]].concat(), &env, Logs::Hidden)?;
    let measured = async {
        first_line_matching(&mut server, |l| l == "ready", "ready line")
            .await
            .context("the server did not start")?;
        let mut client = spawn(exe, &common, &env, Logs::Hidden)?;
        // Up to 30 s per call; a case of hundreds of 4 MiB calls over TCP takes seconds.
        let line = last_json_line(&mut client, Duration::from_secs(120 + case.count))
            .await
            .context("the client did not finish")?;
        let report: ClientReport = serde_json::from_str(&line).context("the client's report")?;
        Ok::<_, anyhow::Error>(ServiceResult::from_report(case.clone(), report))
    }
    .await;
    stop(&mut server).await;
    measured
}

/// The median p50 of `mode` at `payload` in `round`.
fn p50(results: &[ServiceResult], mode: Mode, payload: usize, round: usize) -> Option<f64> {
    results
        .iter()
        .find(|r| r.case.mode == mode && r.case.payload == payload && r.case.round == round)
        .and_then(|r| r.rtt_us)
        .map(|p| p.p50)
}

/// One ratio of the sweep, per round, with its target.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Ratio {
    /// What is divided by what.
    pub name: String,
    /// Its median over the rounds and range.
    pub spread: Option<Spread>,
    /// The target, as text (`≤ 1.2×`; `—` for a ratio shown without one).
    pub target: String,
    /// Whether the median meets it.
    pub met: Option<bool>,
}

/// The sweep's ratios of median round trips (p50), each taken within a round.
pub fn ratios(results: &[ServiceResult]) -> Vec<Ratio> {
    let rounds = results.iter().map(|r| r.case.round + 1).max().unwrap_or(0);
    // `target`: the bound and whether it is an upper one; `None` for a ratio shown for comparison.
    let ratio = |name: &str, (a, pa): (Mode, usize), (b, pb): (Mode, usize), target: Option<(f64, bool)>| {
        let spread = Spread::of(
            (0..rounds).filter_map(|round| Some(p50(results, a, pa, round)? / p50(results, b, pb, round)?)),
        );
        Ratio {
            name: name.to_owned(),
            met: target.and_then(|(target, at_most)| {
                spread.map(|s| {
                    if at_most {
                        s.median <= target
                    } else {
                        s.median >= target
                    }
                })
            }),
            spread,
            target: target.map_or("—".to_owned(), |(target, at_most)| {
                format!("{} {target}×", if at_most { "≤" } else { "≥" })
            }),
        }
    };
    let (small, large) = (PAYLOADS[0], PAYLOADS[1]);
    let (at_most, at_least) = (Some((OVERHEAD_TARGET, true)), Some((SHM_GAIN_TARGET, false)));
    vec![
        ratio(
            "zshm / zenoh, SHM, 64 B",
            (Mode::ShmCopy, small),
            (Mode::ZenohShm, small),
            at_most,
        ),
        ratio(
            "zshm / zenoh, TCP, 64 B",
            (Mode::Tcp, small),
            (Mode::ZenohTcp, small),
            at_most,
        ),
        ratio(
            "zshm TCP / SHM loaned, read in place, 4 MiB",
            (Mode::Tcp, large),
            (Mode::ShmLoan, large),
            at_least,
        ),
        ratio(
            "zshm TCP / SHM copied, 4 MiB",
            (Mode::Tcp, large),
            (Mode::ShmCopy, large),
            None,
        ),
        ratio(
            "zenoh TCP / SHM, 4 MiB",
            (Mode::ZenohTcp, large),
            (Mode::ZenohShm, large),
            None,
        ),
    ]
}

fn mode_label(mode: Mode) -> &'static str {
    match mode {
        Mode::ShmCopy => "zshm SHM, copied",
        Mode::ShmLoan => "zshm SHM, loaned",
        Mode::Tcp => "zshm TCP",
        Mode::ZenohShm => "zenoh SHM",
        Mode::ZenohTcp => "zenoh TCP",
        other => other.name(),
    }
}

/// The Markdown report: a table of medians over the rounds, then the ratios.
pub fn markdown(results: &[ServiceResult], command: &str) -> String {
    let mut out = String::from("# zshm bench: service round trips\n\n");
    out.push_str(&format!("`{command}`\n\n"));
    out.push_str(
        "| mode | response | rounds | calls | through SHM | p50 µs | p99 µs |\n|---|---|---|---|---|---|---|\n",
    );
    let mut keys: Vec<(usize, Mode)> = results.iter().map(|r| (r.case.payload, r.case.mode)).collect();
    keys.sort();
    keys.dedup();
    for (payload, mode) in keys {
        let of_case: Vec<&ServiceResult> = results
            .iter()
            .filter(|r| r.case.mode == mode && r.case.payload == payload)
            .collect();
        let median = |pick: fn(&Percentiles) -> f64| {
            Spread::of(of_case.iter().filter_map(|r| r.rtt_us.as_ref().map(pick)))
                .map_or("—".to_owned(), |s| format!("{:.0}", s.median))
        };
        let answered: u64 = of_case.iter().map(|r| r.answered).sum();
        let failed: u64 = of_case.iter().map(|r| r.failed).sum();
        let through_shm: u64 = of_case.iter().map(|r| r.through_shm).sum();
        out.push_str(&format!(
            "| {} | {} | {} | {answered}{} | {through_shm} | {} | {} |\n",
            mode_label(mode),
            zshm::internal::text::human_bytes(payload as u64),
            of_case.len(),
            if failed > 0 {
                format!(" ({failed} failed)")
            } else {
                String::new()
            },
            median(|p| p.p50),
            median(|p| p.p99),
        ));
    }
    out.push_str("\nMedians over the rounds of each round's p50 and p99.\n\n| ratio of p50 | median (range) | target | met |\n|---|---|---|---|\n");
    for ratio in ratios(results) {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            ratio.name,
            ratio.spread.map_or("—".to_owned(), |s| s.to_string()),
            ratio.target,
            match ratio.met {
                Some(true) => "yes",
                Some(false) => "no",
                None => "—",
            }
        ));
    }
    for result in results.iter().filter(|r| r.error.is_some()) {
        out.push_str(&format!(
            "\n- round {} {} {}: {}",
            result.case.round + 1,
            mode_label(result.case.mode),
            result.case.payload,
            result.error.as_deref().unwrap_or_default()
        ));
    }
    out
}

/// Writes service.md and service.json (`{"results": [...], "ratios": [...]}`); returns the
/// Markdown.
pub fn write_all(dir: &Path, results: &[ServiceResult], command: &str) -> anyhow::Result<String> {
    let markdown = markdown(results, command);
    let md = dir.join("service.md");
    std::fs::write(&md, &markdown).with_context(|| format!("cannot write {}", md.display()))?;
    let json = serde_json::json!({ "command": command, "results": results, "ratios": ratios(results) });
    let path = dir.join("service.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(markdown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(mode: Mode, payload: usize, round: usize, p50: f64) -> ServiceResult {
        ServiceResult {
            case: ServiceCase {
                mode,
                payload,
                count: 1,
                round,
            },
            answered: 1,
            through_shm: 0,
            failed: 0,
            rtt_us: Some(Percentiles {
                p50,
                p99: p50,
                max: p50,
            }),
            error: None,
        }
    }

    #[test]
    fn ratios_are_taken_per_round_and_judged_on_their_median() {
        let big = PAYLOADS[1];
        let results = [
            result(Mode::ShmCopy, 64, 0, 110.0),
            result(Mode::ZenohShm, 64, 0, 100.0),
            result(Mode::ShmCopy, 64, 1, 300.0),
            result(Mode::ZenohShm, 64, 1, 100.0),
            result(Mode::ShmCopy, 64, 2, 100.0),
            result(Mode::ZenohShm, 64, 2, 100.0),
            result(Mode::Tcp, big, 0, 2000.0),
            result(Mode::ShmLoan, big, 0, 100.0),
            result(Mode::ShmCopy, big, 0, 400.0),
        ];
        let ratios = ratios(&results);
        let shm = &ratios[0];
        assert_eq!(shm.spread.unwrap().median, 1.1);
        assert_eq!(shm.met, Some(true));
        assert_eq!(ratios[1].met, None, "no TCP cases at 64 B");
        assert_eq!(ratios[2].spread.unwrap().median, 20.0);
        assert_eq!(ratios[2].met, Some(true));
        assert_eq!(ratios[3].spread.unwrap().median, 5.0);
        assert_eq!(
            (ratios[3].met, ratios[3].target.as_str()),
            (None, "—"),
            "shown, not judged"
        );
    }

    #[test]
    fn rounds_run_every_mode_of_a_size_side_by_side() {
        let plan = ServicePlan {
            modes: vec![Mode::ShmCopy, Mode::ZenohShm],
            payloads: vec![64],
            rounds: 2,
            count: 5,
        };
        let order: Vec<(usize, Mode)> = plan.cases().iter().map(|c| (c.round, c.mode)).collect();
        assert_eq!(
            order,
            [
                (0, Mode::ShmCopy),
                (0, Mode::ZenohShm),
                (1, Mode::ShmCopy),
                (1, Mode::ZenohShm)
            ]
        );
    }
}
