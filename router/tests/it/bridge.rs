//! `zshm bridge` against an independent DDS implementation: Eclipse Cyclone DDS through its
//! Python binding (PyPI `cyclonedds`, `router/tests/interop/dds_peer.py`), which speaks ROS 2's
//! DDS names and types as rmw_cyclonedds_cpp does. On the zenoh side, zshm's talker and listener
//! and the independent rmw_zenoh peer.
//!
//! DDS discovers by multicast: every test runs all its processes (router, bridge, peers) inside a
//! network namespace of its own, whose only interface is a loopback with multicast on, so no
//! discovery packet can reach the machine's network, and tests running side by side do not see
//! each other. The namespace is deleted when the test ends, also when it fails.

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

/// A network namespace with loopback only, multicast on (what DDS discovery needs).
struct Net {
    name: String,
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
        let net = Self { name };
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

    fn wrapper(&self) -> Vec<String> {
        ["ip", "netns", "exec", &self.name].map(String::from).to_vec()
    }

    /// `zshm <args>` in the namespace.
    fn zshm(&self, name: &str, args: &[&str]) -> Spawn {
        Spawn::wrapped(name, &self.wrapper(), args)
    }

    /// The DDS peer in the namespace.
    fn dds(&self, name: &str, args: &[&str]) -> Spawn {
        let script = repo_path("router/tests/interop/dds_peer.py");
        let python = python();
        let mut all = vec!["netns", "exec", &self.name, &python, &script];
        all.extend_from_slice(args);
        Spawn::program(name, "ip", &all)
    }

    /// The rmw_zenoh peer in the namespace.
    fn rmw_zenoh(&self, name: &str, args: &[&str]) -> Spawn {
        let script = repo_path("router/tests/interop/rmw_zenoh_peer.py");
        let python = python();
        let mut all = vec!["netns", "exec", &self.name, &python, &script];
        all.extend_from_slice(args);
        Spawn::program(name, "ip", &all)
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
        args.extend_from_slice(extra);
        let bridge = self.zshm("bridge", &args).start();
        bridge.wait_for_stdout("start line", |l| {
            l.starts_with("zshm bridge: DDS domain 0 on 127.0.0.1")
        });
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

#[test]
fn bridge_carries_a_dds_talker_to_zshm_and_rmw_zenoh_listeners_in_order_byte_exact() {
    let net = Net::new();
    let router = net.router();
    let listener = net
        .zshm("listener", &["listener", "-e", &router.locator, "-n", "20"])
        .start();
    listener.wait_for_stderr("listening", |l| l.contains("listening"));
    let receiver = net
        .rmw_zenoh(
            "rmw_zenoh receive",
            &[
                "receive",
                "--connect",
                &router.locator,
                "--type",
                "std_msgs/msg/String",
                "--count",
                "20",
            ],
        )
        .start();
    net.wait_for_subscriptions(&router, "/chatter", 2);
    let bridge = net.bridge(&router, &[]);
    let mut talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "20", "--rate", "50", "--linger", "60"],
        )
        .start();
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: "));
    assert_eq!(
        up,
        "route up: /chatter [std_msgs/msg/String] DDS -> zenoh (reliable, volatile; type hash from user data)"
    );

    // The graph shows the bridged publisher, as rmw_zenoh shows any publisher, on the bridge's
    // node.
    let deadline = Instant::now() + DEADLINE;
    loop {
        let mut info = net
            .zshm(
                "topic info",
                &["topic", "info", "/chatter", "-v", "-e", &router.locator],
            )
            .start();
        info.wait_exit();
        let text = info.stdout().join("\n");
        if text.contains("Publisher count: 1\n\nNode name: zshm_bridge\nNode namespace: /\nTopic type: std_msgs/msg/String\nTopic type hash: RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18\nEndpoint type: PUBLISHER") {
            break;
        }
        assert!(Instant::now() < deadline, "{}", info.dump());
    }
    let mut listener = listener;
    assert_eq!(listener.wait_exit(), 0, "{}", listener.dump());
    let heard: Vec<String> = listener
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with("I heard: "))
        .collect();
    let expected: Vec<String> = (1..=20).map(|i| format!("I heard: [Hello World: {i}]")).collect();
    assert_eq!(heard, expected, "every message, in order");

    // Cyclone DDS pads each payload to a multiple of 4 bytes (XCDR1 lets a writer do so and
    // says how many bytes in the options field); the bridge passes those bytes on as they came
    // (RustDDS does not hand over the option bytes, so they go out as zero, which readers
    // ignore). rosbags, in the rmw_zenoh peer, re-serializes without them and says so: that is
    // the only difference it may report.
    let mut receiver = receiver;
    receiver.wait_exit();
    let report = receiver.json();
    assert_eq!(report["received"], 20, "{report}");
    for error in report["errors"].as_array().unwrap() {
        let error = error.as_str().unwrap();
        let (again, payload) = error
            .strip_prefix("rosbags re-serialized ")
            .and_then(|rest| rest.split_once(" from "))
            .unwrap_or_else(|| panic!("not a padding difference: {error}"));
        let padding = payload.strip_prefix(again).unwrap_or("x");
        assert!(
            padding.len() <= 6 && padding.bytes().all(|b| b == b'0'),
            "{error}"
        );
    }
    let cdr: Vec<String> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["cdr"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = (1..=20)
        .map(|i| padded(&string_cdr(&format!("Hello World: {i}"))))
        .collect();
    assert_eq!(
        cdr, expected,
        "byte-exact, with a valid rmw_zenoh attachment: {report}"
    );

    talker.stop();
    let lines = stop_bridge(bridge);
    let down = lines.iter().find(|l| l.starts_with("route down: ")).unwrap();
    assert_eq!(count_in(down, "messages"), 20, "{down}");
}

#[test]
fn bridge_carries_a_zshm_talker_to_a_dds_reader_byte_exact_with_the_ros_type_name() {
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let mut reader = net
        .dds("dds listener", &["listener", "--count", "20", "--timeout", "100"])
        .start();
    reader.wait_for_stdout("listening", |l| l == "listening");
    let _talker = net
        .zshm(
            "talker",
            &[
                "talker",
                "-e",
                &router.locator,
                "-n",
                "20",
                "-r",
                "20",
                "--wait",
                "100",
            ],
        )
        .start();
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: "));
    assert_eq!(
        up,
        "route up: /chatter [std_msgs/msg/String] zenoh -> DDS (reliable, volatile; type hash from zenoh peer)"
    );
    assert_eq!(reader.wait_exit(), 0, "{}", reader.dump());
    let lines = reader.stdout();
    assert!(
        lines
            .iter()
            .any(|l| l == "matched rt/chatter std_msgs::msg::dds_::String_"),
        "the bridge's writer has ROS's DDS topic and type names\n{}",
        reader.dump()
    );
    let heard: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("heard "))
        .filter_map(|l| l.split(' ').next())
        .filter(|hex| hex.starts_with("0001"))
        .collect();
    let expected: Vec<String> = (1..=20)
        .map(|i| string_cdr(&format!("Hello World: {i}")))
        .collect();
    assert_eq!(heard, expected, "every message, in order, byte-exact");
    drop(_talker);
    stop_bridge(bridge);
}

#[test]
fn bridge_does_not_bridge_a_denied_topic() {
    let net = Net::new();
    let router = net.router();
    let denied = net
        .zshm(
            "denied listener",
            &["listener", "-e", &router.locator, "-t", "/secret"],
        )
        .start();
    let mut allowed = net
        .zshm(
            "allowed listener",
            &["listener", "-e", &router.locator, "-n", "5"],
        )
        .start();
    net.wait_for_subscriptions(&router, "/secret", 1);
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &["--deny", "publisher=^/secret$"]);
    let secret = net
        .dds(
            "dds secret talker",
            &[
                "talker",
                "--topic",
                "rt/secret",
                "--count",
                "40",
                "--rate",
                "20",
                "--no-wait",
                "--linger",
                "60",
            ],
        )
        .start();
    let _chatter = net
        .dds("dds talker", &["talker", "--count", "5", "--linger", "60"])
        .start();
    assert_eq!(allowed.wait_exit(), 0, "{}", allowed.dump());
    // The denied talker published all of its messages while the bridge ran.
    secret.wait_for_stdout("all sent", |l| l == "sent 40");
    bridge.wait_for_stderr("the denial", |l| l.contains("denied by the publisher filters"));
    let mut denied = denied;
    denied.signal_process(nix::sys::signal::Signal::SIGINT);
    denied.wait_exit();
    assert!(
        denied.stderr().contains("heard 0 messages"),
        "a denied topic is not bridged\n{}",
        denied.dump()
    );
    let lines = stop_bridge(bridge);
    assert!(
        lines.iter().all(|l| !l.contains("/secret")),
        "no route for the denied topic: {lines:?}"
    );
}

#[test]
fn bridge_caps_a_topic_at_its_max_frequency_and_counts_the_rest() {
    let net = Net::new();
    let router = net.router();
    let listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &["--max-frequency", "^/chatter$=2"]);
    let mut talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "50", "--rate", "25", "--linger", "1"],
        )
        .start();
    talker.wait_for_stdout("matched", |l| l == "matched");
    let started = Instant::now();
    assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
    // From the first message to the last, plus the linger: an upper bound of the time the cap
    // had to let messages through.
    let window = started.elapsed().as_secs_f64();
    let lines = stop_bridge(bridge);
    let down = lines
        .iter()
        .find(|l| l.starts_with("route down: "))
        .unwrap()
        .clone();
    let (forwarded, capped) = (count_in(&down, "messages"), count_in(&down, "max_frequency"));
    assert_eq!(
        forwarded + capped,
        50,
        "every message is forwarded or counted: {down}"
    );
    assert!(forwarded >= 1, "{down}");
    let bound = (window * 2.0).floor() as u64 + 1;
    assert!(
        forwarded <= bound,
        "{forwarded} forwarded in {window:.1} s at 2 Hz: {down}"
    );
    let mut listener = listener;
    listener.signal_process(nix::sys::signal::Signal::SIGINT);
    listener.wait_exit();
    let heard = listener
        .stdout()
        .iter()
        .filter(|l| l.starts_with("I heard: "))
        .count() as u64;
    assert_eq!(heard, forwarded, "{}", listener.dump());
}

#[test]
fn bridge_counts_and_logs_malformed_dds_samples_once_exports_the_counts_and_goes_on() {
    let net = Net::new();
    let router = net.router();
    let mut listener = net
        .zshm("listener", &["listener", "-e", &router.locator, "-n", "3"])
        .start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    let _talker = net
        .dds("dds malformed", &["malformed", "--count", "3", "--linger", "60"])
        .start();
    assert_eq!(
        listener.wait_exit(),
        0,
        "the good messages after the bad ones arrive\n{}",
        listener.dump()
    );
    let heard: Vec<String> = listener
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with("I heard: "))
        .collect();
    assert_eq!(
        heard,
        [
            "I heard: [Hello World: 1]",
            "I heard: [Hello World: 2]",
            "I heard: [Hello World: 3]"
        ]
    );
    // The exporter shows the route's counts, drops by reason; the route went with the listener
    // (it stopped after 3), and its counts stay.
    let route = ["topic=\"/chatter\"", "direction=\"dds_to_zenoh\""];
    net.wait_for_metric(&router, "zshm_bridge_route_up", &route, 0.0);
    net.wait_for_metric(&router, "zshm_bridge_messages_total", &route, 3.0);
    let malformed = [route[0], route[1], "reason=\"malformed_cdr\""];
    net.wait_for_metric(&router, "zshm_bridge_dropped_total", &malformed, 3.0);
    let stderr = bridge.stderr();
    let lines = stop_bridge(bridge);
    let down = lines.iter().find(|l| l.starts_with("route down: ")).unwrap();
    assert_eq!(count_in(down, "malformed_cdr"), 3, "{down}");
    assert_eq!(count_in(down, "messages"), 3, "{down}");
    assert_eq!(
        stderr.matches("reason=\"malformed_cdr\"").count(),
        1,
        "logged once:\n{stderr}"
    );
}

#[test]
fn bridge_lets_a_zshm_client_call_a_dds_server_with_cyclones_request_header() {
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let server = net
        .dds(
            "dds add server",
            &["add-server", "--count", "2", "--timeout", "100"],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    let mut client = net
        .zshm(
            "add-two-ints-client",
            &[
                "add-two-ints-client",
                "-a",
                "2",
                "-b",
                "3",
                "-e",
                &router.locator,
                "--timeout",
                "60",
            ],
        )
        .start();
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), bridge.dump());
    assert!(
        client.stdout().iter().any(|l| l == "Result of add_two_ints: 5"),
        "{}",
        client.dump()
    );
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: "));
    assert_eq!(
        up,
        "route up: /add_two_ints [example_interfaces/srv/AddTwoInts] zenoh clients -> DDS server (reliable, volatile; type hash from zenoh peer)"
    );
    // A second client, through `zshm service call`, gets its own reply (its own sequence number
    // under the bridge's header guid).
    let mut call = net
        .zshm(
            "service call",
            &[
                "service",
                "call",
                "/add_two_ints",
                "example_interfaces/srv/AddTwoInts",
                "{a: 40, b: 2}",
                "-e",
                &router.locator,
                "--json",
                "--timeout",
                "60",
            ],
        )
        .start();
    assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), bridge.dump());
    assert_eq!(call.json()["sum"], 42, "{}", call.dump());
    let mut server = server;
    assert_eq!(server.wait_exit(), 0, "{}", server.dump());
    assert_eq!(
        server
            .stdout()
            .into_iter()
            .filter(|l| l.starts_with("request "))
            .collect::<Vec<_>>(),
        ["request 2 3", "request 40 2"],
        "each request reached the DDS server once"
    );
    stop_bridge(bridge);
}

#[test]
fn bridge_lets_a_dds_client_call_a_zshm_server() {
    let net = Net::new();
    let router = net.router();
    let server = net
        .zshm(
            "add-two-ints-server",
            &["add-two-ints-server", "-e", &router.locator],
        )
        .start();
    let bridge = net.bridge(&router, &[]);
    let mut client = net
        .dds(
            "dds add client",
            &["add-client", "-a", "7", "-b", "8", "--timeout", "60"],
        )
        .start();
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), bridge.dump());
    assert_eq!(
        client.stdout().last().map(String::as_str),
        Some("sum 15"),
        "{}",
        client.dump()
    );
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: "));
    assert_eq!(
        up,
        "route up: /add_two_ints [example_interfaces/srv/AddTwoInts] DDS clients -> zenoh server (reliable, volatile; type hash from zenoh peer)"
    );
    server.wait_for_stdout("the request", |l| l.contains("a: 7 b: 8"));
    let lines = stop_bridge(bridge);
    let down = lines.iter().find(|l| l.starts_with("route down: ")).unwrap();
    assert_eq!(count_in(down, "messages"), 2, "one request, one reply: {down}");
}

#[test]
fn a_dds_server_that_never_answers_gives_the_zshm_caller_its_timeout() {
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let server = net
        .dds(
            "silent dds server",
            &[
                "add-server",
                "--silent",
                "--count",
                "1",
                "--timeout",
                "100",
                "--linger",
                "60",
            ],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    let mut client = net
        .zshm(
            "add-two-ints-client",
            &["add-two-ints-client", "-e", &router.locator, "--timeout", "20"],
        )
        .start();
    // The request reached the server (so the route and the wait were real), then the caller
    // gave up on its own timeout with a reason, and nothing hung.
    server.wait_for_stdout("the request", |l| l == "request 2 3");
    assert_eq!(client.wait_exit(), 1, "{}", client.dump());
    assert!(
        client
            .stderr()
            .contains("service /add_two_ints did not answer within 20s"),
        "{}",
        client.dump()
    );
    stop_bridge(bridge);
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

#[test]
fn a_bridge_killed_with_sigkill_leaves_nothing_declared_and_its_restart_brings_the_route_back() {
    let net = Net::new();
    let router = net.router();
    let listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let _talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "20", "--no-wait"],
        )
        .start();
    let first = net.bridge(&router, &[]);
    listener.wait_for_stdout("a bridged message", |l| l.starts_with("I heard: "));
    first.signal(nix::sys::signal::Signal::SIGKILL);
    let mut first = first;
    first.wait_exit();
    // zenoh drops a dead session's declarations with its link: no publisher is left behind.
    let deadline = Instant::now() + DEADLINE;
    loop {
        let mut info = net
            .zshm(
                "topic info",
                &["topic", "info", "/chatter", "-e", &router.locator],
            )
            .start();
        info.wait_exit();
        if info.stdout().iter().any(|l| l == "Publisher count: 0") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the killed bridge's publisher stays\n{}",
            info.dump()
        );
    }
    let before = last_heard(&listener);
    let second = net.bridge(&router, &[]);
    second.wait_for_stdout("the route again", |l| l.starts_with("route up: /chatter"));
    listener.wait_for_stdout("messages through the new bridge", |l| {
        l.strip_prefix("I heard: [Hello World: ")
            .and_then(|l| l.strip_suffix(']'))
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n > before)
    });
    stop_bridge(second);
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

#[test]
fn two_bridges_on_one_dds_domain_and_zenoh_network_carry_each_message_once_and_the_second_takes_over() {
    let net = Net::new();
    let first_router = net.router();
    let second_router = net.router_connected_to(&first_router);
    let first = net.bridge(&first_router, &[]);
    let second = net.bridge(&second_router, &[]);
    // The second sees the first on both sides: it stands by instead of bridging it all again.
    let standby = second.wait_for_stdout("standby", |l| l.starts_with("standby: bridge "));
    let listener = net
        .zshm("listener", &["listener", "-e", &second_router.locator])
        .start();
    let _dds_talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "20", "--no-wait"],
        )
        .start();
    let mut reader = net
        .dds(
            "dds listener",
            &[
                "listener",
                "--topic",
                "rt/echo",
                "--count",
                "20",
                "--timeout",
                "100",
            ],
        )
        .start();
    reader.wait_for_stdout("listening", |l| l == "listening");
    let _talker = net
        .zshm(
            "talker",
            &[
                "talker",
                "-e",
                &second_router.locator,
                "-t",
                "echo",
                "-n",
                "20",
                "-r",
                "20",
                "--wait",
                "100",
            ],
        )
        .start();

    // zenoh -> DDS: each of the 20 messages once, in order (a second route would interleave
    // copies, a loop would bring them back again and again).
    assert_eq!(reader.wait_exit(), 0, "{}", reader.dump());
    let heard: Vec<String> = reader
        .stdout()
        .iter()
        .filter_map(|l| l.strip_prefix("heard "))
        .filter_map(|l| l.split(' ').next())
        .filter(|hex| hex.starts_with("0001"))
        .map(str::to_owned)
        .collect();
    let expected: Vec<String> = (1..=20)
        .map(|i| string_cdr(&format!("Hello World: {i}")))
        .collect();
    assert_eq!(heard, expected, "every message once, in order\n{}", reader.dump());
    // DDS -> zenoh: 30 messages in a row, each once.
    let first_heard = number_heard(&listener.wait_for_stdout("a message", |l| number_heard(l).is_some()));
    listener.wait_for_stdout("30 messages", |l| number_heard(l) >= first_heard.map(|n| n + 29));
    assert_consecutive(&heard_numbers(&listener), "DDS -> zenoh with two bridges");
    assert!(
        !second.stdout().iter().any(|l| l.starts_with("route up: ")),
        "the standby bridge bridges nothing\n{}",
        second.dump()
    );

    // The first goes: the second takes the routes over.
    let first_lines = stop_bridge(first);
    assert!(
        first_lines.iter().any(|l| l.starts_with("route up: /chatter")),
        "{first_lines:?}"
    );
    let active = standby
        .strip_prefix("standby: bridge ")
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_owned();
    second.wait_for_stdout("taking over", |l| {
        l == format!("taking over: bridge {active} went")
    });
    second.wait_for_stdout("the route again", |l| l.starts_with("route up: /chatter"));
    let before = heard_numbers(&listener).len();
    let last = heard_numbers(&listener).last().copied().unwrap_or(0);
    listener.wait_for_stdout("20 more messages", |l| number_heard(l) >= Some(last + 20));
    let after_takeover = &heard_numbers(&listener)[before..];
    assert_consecutive(after_takeover, "DDS -> zenoh after the takeover");
    stop_bridge(second);
}

#[test]
fn bridge_serves_latched_topics_to_late_joiners_both_ways() {
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);

    // DDS -> zenoh: a latched DDS talker publishes before anyone listens.
    let talker = net
        .dds(
            "latched dds talker",
            &[
                "talker",
                "--topic",
                "rt/map",
                "--count",
                "3",
                "--no-wait",
                "--transient-local",
                "--depth",
                "3",
                "--linger",
                "100",
            ],
        )
        .start();
    talker.wait_for_stdout("sent", |l| l == "sent 3");
    // A volatile listener joins later: the route's DDS reader asks the writer for its history.
    let listener = net
        .zshm("listener", &["listener", "-e", &router.locator, "-t", "map"])
        .start();
    listener.wait_for_stdout("the third", |l| l == "I heard: [Hello World: 3]");
    assert_eq!(heard_numbers(&listener), vec![1, 2, 3], "{}", listener.dump());
    // A transient-local subscriber joins while the route is up: the bridge's own zenoh
    // publisher has kept the messages (nothing is published live any more).
    let mut echo = net
        .zshm(
            "late echo",
            &[
                "topic",
                "echo",
                "/map",
                "std_msgs/msg/String",
                "--once",
                "--json",
                "--qos-durability",
                "transient_local",
                "-e",
                &router.locator,
            ],
        )
        .start();
    assert_eq!(echo.wait_exit(), 0, "{}", echo.dump());
    assert_eq!(
        echo.stdout(),
        vec![r#"{"data":"Hello World: 1"}"#],
        "{}",
        echo.dump()
    );

    // zenoh -> DDS: a latched zshm publisher publishes before anyone listens.
    let _publisher = net
        .zshm(
            "latched pub",
            &[
                "topic",
                "pub",
                "/latched",
                "std_msgs/msg/String",
                "{data: latched}",
                "--times",
                "1",
                "-w",
                "false",
                "--qos-durability",
                "transient_local",
                "--qos-depth",
                "1",
                "--keep-alive",
                "100",
                "-e",
                &router.locator,
            ],
        )
        .start();
    _publisher.wait_for_stdout("published", |l| l.starts_with("publishing #1"));
    let latched = string_cdr("latched");
    for late in ["first late dds reader", "second late dds reader"] {
        let mut reader = net
            .dds(
                late,
                &[
                    "listener",
                    "--topic",
                    "rt/latched",
                    "--count",
                    "1",
                    "--transient-local",
                    "--timeout",
                    "60",
                ],
            )
            .start();
        assert_eq!(reader.wait_exit(), 0, "{}", reader.dump());
        let heard: Vec<String> = reader
            .stdout()
            .iter()
            .filter_map(|l| l.strip_prefix("heard "))
            .filter_map(|l| l.split(' ').next())
            .filter(|hex| hex.starts_with("0001"))
            .map(str::to_owned)
            .collect();
        assert_eq!(heard, vec![latched.clone()], "{late}\n{}", reader.dump());
    }
    drop(talker);
    drop(listener);
    stop_bridge(bridge);
}

#[test]
fn bridge_carries_7_mb_dds_clouds_to_cam_latency_through_shared_memory_every_one_byte_exact() {
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    // `--verify` checks each cloud's layout and every byte of its data against the pattern the
    // DDS camera writes; any mismatch makes the probe fail.
    let mut probe = net
        .zshm(
            "cam-latency",
            &[
                "cam-latency",
                "-e",
                &router.locator,
                "-n",
                "30",
                "--verify",
                "--window",
                "1",
                "--timeout",
                "60",
            ],
        )
        .start();
    net.wait_for_subscriptions(&router, "/camera/points", 1);
    // Reliable keep-all end to end: the DDS writer keeps every cloud until the bridge acked it,
    // the bridge's zenoh publisher blocks rather than drops.
    let mut camera = net
        .dds(
            "dds camera",
            &[
                "cloud",
                "--topic",
                "rt/camera/points",
                "--count",
                "30",
                "--rate",
                "15",
                "--keep-all",
                "--timeout",
                "60",
            ],
        )
        .start();
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    let lines = probe.stdout();
    let summary = lines
        .iter()
        .position(|l| l.starts_with("Summary over "))
        .unwrap_or_else(|| panic!("a summary\n{}", probe.dump()));
    let details = &lines[summary + 1];
    for part in [
        "n=30 ",
        " lost=0 ",
        " invalid_stamps=0 ",
        " shm=100% ",
        "size=7.0 MiB",
    ] {
        assert!(details.contains(part), "{part:?} in {details}");
    }
    let lines = stop_bridge(bridge);
    let downs: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("route down: /camera/points "))
        .collect();
    // One route for the whole run: a route that went and came back mid-stream would have given
    // its new reader a chance to be served clouds again.
    assert_eq!(downs.len(), 1, "{}", lines.join("\n"));
    assert_eq!(count_in(downs[0], "messages"), 30, "{}", downs[0]);
    assert!(downs[0].ends_with("no drops"), "{}", downs[0]);
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

#[test]
fn routes_come_back_after_the_dds_peer_restarts_and_outlive_a_router_restart_and_nothing_stays_declared() {
    let net = Net::new();
    // The namespace's ports are its own, so the router can come back on the same one.
    let listen = "tcp/127.0.0.1:7447";
    let router_args = ["router", "-l", listen, "--no-metrics"];
    let mut router = Router::started(net.zshm("router", &router_args).start());
    let listener = net.zshm("listener", &["listener", "-e", listen]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    // Each talker waits for the bridge's reader, so that none of its messages is published
    // before the route exists (a volatile reader would not get them).
    let talker_args = ["talker", "--count", "100000", "--rate", "20"];
    let mut talker = net.dds("dds talker", &talker_args).start();
    wait_until("messages through the bridge", || {
        heard_numbers(&listener).len() >= 5
    });

    // The DDS peer stops as a ROS node does (SIGINT): its writer goes, and so does the route and
    // the bridged publisher on zenoh.
    talker.stop();
    wait_until("the route down", || {
        lines_starting(&bridge, "route down: /chatter") == 1
    });
    let mut info = net
        .zshm("topic info", &["topic", "info", "/chatter", "-e", listen])
        .start();
    info.wait_exit();
    assert!(
        info.stdout().iter().any(|l| l == "Publisher count: 0"),
        "{}",
        info.dump()
    );
    let heard_before = heard_numbers(&listener).len();
    let _talker = net.dds("restarted dds talker", &talker_args).start();
    // The first talker is gone and its route is down, so past the listener's backlog (at most
    // its KEEP_LAST(10) queue) every message is the restarted talker's. (Not asserted: which
    // one comes first, since a loaded listener drops the oldest queued, counted; nor that none
    // comes twice: beside a busy core the listener once heard the restarted talker's 1..5
    // twice, not yet explained, see the README's "Bridging DDS".)
    wait_until("the restarted talker's messages", || {
        heard_numbers(&listener).len() >= heard_before + 15
    });
    assert_eq!(
        lines_starting(&bridge, "route up: /chatter"),
        2,
        "{}",
        bridge.dump()
    );

    // The router dies. rmw_zenoh's sessions are peers that the router introduced to each other,
    // so the bridge and the listener keep their own link and the route keeps carrying.
    router.proc.signal(nix::sys::signal::Signal::SIGKILL);
    router.proc.wait_exit();
    let heard_before = heard_numbers(&listener).len();
    wait_until("messages while the router is down", || {
        heard_numbers(&listener).len() >= heard_before + 5
    });
    // It comes back on its port: a node started now finds the bridge through it.
    let restarted = Router::started(net.zshm("restarted router", &router_args).start());
    let mut late = net
        .zshm(
            "late listener",
            &["listener", "-e", listen, "-n", "5", "--timeout", "100"],
        )
        .start();
    assert_eq!(late.wait_exit(), 0, "{}", late.dump());
    assert_eq!(heard_numbers(&late).len(), 5, "{}", late.dump());
    assert_eq!(
        lines_starting(&bridge, "route down: /chatter"),
        1,
        "the route stayed up through the router's restart\n{}",
        bridge.dump()
    );
    let lines = stop_bridge(bridge);
    // The restarted talker's route got a new DDS reader, which RustDDS handed the first talker's
    // cached messages: written before that route existed, by a writer that is gone, they are
    // dropped as stale rather than published to the listener as new.
    let second = lines
        .iter()
        .filter(|l| l.starts_with("route down: /chatter"))
        .nth(1)
        .expect("the restarted talker's route");
    assert!(count_in(second, "stale") > 0, "{second}");
    // Nothing the bridge declared stays behind on zenoh.
    wait_until("no bridged publisher left", || {
        let mut info = net
            .zshm(
                "topic info",
                &["topic", "info", "/chatter", "-e", &restarted.locator],
            )
            .start();
        info.wait_exit();
        info.stdout().iter().any(|l| l == "Publisher count: 0")
    });
}

#[test]
fn a_dds_topic_that_is_not_ros_and_a_type_that_is_not_ros_are_logged_once_and_the_rest_goes_on() {
    let net = Net::new();
    let router = net.router();
    let listener = net
        .zshm("listener", &["listener", "-e", &router.locator, "-n", "10"])
        .start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    let _plain = net
        .dds(
            "plain dds talker",
            &[
                "talker",
                "--topic",
                "plain_topic",
                "--count",
                "100000",
                "--rate",
                "10",
                "--no-wait",
            ],
        )
        .start();
    let _odd = net
        .dds(
            "odd type talker",
            &[
                "talker",
                "--topic",
                "rt/chatter",
                "--type-name",
                "NotRos",
                "--count",
                "100000",
                "--rate",
                "10",
                "--no-wait",
            ],
        )
        .start();
    let _talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "20", "--no-wait"],
        )
        .start();
    let mut listener = listener;
    assert_eq!(
        listener.wait_exit(),
        0,
        "the ROS topic still flows\n{}",
        listener.dump()
    );
    // Each skip is said once, however many discovery rounds saw it (5 per second).
    let plain = "not a ROS topic (no rt/ prefix), not bridged";
    let odd = "type `NotRos` is not a ROS message type, not bridged";
    wait_until("both skips logged", || {
        let stderr = bridge.stderr();
        stderr.contains(plain) && stderr.contains(odd)
    });
    std::thread::sleep(std::time::Duration::from_secs(2)); // ten more rounds that must stay quiet
    let stderr = bridge.stderr();
    assert_eq!(stderr.matches(plain).count(), 1, "{stderr}");
    assert_eq!(stderr.matches(odd).count(), 1, "{stderr}");
    let lines = stop_bridge(bridge);
    assert!(
        lines
            .iter()
            .all(|l| !l.contains("NotRos") && !l.contains("plain_topic")),
        "{lines:?}"
    );
}

/// The `expr` of every panel of a dashboard in `grafana/dashboards/`.
fn dashboard_queries(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo_path(&format!("grafana/dashboards/{file}"))).unwrap();
    let dashboard: serde_json::Value = serde_json::from_str(&text).unwrap();
    let queries: Vec<String> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|panel| panel["targets"].as_array().cloned().unwrap_or_default())
        .filter_map(|target| target["expr"].as_str().map(str::to_owned))
        .collect();
    assert!(queries.len() >= 4, "{queries:?}");
    queries
}

#[test]
fn every_bridge_dashboard_query_returns_data_from_a_real_prometheus() {
    let net = Net::new();
    let router = net.router();
    let _listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    // Malformed samples, then good ones: messages, bytes and drops on one route.
    let _talker = net
        .dds("dds malformed", &["malformed", "--count", "3", "--linger", "100"])
        .start();
    let route = ["topic=\"/chatter\"", "direction=\"dds_to_zenoh\""];
    net.wait_for_metric(&router, "zshm_bridge_messages_total", &route, 3.0);

    // Prometheus runs in the namespace too, scraping the router every second.
    let dir = tempfile::tempdir().unwrap();
    let target = router
        .metrics
        .trim_start_matches("http://")
        .trim_end_matches("/metrics");
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: zshm\n    static_configs:\n      - targets: [\"{target}\"]\n"),
    )
    .unwrap();
    let config_flag = format!("--config.file={}", config.display());
    let storage = format!("--storage.tsdb.path={}", dir.path().join("data").display());
    let mut args = vec!["netns", "exec", &net.name, "prometheus"];
    args.extend([
        config_flag.as_str(),
        storage.as_str(),
        "--web.listen-address=127.0.0.1:9090",
    ]);
    let _prometheus = Spawn::program("prometheus", "ip", &args).start();
    let query = |expr: &str| -> Vec<serde_json::Value> {
        let out = Command::new("ip")
            .args(["netns", "exec", &net.name, &python(), "-c"])
            .arg(
                "import sys, urllib.parse, urllib.request\n\
                 url = 'http://127.0.0.1:9090/api/v1/query?' + urllib.parse.urlencode({'query': sys.argv[1]})\n\
                 try:\n    sys.stdout.write(urllib.request.urlopen(url, timeout=10).read().decode())\n\
                 except OSError as e:\n    sys.stdout.write('{\"status\": \"down\"}')",
            )
            .arg(expr)
            .output()
            .unwrap();
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{expr}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        answer["data"]["result"].as_array().cloned().unwrap_or_default()
    };
    // Rates need several scrapes inside the window.
    wait_until("Prometheus scraping the router", || {
        !query("count_over_time(zshm_build_info[15s]) >= 8").is_empty()
    });
    for expr in dashboard_queries("zshm-bridge.json") {
        let result = query(&expr.replace("$__rate_interval", "15s"));
        assert!(!result.is_empty(), "no data for the bridge dashboard's `{expr}`");
    }
    stop_bridge(bridge);
}

/// The `DDS discovery` finding of `zshm doctor --dds --json` in `net`.
fn doctor_dds_check(net: &Net) -> serde_json::Value {
    let mut doctor = net.zshm("doctor", &["doctor", "--dds", "--json"]).start();
    doctor.wait_exit();
    let report = doctor.json();
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "DDS discovery")
        .cloned()
        .unwrap_or_else(|| panic!("no DDS check\n{}", doctor.dump()))
}

#[test]
fn doctor_checks_dds_discovery_sees_a_dds_node_and_warns_without_multicast_on_lo() {
    let net = Net::new();
    let _talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "10", "--no-wait"],
        )
        .start();
    _talker.wait_for_stdout("the talker up", |l| l == "writer up");
    let check = doctor_dds_check(&net);
    assert_eq!(check["severity"], "ok", "{check}");
    let summary = check["summary"].as_str().unwrap();
    assert!(summary.contains("multicast works"), "{summary}");
    assert!(
        summary.contains("1 other DDS participant(s) seen"),
        "the Cyclone talker: {summary}"
    );

    let bare = Net::with_multicast(false);
    let check = doctor_dds_check(&bare);
    assert_eq!(check["severity"], "warn", "{check}");
    assert!(
        check["fix"]
            .as_str()
            .unwrap()
            .contains("ip link set lo multicast on"),
        "{check}"
    );
}

#[test]
fn a_dds_node_appears_under_its_own_name_from_ros_discovery_info_and_goes_with_its_writer() {
    let net = Net::new();
    let router = net.router();
    let listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    // The talker announces its node before the bridge starts, as a running robot would have.
    let mut talker = net
        .dds(
            "dds talker",
            &[
                "talker",
                "--count",
                "100000",
                "--rate",
                "20",
                "--no-wait",
                "--node-name",
                "camera_driver",
                "--namespace",
                "/robot",
            ],
        )
        .start();
    talker.wait_for_stdout("the talker up", |l| l == "writer up");
    let bridge = net.bridge(&router, &[]);
    listener.wait_for_stdout("a bridged message", |l| number_heard(l).is_some());
    let mut info = net
        .zshm(
            "topic info",
            &["topic", "info", "/chatter", "-v", "-e", &router.locator],
        )
        .start();
    info.wait_exit();
    let text = info.stdout().join("\n");
    assert!(
        text.contains("Node name: camera_driver\nNode namespace: /robot\nTopic type: std_msgs/msg/String"),
        "the bridged publisher is on the DDS node\n{text}"
    );
    let node_list = |net: &Net| {
        let mut list = net
            .zshm("node list", &["node", "list", "-e", &router.locator])
            .start();
        list.wait_exit();
        list.stdout()
    };
    assert!(
        node_list(&net).iter().any(|n| n == "/robot/camera_driver"),
        "{:?}",
        node_list(&net)
    );
    // The writer goes: its route, and the node with it.
    talker.stop();
    wait_until("the DDS node gone", || {
        !node_list(&net).iter().any(|n| n == "/robot/camera_driver")
    });
    stop_bridge(bridge);
}

/// A zshm talker bridged to a DDS listener, and a DDS `graph` reader of `ros_discovery_info`
/// (with `graph_args`, and `expected` node lines); `before` starts DDS processes first.
fn zshm_node_on_dds_graph(graph_args: &[&str], before: &[&[&str]], expected: &[&str]) {
    let net = Net::new();
    let router = net.router();
    let _before: Vec<Proc> = before
        .iter()
        .map(|args| {
            let proc = net.dds("dds node", args).start();
            proc.wait_for_stdout("writer up", |l| l == "writer up");
            proc
        })
        .collect();
    let bridge = net.bridge(&router, &[]);
    let count = expected.len().to_string();
    let mut args = vec!["graph", "--count", &count, "--timeout", "100"];
    args.extend_from_slice(graph_args);
    let mut graph = net.dds("dds graph", &args).start();
    graph.wait_for_stdout("listening", |l| l == "listening");
    let _reader = net
        .dds(
            "dds listener",
            &["listener", "--count", "100000", "--timeout", "100"],
        )
        .start();
    let _talker = net
        .zshm("talker", &["talker", "-e", &router.locator, "-r", "20"])
        .start();
    bridge.wait_for_stdout("route up", |l| l.starts_with("route up: /chatter"));
    assert_eq!(graph.wait_exit(), 0, "{}", graph.dump());
    let mut nodes: Vec<String> = graph
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with("node "))
        .collect();
    nodes.sort();
    assert_eq!(
        nodes,
        expected,
        "the zshm talker, behind the bridge's DDS writer\n{}",
        graph.dump()
    );
    stop_bridge(bridge);
}

#[test]
fn a_zshm_node_appears_to_dds_tools_on_ros_discovery_info_behind_the_bridges_writer() {
    zshm_node_on_dds_graph(&[], &[], &["node / talker readers=0 writers=1"]);
}

#[test]
fn on_a_humble_dds_domain_the_bridge_announces_zenoh_nodes_with_humbles_24_byte_gids() {
    // A Humble DDS node announces itself with 24-byte GIDs; the bridge then writes its own
    // `ros_discovery_info` that way, which a Humble reader decodes.
    let humble_node = [
        "talker",
        "--topic",
        "rt/status",
        "--count",
        "100000",
        "--rate",
        "2",
        "--no-wait",
        "--node-name",
        "camera_driver",
        "--namespace",
        "/robot",
        "--humble",
    ];
    zshm_node_on_dds_graph(
        &["--humble"],
        &[&humble_node],
        &[
            "node / talker readers=0 writers=1",
            "node /robot camera_driver readers=0 writers=1",
        ],
    );
}
