//! `zshm bench`: shared memory vs TCP loopback, measured side by side with the same router, in
//! separate publisher and subscriber processes, with plain zenoh and iceoryx2 as baselines in
//! the same run, in interleaved rounds. `--sweeps topics` adds a robot-sized workload of many
//! topics over ten node processes ([`topics`]); `--sweeps service` measures request/response
//! round trips ([`service`]). Writes Markdown reports, CSV, JSON and SVG
//! plots; the method and the results are in BENCHMARKS.md.

use crate::support::out::outln;

mod iox;
pub mod plan;
mod plot;
mod report;
mod result;
pub mod role;
pub mod service;
pub mod shared;
mod soak;
mod spread;
mod targets;
pub mod topics;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::Context;

use self::plan::{Case, FAN_OUT, Mode, PAYLOADS, Plan, Sweep};
use self::result::CaseResult;
use self::shared::{PubReport, SubReport};
use crate::cli;
use crate::support::children::{Logs, first_line_matching, last_json_line, spawn, start_router, stop};
use crate::support::shutdown;

/// `zshm bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A one-minute sweep on small payloads (for CI and a first look).
    #[arg(long)]
    pub quick: bool,
    /// Directory for results.md, results.csv, results.json and the SVG plots.
    #[arg(long, default_value = "bench-results")]
    pub out: std::path::PathBuf,
    /// Messages per second of the latency sweep.
    #[arg(long, default_value = "100", value_parser = cli::rate)]
    pub rate: f64,
    /// Measured messages per case (default 300; 50 with --quick).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub count: Option<u64>,
    /// Only these modes (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub modes: Vec<Mode>,
    /// Only these payload sizes in bytes (comma-separated, 16 B to 1 GiB).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(16..=(1 << 30)))]
    pub payloads: Vec<u64>,
    /// Only these sweeps (comma-separated; default: payload, fan-out and throughput; the
    /// topics, subscribers and service sweeps run only when named).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub sweeps: Vec<Sweep>,
    /// Topic counts of the topics sweep (comma-separated; default 10,25,50,100,200).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub topics: Vec<u64>,
    /// Subscriber counts of the subscribers sweep (comma-separated, 1 to 32; default
    /// 1,2,4,8,16,32).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=topics::layout::MAX_SUBSCRIBERS as u64))]
    pub subscribers: Vec<u64>,
    /// Measured seconds of each case of the topics and subscribers sweeps (after 2 s of
    /// warm-up).
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u64).range(1..=600))]
    pub seconds: u64,
    /// Soak instead of sweeping: run this many seconds (7 MB clouds at 15 Hz, two subscribers,
    /// one SIGKILLed and restarted every --restart-every), sampling memory and /dev/shm; writes
    /// soak.md and soak.json, exits 1 on a loss or growth (docs/RELIABILITY.md).
    #[arg(long, value_name = "SECONDS", value_parser = cli::positive_seconds)]
    pub soak: Option<Duration>,
    /// Rounds of the payload sweep: every mode at every size, then again, so that ratios are
    /// taken per round and judged on their median (default 3; 1 with --quick).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: Option<u64>,
    /// Write every measured message's timestamps of the topics and subscribers sweeps into
    /// `<out>/trace/<case>/`: per node, when each message was stamped and when its publish call
    /// returned, when each arrived and on which thread (to split a tail into its parts with a
    /// scheduler trace and docs/bench/decompose.py).
    #[arg(long)]
    pub trace: bool,
    /// With --soak: seconds between two kills of the restarted subscriber.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = cli::positive_seconds)]
    pub restart_every: Duration,
}

/// Runs the sweep and writes the reports, unless a signal stops it first: then its processes
/// are stopped (the program's `finish` waits for them and removes their segments), nothing is
/// written, and it exits 1.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    tokio::select! {
        result = sweep(&args) => result,
        signal = shutdown::signal() => {
            eprintln!("zshm bench: {} received: stopped the benchmark's processes; no report written", signal?);
            Ok(ExitCode::FAILURE)
        }
    }
}

async fn sweep(args: &Args) -> anyhow::Result<ExitCode> {
    let exe =
        std::env::current_exe().context("cannot find this program to start the benchmark's processes")?;
    if let Some(duration) = args.soak {
        return soak::run(&exe, &args.out, duration, args.restart_every).await;
    }
    let processes = process_program(&exe).clone().unwrap_or_else(|why| {
        eprintln!(
            "zshm bench: {PROCESS_PROGRAM} {why}: the cases run in {}, and each node's memory \
             includes the pages of the router, bridge and Foxglove code around the node's",
            exe.display()
        );
        exe.clone()
    });
    let plan = plan_from(args);
    let cases = plan.cases();
    let topics_plans: Vec<topics::TopicsPlan> = [topics::Axis::Topics, topics::Axis::Subscribers]
        .into_iter()
        .filter_map(|axis| topics_plan_from(args, axis))
        .collect();
    let topics_cases: Vec<_> = topics_plans.iter().flat_map(topics::TopicsPlan::cases).collect();
    let service_plan = service_plan_from(args);
    let service_cases = service_plan
        .as_ref()
        .map_or_else(Vec::new, service::ServicePlan::cases);
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;

    let mut router = start_router(&exe, &["--no-metrics"], Logs::Hidden).await?;
    let locator = router.locator.clone();

    let progress =
        indicatif::ProgressBar::new((cases.len() + topics_cases.len() + service_cases.len()) as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut results = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        progress.set_message(format!(
            "round {} {} {} x{} sub",
            case.round + 1,
            case.mode,
            zshm::internal::text::human_bytes(case.payload as u64),
            case.subscribers
        ));
        let result = match run_case(
            &processes,
            &locator,
            &format!("c{index}p{}", std::process::id()),
            case,
        )
        .await
        {
            Ok(result) => result,
            Err(err) => CaseResult::failed(case.clone(), format!("{err:#}")),
        };
        if let Some(error) = &result.error {
            progress.println(format!("{} {}: {error}", case.mode, case.payload));
        }
        results.push(result);
        progress.inc(1);
    }
    let mut topics_results = Vec::new();
    for (index, case) in topics_cases.iter().enumerate() {
        let point = format!("{}={}", case.axis.symbol(), case.x());
        progress.set_message(format!("round {} {} {point}", case.round + 1, case.mode));
        let id = format!("k{index}p{}", std::process::id());
        let trace = args.trace.then(|| args.out.join("trace").join(case.trace_name()));
        let result = topics::run_case(&processes, &locator, &id, case, trace.as_deref()).await;
        if let Some(error) = &result.error {
            progress.println(format!("{} {point}: {error}", case.mode));
        }
        topics_results.push(result);
        progress.inc(1);
    }
    let mut service_results = Vec::new();
    for (index, case) in service_cases.iter().enumerate() {
        progress.set_message(format!(
            "round {} service {} {}",
            case.round + 1,
            case.mode,
            zshm::internal::text::human_bytes(case.payload as u64)
        ));
        let id = format!("s{index}p{}", std::process::id());
        let result = service::run_case(&processes, &locator, &id, case).await;
        if let Some(error) = &result.error {
            progress.println(format!("service {} {}: {error}", case.mode, case.payload));
        }
        service_results.push(result);
        progress.inc(1);
    }
    progress.finish_and_clear();
    stop(&mut router.child).await;

    let command = std::iter::once("zshm".to_owned())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let mut files = Vec::new();
    if !results.is_empty() {
        let markdown = report::write_all(&args.out, &results, &command, &targets::table(&results))?;
        plot::write_all(&args.out, &results)?;
        outln!("{markdown}");
        files.push(
            "results.md, results.csv, results.json, latency_vs_payload.svg, latency_vs_subscribers.svg",
        );
    }
    let mut topics_files = Vec::new();
    for plan in &topics_plans {
        let results: Vec<_> = topics_results
            .iter()
            .filter(|r: &&topics::report::TopicsResult| r.case.axis == plan.axis)
            .cloned()
            .collect();
        let markdown = topics::write_all(&args.out, plan.axis, &results, &command)?;
        outln!("{markdown}");
        topics_files.push(topics::files(plan.axis));
    }
    files.extend(topics_files.iter().map(String::as_str));
    if service_plan.is_some() {
        let markdown = service::write_all(&args.out, &service_results, &command)?;
        outln!("{markdown}");
        files.push("service.md, service.json");
    }
    outln!("Results in {}: {}", args.out.display(), files.join(", "));
    Ok(ExitCode::SUCCESS)
}

/// The program of the cases' processes, beside `zshm` (`cargo build` and `cargo install` make
/// both).
const PROCESS_PROGRAM: &str = "zshm-bench-node";

/// What runs the cases' processes: [`PROCESS_PROGRAM`] beside `exe`, built from the `zshm`
/// library and the benchmark's node code alone, so that a node's threads, memory and code pages
/// are what a user's node built on the library has. When it is missing or from another build,
/// `exe` itself, and why. Decided once per run, so that the terminal and the reports agree.
fn process_program(exe: &Path) -> &'static Result<PathBuf, String> {
    static DECIDED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DECIDED.get_or_init(|| same_build_process_program(exe))
}

/// [`PROCESS_PROGRAM`] beside `exe` if its `--version` names this build. The build is a digest
/// of the sources (build.rs), not a file time: an optimised build may link the two programs
/// minutes apart, and `cargo run --bin zshm` leaves an older one beside a newer `zshm`.
fn same_build_process_program(exe: &Path) -> Result<PathBuf, String> {
    let lean = exe.with_file_name(PROCESS_PROGRAM);
    if !lean.is_file() {
        return Err("is not beside it".to_owned());
    }
    let output = std::process::Command::new(&lean)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|error| format!("beside it cannot be run ({error})"))?;
    let printed = String::from_utf8_lossy(&output.stdout);
    let printed = printed.trim();
    if output.status.success() && printed == format!("{PROCESS_PROGRAM} {}", crate::cli::VERSION) {
        Ok(lean)
    } else {
        Err(format!(
            "beside it is from another build (it says `{printed}`, this is `zshm {}`; `cargo build` \
             makes both, `cargo run` only `zshm`)",
            crate::cli::VERSION
        ))
    }
}

/// The report's words for [`process_program`].
fn processes_note() -> String {
    match std::env::current_exe().map(|exe| process_program(&exe)) {
        Ok(Ok(_)) => format!("The cases' processes ran as `{PROCESS_PROGRAM}`"),
        Ok(Err(why)) => format!("The cases' processes ran as `zshm` ({PROCESS_PROGRAM} {why})"),
        Err(_) => "The cases' processes ran as `zshm`".to_owned(),
    }
}

/// The topics or subscribers sweep, when `--sweeps` names it.
fn topics_plan_from(args: &Args, axis: topics::Axis) -> Option<topics::TopicsPlan> {
    let (sweep, given, default) = match axis {
        topics::Axis::Topics => (Sweep::Topics, &args.topics, &topics::layout::TOPIC_COUNTS[..]),
        topics::Axis::Subscribers => (
            Sweep::Subscribers,
            &args.subscribers,
            &topics::layout::SUBSCRIBER_COUNTS[..],
        ),
    };
    if !args.sweeps.contains(&sweep) {
        return None;
    }
    let modes = if args.modes.is_empty() {
        topics::MODES.to_vec()
    } else {
        args.modes.clone()
    };
    let points = if given.is_empty() {
        default.to_vec()
    } else {
        given.iter().map(|&x| x as usize).collect()
    };
    Some(topics::TopicsPlan {
        axis,
        modes,
        points,
        rounds: args.rounds.map_or(if args.quick { 1 } else { 3 }, |r| r as usize),
        seconds: args.seconds,
    })
}

/// The service sweep, when `--sweeps` names it (`--modes`, `--payloads`, `--count` and
/// `--rounds` apply to it too).
fn service_plan_from(args: &Args) -> Option<service::ServicePlan> {
    if !args.sweeps.contains(&Sweep::Service) {
        return None;
    }
    Some(service::ServicePlan {
        modes: if args.modes.is_empty() {
            service::MODES.to_vec()
        } else {
            args.modes.clone()
        },
        payloads: if args.payloads.is_empty() {
            service::PAYLOADS.to_vec()
        } else {
            args.payloads.iter().map(|&p| p as usize).collect()
        },
        rounds: args.rounds.map_or(if args.quick { 1 } else { 3 }, |r| r as usize),
        count: args.count.unwrap_or(if args.quick { 50 } else { 300 }),
    })
}

fn plan_from(args: &Args) -> Plan {
    let modes = vec![
        Mode::Tcp,
        Mode::ShmCopy,
        Mode::ShmLoan,
        Mode::TcpInline,
        Mode::ShmInline,
        Mode::Lane,
        Mode::ZenohTcp,
        Mode::ZenohShm,
        Mode::Iceoryx2,
    ];
    let mut plan = if args.quick {
        Plan {
            modes,
            payloads: vec![64, 4 << 10, 64 << 10],
            fan_out: vec![1, 2],
            rate: 100.0,
            count: 50,
            throughput: true,
            payload_sweep: true,
            rounds: 1,
        }
    } else {
        Plan {
            modes,
            payloads: PAYLOADS.to_vec(),
            fan_out: FAN_OUT.to_vec(),
            rate: args.rate,
            count: 300,
            throughput: true,
            payload_sweep: true,
            rounds: 3,
        }
    };
    if let Some(rounds) = args.rounds {
        plan.rounds = rounds as usize;
    }
    if !args.modes.is_empty() {
        plan.modes = args.modes.clone();
    }
    if !args.payloads.is_empty() {
        plan.payloads = args.payloads.iter().map(|&p| p as usize).collect();
    }
    if let Some(count) = args.count {
        plan.count = count;
    }
    if !args.sweeps.is_empty() {
        plan.payload_sweep = args.sweeps.contains(&Sweep::Payload);
        if !args.sweeps.contains(&Sweep::FanOut) {
            plan.fan_out.clear();
        }
        plan.throughput = args.sweeps.contains(&Sweep::Throughput);
    }
    plan
}

/// Runs one case: its subscribers, then its publisher, and gathers their reports.
async fn run_case(exe: &Path, locator: &str, id: &str, case: &Case) -> anyhow::Result<CaseResult> {
    let payload = case.payload.to_string();
    let (count, warmup, rate, subscribers) = (
        case.count.to_string(),
        case.warmup.to_string(),
        case.rate.to_string(),
        case.subscribers.to_string(),
    );
    // Messages spend ~1/rate each; leave room for slow TCP at 16 MiB.
    let expected = if case.rate > 0.0 {
        (case.count + case.warmup) as f64 / case.rate
    } else {
        10.0
    };
    let timeout = (expected * 3.0 + 30.0).to_string();
    let common = [
        "bench-role",
        "--mode",
        case.mode.name(),
        "--case",
        id,
        "--payload",
        &payload,
        "--count",
        &count,
        "--warmup",
        &warmup,
        "--rate",
        &rate,
        "--subscribers",
        &subscribers,
        "-e",
        locator,
        "--timeout",
        &timeout,
    ];
    // Pools hold 8 messages of the case's size.
    let pool = (8 * case.payload + (1 << 20)).max(64 << 20).to_string();
    let env = shared::mode_env(case.mode, &pool);

    let mut subs = Vec::new();
    for _ in 0..case.subscribers {
        let mut sub = spawn(exe, &common, &env, Logs::Hidden)?;
        first_line_matching(&mut sub, |l| l == "ready", "ready line")
            .await
            .context("a subscriber did not start")?;
        subs.push(sub);
    }
    let mut publisher = spawn(exe, &[&common[..], &["--publisher"]].concat(), &env, Logs::Hidden)?;
    let wait = Duration::from_secs_f64(expected * 3.0 + 60.0);
    let pub_line = last_json_line(&mut publisher, wait)
        .await
        .context("the publisher did not finish")?;
    let pub_report: PubReport = serde_json::from_str(&pub_line).context("the publisher's report")?;
    let mut sub_reports = Vec::new();
    for sub in &mut subs {
        let line = last_json_line(sub, Duration::from_secs(30))
            .await
            .context("a subscriber did not finish")?;
        sub_reports.push(serde_json::from_str::<SubReport>(&line).context("a subscriber's report")?);
    }
    Ok(CaseResult::from_reports(case.clone(), &pub_report, &sub_reports))
}
