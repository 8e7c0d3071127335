//! `zshm bridge` against an independent DDS implementation: Eclipse Cyclone DDS through its
//! Python binding (PyPI `cyclonedds`, `router/tests/interop/dds_peer.py`), which speaks ROS 2's
//! DDS names and types as rmw_cyclonedds_cpp does. On the zenoh side, zshm's talker and listener
//! and the independent rmw_zenoh peer.
//!
//! DDS discovers by multicast: every test runs all its processes (router, bridge, peers) inside a
//! network namespace of its own, whose only interface is a loopback with multicast on, so no
//! discovery packet can reach the machine's network, and tests running side by side do not see
//! each other. The namespace is deleted when the test ends, also when it fails.
//!
//! The tests are grouped by what they show: [`topics`], [`filters`] (what is not bridged, and
//! why), [`services`], [`lifecycle`] (restarts, several bridges), [`graph`] (node names, the
//! doctor, the dashboard), and [`fastdds`]: real ROS 2 Jazzy nodes (rclpy on rmw_fastrtps_cpp,
//! ROS 2's default middleware) through the bridge.

mod fastdds;
mod filters;
mod graph;
mod lifecycle;
mod services;
mod topics;

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use crate::support::{DEADLINE, Proc, Router, Spawn, repo_path};

fn python() -> String {
    let python = std::env::var("ZSHM_PYTHON").unwrap_or_else(|_| repo_path(".venv/bin/python"));
    assert!(
        std::path::Path::new(&python).exists(),
        "no Python environment at {python}: run tools/test.sh, or python3 -m venv .venv && \
         .venv/bin/pip install -r router/tests/interop/requirements.txt"
    );
    python
}

/// A network namespace with loopback only, multicast on (what DDS discovery needs); for the Fast
/// DDS tests also a private /dev/shm and, as on a robot, a veth pair DDS runs on.
struct Net {
    name: String,
    /// The address the bridge's DDS participant uses (`--dds-interface`).
    dds_address: String,
    /// The /dev/shm every process of the test shares, when private: Fast DDS's shared-memory
    /// transport finds its peers through segments there (a machine-wide /dev/shm would let two
    /// tests' Fast DDS nodes meet), and leaves segments and lock files that go with it.
    shm: Option<crate::support::namespace::PrivateShm>,
}

fn run(args: &[&str]) {
    let out = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Net {
    /// A namespace whose loopback interface is up and has multicast, as DDS needs.
    fn new() -> Self {
        Self::with_multicast(true)
    }

    /// A namespace with loopback up, its MULTICAST flag as asked.
    fn with_multicast(multicast: bool) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "zshm-bridge-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        run(&["ip", "netns", "add", &name]);
        let net = Self {
            name,
            dds_address: "127.0.0.1".into(),
            shm: None,
        };
        let setup = [
            &["link", "set", "lo", "up"][..],
            &["link", "set", "lo", "multicast", "on"],
            &["route", "add", "224.0.0.0/4", "dev", "lo"],
        ];
        for args in &setup[..if multicast { 3 } else { 1 }] {
            let mut all = vec!["ip", "-n", &net.name];
            all.extend_from_slice(args);
            run(&all);
        }
        net
    }

    /// A namespace for real ROS 2 nodes on Fast DDS: loopback only (Fast DDS then announces its
    /// shared-memory and 127.0.0.1 locators), and a private /dev/shm for them and everyone else.
    fn for_fast_dds() -> Self {
        let mut net = Self::new();
        net.shm = Some(crate::support::namespace::PrivateShm::new("2g"));
        net
    }

    /// As [`Net::for_fast_dds`], plus a veth pair with private test addresses (10.79.0.1/24 and
    /// 10.79.0.2/24, both ends in this namespace), multicast routed on it: DDS nodes announce
    /// those addresses, as on a robot's network, and the bridge runs on the first.
    fn for_fast_dds_on_veth() -> Self {
        let mut net = Self::for_fast_dds();
        let ip = |args: &[&str]| {
            let mut all = vec!["ip", "-n", &net.name];
            all.extend_from_slice(args);
            run(&all);
        };
        ip(&["route", "del", "224.0.0.0/4", "dev", "lo"]);
        ip(&["link", "add", "dds0", "type", "veth", "peer", "name", "dds1"]);
        for (link, address) in [("dds0", "10.79.0.1/24"), ("dds1", "10.79.0.2/24")] {
            ip(&["addr", "add", address, "dev", link]);
            ip(&["link", "set", link, "up"]);
        }
        ip(&["route", "add", "224.0.0.0/4", "dev", "dds0"]);
        net.dds_address = "10.79.0.1".into();
        net
    }

    fn wrapper(&self) -> Vec<String> {
        let mut wrapper = match &self.shm {
            Some(shm) => shm.wrapper(),
            None => Vec::new(),
        };
        wrapper.extend(["ip", "netns", "exec", &self.name].map(String::from));
        wrapper
    }

    /// `program <args>` in the namespace.
    fn program(&self, name: &str, program: &str, args: &[&str]) -> Spawn {
        let wrapper = self.wrapper();
        let mut all: Vec<&str> = wrapper[1..].iter().map(String::as_str).collect();
        all.push(program);
        all.extend_from_slice(args);
        Spawn::program(name, &wrapper[0], &all)
    }

    /// `zshm <args>` in the namespace.
    fn zshm(&self, name: &str, args: &[&str]) -> Spawn {
        Spawn::wrapped(name, &self.wrapper(), args)
    }

    /// The DDS peer in the namespace.
    fn dds(&self, name: &str, args: &[&str]) -> Spawn {
        let script = repo_path("router/tests/interop/dds_peer.py");
        let mut all = vec![script.as_str()];
        all.extend_from_slice(args);
        self.program(name, &python(), &all)
    }

    /// The rmw_zenoh peer in the namespace.
    fn rmw_zenoh(&self, name: &str, args: &[&str]) -> Spawn {
        let script = repo_path("router/tests/interop/rmw_zenoh_peer.py");
        let mut all = vec![script.as_str()];
        all.extend_from_slice(args);
        self.program(name, &python(), &all)
    }

    fn router(&self) -> Router {
        let spawn = self.zshm(
            "router",
            &["router", "-l", "tcp/127.0.0.1:0", "--metrics", "127.0.0.1:0"],
        );
        Router::launch(spawn, "tcp/127.0.0.1:")
    }

    /// A second router in the namespace, connected to `first` (another host's, as far as zenoh
    /// can tell).
    fn router_connected_to(&self, first: &Router) -> Router {
        let spawn = self.zshm(
            "second router",
            &[
                "router",
                "-l",
                "tcp/127.0.0.1:0",
                "-e",
                &first.locator,
                "--metrics",
                "127.0.0.1:0",
            ],
        );
        Router::launch(spawn, "tcp/127.0.0.1:")
    }

    /// `zshm bridge -e <router> <extra>`, once it said it started.
    fn bridge(&self, router: &Router, extra: &[&str]) -> Proc {
        let mut args = vec!["bridge", "-e", &router.locator];
        if self.dds_address != "127.0.0.1" {
            args.extend_from_slice(&["--dds-interface", &self.dds_address]);
        }
        args.extend_from_slice(extra);
        let bridge = self.zshm("bridge", &args).start();
        let start = format!("zshm bridge: DDS domain 0 on {}", self.dds_address);
        bridge.wait_for_stdout("start line", |l| l.starts_with(&start));
        bridge
    }

    /// The router's Prometheus text, fetched from inside the namespace.
    fn scrape(&self, router: &Router) -> String {
        let out = Command::new("ip")
            .args(["netns", "exec", &self.name, &python(), "-c"])
            .arg("import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())")
            .arg(&router.metrics)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// Scrapes until a sample of `name` with every one of `labels` (`key="value"`) has `value`.
    fn wait_for_metric(&self, router: &Router, name: &str, labels: &[&str], value: f64) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let text = self.scrape(router);
            let found = text.lines().any(|line| {
                line.strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('{'))
                    .and_then(|rest| rest.rsplit_once(' '))
                    .is_some_and(|(set, v)| {
                        labels.iter().all(|l| set.contains(l)) && v.parse::<f64>().ok() == Some(value)
                    })
            });
            if found {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no {name} {labels:?} = {value} in\n{}",
                text.lines()
                    .filter(|l| l.starts_with("zshm_bridge"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }

    /// Waits until `zshm topic info` counts `subscriptions` on `topic`.
    fn wait_for_subscriptions(&self, router: &Router, topic: &str, subscriptions: usize) {
        let wanted = format!("Subscription count: {subscriptions}");
        let deadline = Instant::now() + DEADLINE;
        loop {
            let mut info = self
                .zshm(
                    "topic info",
                    &["topic", "info", topic, "-e", &router.locator, "--timeout", "1"],
                )
                .start();
            info.wait_exit();
            if info.stdout().contains(&wanted) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "never {wanted} on {topic}\n{}",
                info.dump()
            );
        }
    }
}

/// DDS discovery traffic held back in a [`Net`] (an nftables rule in its namespace) while this
/// lives.
struct HeldBack<'n> {
    net: &'n Net,
}

impl Net {
    /// Drops, until the guard goes, every datagram of domain 0's discovery sent by multicast
    /// (port 7400) or to the participant with index `participant` (its discovery port,
    /// 7410 + 2 × index): that participant learns of no new endpoint meanwhile, while what
    /// endpoints send it directly still arrives.
    fn hold_back_discovery_to(&self, participant: u16) -> HeldBack<'_> {
        let port = 7410 + 2 * participant;
        let rules = format!(
            "add table inet zshm_test; \
             add chain inet zshm_test out {{ type filter hook output priority 0; }}; \
             add rule inet zshm_test out udp dport {{ 7400, {port} }} drop"
        );
        run(&["ip", "netns", "exec", &self.name, "nft", &rules]);
        HeldBack { net: self }
    }
}

impl Drop for HeldBack<'_> {
    fn drop(&mut self) {
        run(&[
            "ip",
            "netns",
            "exec",
            &self.net.name,
            "nft",
            "delete table inet zshm_test",
        ]);
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        // Every process of the test is stopped by then (each `Proc` is declared after the `Net`).
        let _ = Command::new("ip").args(["netns", "del", &self.name]).status();
    }
}

/// The CDR of std_msgs/String `text`, as ROS serializes it: header, length with the NUL, bytes.
fn string_cdr(text: &str) -> String {
    let mut cdr = vec![0, 1, 0, 0];
    cdr.extend_from_slice(&(text.len() as u32 + 1).to_le_bytes());
    cdr.extend_from_slice(text.as_bytes());
    cdr.push(0);
    cdr.iter().map(|b| format!("{b:02x}")).collect()
}

/// `hex` padded with zero bytes to a multiple of 4 bytes, as Cyclone DDS writes payloads.
fn padded(hex: &str) -> String {
    let mut hex = hex.to_owned();
    while !hex.len().is_multiple_of(8) {
        hex.push_str("00");
    }
    hex
}

/// Stops the bridge with SIGINT and returns its stdout, checking it exits 0 and removed every
/// route it had.
fn stop_bridge(mut bridge: Proc) -> Vec<String> {
    bridge.signal_process(nix::sys::signal::Signal::SIGINT);
    assert_eq!(bridge.wait_exit(), 0, "{}", bridge.dump());
    let lines = bridge.stdout();
    let up = lines.iter().filter(|l| l.starts_with("route up: ")).count();
    let down = lines.iter().filter(|l| l.starts_with("route down: ")).count();
    assert_eq!(up, down, "every route is removed on SIGINT\n{}", bridge.dump());
    assert!(!bridge.stderr().contains("panicked"), "{}", bridge.dump());
    lines
}

/// The number after `what` in a route-down summary: `…: 20 messages, 460 bytes, no drops`.
fn count_in(line: &str, what: &str) -> u64 {
    let words: Vec<&str> = line.split([' ', ',', '=']).filter(|w| !w.is_empty()).collect();
    match what {
        "messages" => words.windows(2).find(|w| w[1] == "messages"),
        _ => words.windows(2).find(|w| w[0] == what),
    }
    .and_then(|w| w[if what == "messages" { 0 } else { 1 }].parse().ok())
    .unwrap_or(0)
}

/// The number N of the last `I heard: [Hello World: N]` a listener printed.
fn last_heard(listener: &Proc) -> u64 {
    listener
        .stdout()
        .iter()
        .filter_map(|l| l.strip_prefix("I heard: [Hello World: "))
        .filter_map(|l| l.strip_suffix(']'))
        .filter_map(|n| n.parse().ok())
        .max()
        .unwrap_or(0)
}

/// N in a listener's line `I heard: [Hello World: N]`.
fn number_heard(line: &str) -> Option<u64> {
    line.strip_prefix("I heard: [Hello World: ")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// The numbers N of every `I heard: [Hello World: N]` a listener printed, in order.
fn heard_numbers(listener: &Proc) -> Vec<u64> {
    listener.stdout().iter().filter_map(|l| number_heard(l)).collect()
}

/// Asserts that `numbers` count up by one: no message twice, none lost, none out of order.
fn assert_consecutive(numbers: &[u64], what: &str) {
    for pair in numbers.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "{what}: {numbers:?}");
    }
}

/// Polls `done` every 50 ms until it holds, failing after the suite's deadline.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// How many of `proc`'s stdout lines start with `prefix`.
fn lines_starting(proc: &Proc, prefix: &str) -> usize {
    proc.stdout().iter().filter(|l| l.starts_with(prefix)).count()
}
