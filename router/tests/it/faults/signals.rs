//! SIGINT and SIGTERM to every long-running command, sent to the process alone (as `kill PID` or
//! systemd would; a terminal's Ctrl-C reaches the whole group): each exits within a bounded time
//! with its documented code, leaves no process in its group (the children of demo and bench
//! included), and leaves in /dev/shm at most its documented leftovers. Then the orchestrators'
//! harder cases: a child dying mid-phase, and the orchestrator itself SIGKILLed.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use super::router_in;
use crate::support::namespace::{PrivateShm, Segment};
use crate::support::procfs::{group_is_empty, wait_for_child};
use crate::support::{DEADLINE, Proc};

/// The bound on stopping: generous for a loaded machine; a healthy stop takes about a second.
const STOP_WITHIN: Duration = Duration::from_secs(40);

/// What a process may leave in /dev/shm after a clean exit (docs/RELIABILITY.md): zenoh's 12 KiB
/// segment, and the 1.25 MiB metadata segment of a process that loaned from its pool. The next
/// zenoh process to start removes them.
const LEFTOVER_BYTES: u64 = 1536 << 10;

/// When a command is ready for the signal.
enum Ready {
    Stdout(&'static str),
    Stderr(&'static str),
    /// It started a child whose command line contains this.
    Child(&'static str),
}

fn wait_ready(proc: &Proc, ready: &Ready) {
    match ready {
        Ready::Stdout(prefix) => {
            proc.wait_for_stdout(prefix, |l| l.trim_start().starts_with(prefix));
        }
        Ready::Stderr(needle) => {
            proc.wait_for_stderr(needle, |l| l.contains(needle));
        }
        Ready::Child(needle) => {
            wait_for_child(proc.pid(), needle, DEADLINE);
        }
    }
}

/// Runs `zshm <args>` in `ns` until `ready`, sends `signal` to it alone, and checks how it ends.
fn stops_cleanly(ns: &PrivateShm, args: &[&str], ready: Ready, signal: Signal, code: i32) {
    let baseline = ns.segments();
    let mut proc = ns.zshm(args[0], args).start();
    wait_ready(&proc, &ready);
    proc.signal_process(signal);
    let (got, took) = proc.wait_exit_within(STOP_WITHIN);
    assert_eq!(got, code, "zshm {args:?} on {signal}\n{}", proc.dump());
    assert!(!proc.stderr().contains("panicked"), "{}", proc.dump());
    assert!(
        group_is_empty(proc.pid()),
        "zshm {args:?}: processes left in its group"
    );
    let left: Vec<Segment> = ns
        .segments()
        .into_iter()
        .filter(|s| !baseline.contains(s))
        .collect();
    let bytes: u64 = left.iter().map(|s| s.bytes).sum();
    assert!(
        bytes <= LEFTOVER_BYTES,
        "zshm {args:?} on {signal} (stopped in {took:?}) left {left:?}"
    );
}

/// Both signals, each on a fresh run.
fn stops_cleanly_on_both(ns: &PrivateShm, args: &[&str], ready: Ready, code: i32) {
    stops_cleanly(ns, args, clone(&ready), Signal::SIGINT, code);
    stops_cleanly(ns, args, ready, Signal::SIGTERM, code);
}

fn clone(ready: &Ready) -> Ready {
    match ready {
        Ready::Stdout(s) => Ready::Stdout(s),
        Ready::Stderr(s) => Ready::Stderr(s),
        Ready::Child(s) => Ready::Child(s),
    }
}

/// Nothing listens there: nodes warn that no router was found and go on.
const NOWHERE: &str = "tcp/127.0.0.1:9";

#[test]
fn router_exporter_and_traffic_stop_on_sigint_and_sigterm() {
    let ns = PrivateShm::new("512m");
    let router_args = ["router", "-l", "tcp/127.0.0.1:0", "--no-metrics"];
    stops_cleanly_on_both(&ns, &router_args, Ready::Stdout("zshm router: listening"), 0);
    let router = crate::support::Router::started(
        ns.zshm(
            "router",
            &["router", "-l", "tcp/127.0.0.1:0", "--metrics", "127.0.0.1:0"],
        )
        .start(),
    );
    let exporter = ["exporter", "-e", &router.locator, "--metrics", "127.0.0.1:0"];
    stops_cleanly_on_both(&ns, &exporter, Ready::Stdout("zshm exporter: metrics at"), 0);
    let traffic = ["traffic", "--url", &router.metrics, "--interval", "0.2"];
    stops_cleanly_on_both(&ns, &traffic, Ready::Stdout("loopback "), 0);
}

#[test]
fn nodes_stop_on_sigint_and_sigterm() {
    let ns = PrivateShm::new("512m");
    stops_cleanly_on_both(&ns, &["talker", "-e", NOWHERE], Ready::Stdout("Publishing:"), 0);
    stops_cleanly_on_both(&ns, &["listener", "-e", NOWHERE], Ready::Stderr("listening"), 0);
    let camera = ["cam-pub", "-e", NOWHERE, "--report", "0.5"];
    stops_cleanly_on_both(&ns, &camera, Ready::Stdout("cam-pub: "), 0);
    stops_cleanly_on_both(
        &ns,
        &["cam-latency", "-e", NOWHERE],
        Ready::Stderr("measuring"),
        0,
    );
}

#[test]
fn raw_pub_and_sub_stop_on_sigint_and_sigterm_and_say_they_did_not_finish() {
    let ns = PrivateShm::new("512m");
    stops_cleanly_on_both(
        &ns,
        &["pub", "-e", NOWHERE],
        Ready::Stderr("waiting for a subscriber"),
        1,
    );
    stops_cleanly_on_both(&ns, &["sub", "-e", NOWHERE], Ready::Stderr("subscribed"), 1);
}

#[test]
fn bench_roles_stop_on_sigint_and_sigterm() {
    let ns = PrivateShm::new("512m");
    let role = [
        "bench-role",
        "--mode",
        "shm-loan",
        "--case",
        "signals",
        "--payload",
        "64",
        "--count",
        "10",
        "--warmup",
        "0",
        "--rate",
        "10",
        "-e",
        NOWHERE,
        "--timeout",
        "600",
    ];
    stops_cleanly_on_both(&ns, &role, Ready::Stdout("ready"), 0);
    stops_cleanly_on_both(
        &ns,
        &[&role[..], &["--publisher"]].concat(),
        Ready::Stderr("waiting for the subscribers"),
        1,
    );
}

/// Regression test for issue 11 ("demo and bench never wait on the first signal"): each stops
/// its children and removes every segment they had.
#[test]
fn demo_and_bench_stop_their_children_on_sigint_and_sigterm() {
    let ns = PrivateShm::new("1g");
    stops_cleanly_on_both(
        &ns,
        &["demo", "--duration", "60"],
        Ready::Stdout("measuring for"),
        1,
    );
    assert_eq!(ns.segments(), [], "demo removes its children's segments");
    let out = tempfile::tempdir().unwrap();
    let out = out.path().display().to_string();
    let bench = ["bench", "--quick", "--out", &out];
    stops_cleanly_on_both(&ns, &bench, Ready::Child("bench-role"), 1);
    assert_eq!(ns.segments(), [], "bench removes its children's segments");
}

/// Regression test for issue 11 ("the second signal calls process::exit, which skips
/// destructors"): two signals in a row make demo kill its children at once, and it still removes
/// their segments before it exits.
#[test]
fn demo_on_a_second_signal_kills_its_children_at_once_and_still_cleans_up() {
    let ns = PrivateShm::new("1g");
    let mut demo = ns.zshm("demo", &["demo", "--duration", "60"]).start();
    demo.wait_for_stdout("phase 2", |l| l.starts_with("Phase 2/3"));
    wait_for_child(demo.pid(), "cam-pub", DEADLINE);
    demo.signal_process(Signal::SIGINT);
    demo.signal_process(Signal::SIGTERM);
    let (code, _) = demo.wait_exit_within(STOP_WITHIN);
    assert!(code == 1 || code == 130, "{}", demo.dump());
    // A probe whose stdout demo stopped reading once printed into the closed pipe and panicked.
    assert!(!demo.stderr().contains("panicked"), "{}", demo.dump());
    assert!(group_is_empty(demo.pid()), "a child of demo is still running");
    assert_eq!(ns.segments(), [], "{}", demo.dump());
}

/// A reader that goes away (`zshm talker | head -n 3`) stops the command the way SIGTERM does:
/// exit 0, no panic (`println!` used to panic on the closed pipe, exit 101).
#[test]
fn a_closed_stdout_stops_a_printing_command_cleanly() {
    let script = format!(
        "{} talker -e {NOWHERE} --rate 20 | head -n 3; echo \"talker exit ${{PIPESTATUS[0]}}\"",
        crate::support::ZSHM
    );
    let mut shell = crate::support::Spawn::program("talker | head", "bash", &["-c", &script]).start();
    let (code, _) = shell.wait_exit_within(STOP_WITHIN);
    assert_eq!(code, 0, "{}", shell.dump());
    assert_eq!(shell.stdout().len(), 4, "{}", shell.dump());
    assert_eq!(shell.stdout()[3], "talker exit 0", "{}", shell.dump());
    assert!(!shell.stderr().contains("panicked"), "{}", shell.dump());
}

/// Regression test for issue 11 ("SHM leaks on error paths"): the camera dies in the shared-memory
/// phase, demo fails, and stops the router and the probe gently (a SIGKILL would leave their
/// pools), then removes every segment, the dead camera's included.
#[test]
fn demo_whose_camera_dies_mid_phase_fails_and_leaves_nothing() {
    let ns = PrivateShm::new("1g");
    let mut demo = ns.zshm("demo", &["demo", "--duration", "4"]).start();
    // Phase 2, where every process has a pool in /dev/shm.
    demo.wait_for_stdout("phase 2", |l| l.starts_with("Phase 2/3"));
    let camera = wait_for_child(demo.pid(), "cam-pub", DEADLINE);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(camera as i32), Signal::SIGKILL).unwrap();
    let (code, _) = demo.wait_exit_within(DEADLINE);
    assert_eq!(code, 1, "{}", demo.dump());
    assert!(demo.stderr().contains("zshm: error:"), "{}", demo.dump());
    assert!(group_is_empty(demo.pid()), "a child of demo is still running");
    assert_eq!(ns.segments(), [], "{}", demo.dump());
}

/// Regression test for issue 11 ("children can outlive the parent"): demo SIGKILLed mid-phase;
/// its children stop on their own (they asked for SIGTERM when their parent dies), each leaving
/// at most its small leftovers, none its pool.
#[test]
fn a_demo_killed_with_sigkill_leaves_no_process_and_no_pool_behind() {
    let ns = PrivateShm::new("1g");
    let mut demo = ns.zshm("demo", &["demo", "--duration", "60"]).start();
    demo.wait_for_stdout("phase 1", |l| l.trim_start().starts_with("measuring for"));
    demo.signal_process(Signal::SIGKILL);
    demo.wait_exit();
    let deadline = Instant::now() + STOP_WITHIN;
    while !group_is_empty(demo.pid()) {
        assert!(Instant::now() < deadline, "demo's children outlived it");
        std::thread::sleep(Duration::from_millis(100));
    }
    let left = ns.segments();
    assert!(left.iter().all(|s| s.bytes <= LEFTOVER_BYTES), "{left:?}");
    let _router = router_in(&ns, "tcp/127.0.0.1:0");
    assert!(
        ns.segments().iter().all(|s| !left.contains(s)),
        "the next start removes them"
    );
}
