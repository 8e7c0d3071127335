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

use std::sync::atomic::{AtomicU32, Ordering};
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
    // Below the kernel's ephemeral range, which sockets bound to port 0 draw from: a port taken
    // from that range, freed, and used later by a router can be handed meanwhile to any socket
    // bound to port 0, the node under test's own listener included (seen once beside two busy
    // loops: the listener got the port meant for the router, which then could not start).
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u32>().ok())
        .unwrap_or(32768);
    let base = 10_000.min(ephemeral_low / 2);
    let span = ephemeral_low - base;
    let start = std::process::id() % span;
    for _ in 0..span {
        let port = base + (start + NEXT.fetch_add(1, Ordering::Relaxed)) % span;
        let port = u16::try_from(port).expect("ports are below 65536");
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port below the ephemeral range (from {ephemeral_low})");
}
