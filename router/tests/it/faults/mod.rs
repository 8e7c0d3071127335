//! The fault matrix of docs/RELIABILITY.md (issue 11): crashes, stalls, full memory and signals,
//! each with real processes and outcomes asserted: messages counted, segments counted in a
//! private /dev/shm, processes that must be gone, exit codes. Each test cleans up after itself
//! (process guards, a namespace that vanishes with its last process).

// SIGKILL of a subscriber, a publisher, the router; a node started before the router.
mod crash;
// A slow subscriber at 4 MiB x 30 Hz.
mod slow;
// The SHM pool exhausted, /dev/shm full, stale segments after crashes.
mod memory;
// SIGINT and SIGTERM to every long-running command; demo and bench when a child dies or they do.
mod signals;
// The 60-second version of the soak (`zshm bench --soak`).
mod soak;
// A service server starved of CPU while 4 MiB requests and replies go through shared memory.
mod starved;

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::namespace::PrivateShm;
use crate::support::{DEADLINE, Proc, Router};

/// A router listening on `listen` (e.g. `tcp/127.0.0.1:0`) in the namespace, without metrics.
fn router_in(ns: &PrivateShm, listen: &str) -> Router {
    Router::started(
        ns.zshm("router", &["router", "-l", listen, "--no-metrics"])
            .start(),
    )
}

/// The JSON objects a process printed so far.
fn json_lines(proc: &Proc) -> Vec<Value> {
    proc.stdout()
        .iter()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `cam-latency` on `locator`, printing a JSON window every second, for far longer than a test.
fn windowed_probe(locator: &str) -> [&str; 8] {
    [
        "cam-latency",
        "-e",
        locator,
        "--json",
        "--window",
        "1",
        "--duration",
        "600",
    ]
}

/// The windows `cam-latency --json` printed so far (not the final summary).
fn windows(probe: &Proc) -> Vec<Value> {
    json_lines(probe)
        .into_iter()
        .filter(|w| w["final"] == false)
        .collect()
}

/// Samples counted in `windows`.
fn received(windows: &[Value]) -> u64 {
    windows.iter().map(|w| w["received"].as_u64().unwrap()).sum()
}

/// Polls `probe` until `done` holds for its windows; panics with its output after [`DEADLINE`].
fn wait_for_windows(probe: &Proc, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let now = windows(probe);
        if done(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "{what}\n{}", probe.dump());
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A loopback port that was free a moment ago (for a router that must come back on the same
/// port; the tiny race with another process is accepted).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
