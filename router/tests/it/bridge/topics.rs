//! Topics both ways with the Cyclone DDS peer: small messages in order and byte-exact, latched
//! topics for late joiners, 7 MB clouds into shared memory.

use super::*;

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
        .dds(
            "dds listener",
            // Keep all: what the route holds until the reader knows its writer comes at once.
            &["listener", "--count", "20", "--timeout", "100", "--keep-all"],
        )
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

/// A DDS reader that learns of a new route's writer late loses none of its first messages. The
/// writer matches the reader as soon as it learns of it; the reader learns of the writer only
/// from the writer's announcement, here held back while the route's first messages go out. A
/// volatile Cyclone DDS reader drops what comes from a writer it does not know, and then starts
/// from the writer's next sample: the bridge used to write at the match and lose those
/// messages, and the reader's acknowledgement made the route say "no drops". It now holds them
/// until the reader has answered the writer (third_party/rustdds/PATCHES.md, 7).
#[test]
fn a_dds_reader_that_learns_of_the_bridges_writer_late_gets_every_message_from_the_first() {
    const INDEX: u16 = 9;
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let mut reader = net
        .dds(
            "dds listener",
            &[
                "listener",
                "--topic",
                "rt/echo",
                "--count",
                "23",
                "--timeout",
                "100",
                "--participant-index",
                &INDEX.to_string(),
                // What was held back arrives at once: a history of 10 would drop part of it.
                "--keep-all",
            ],
        )
        .start();
    reader.wait_for_stdout("listening", |l| l == "listening");
    let zshm_talker = |count: &str| {
        let args = [
            "talker",
            "-e",
            &router.locator,
            "-t",
            "echo",
            "-n",
            count,
            "-r",
            "20",
            "--wait",
            "100",
        ];
        net.zshm("talker", &args).start()
    };
    // A first route brings both sides' discovery up to date: three messages heard, then the
    // route goes with its talker.
    let mut first = zshm_talker("3");
    assert_eq!(first.wait_exit(), 0, "{}", first.dump());
    reader.wait_for_stdout("the first three", |l| l.ends_with("Hello World: 3"));
    bridge.wait_for_stdout("the first route down", |l| l.starts_with("route down: /echo"));

    // The second route's writer is announced while the reader's discovery traffic is dropped.
    let held = net.hold_back_discovery_to(INDEX);
    let second = zshm_talker("20");
    wait_until("the second route up", || {
        lines_starting(&bridge, "route up: /echo") == 2
    });
    second.wait_for_stdout("five published", |l| l == "Publishing: 'Hello World: 5'");
    drop(held);

    assert_eq!(reader.wait_exit(), 0, "{}", reader.dump());
    let heard: Vec<String> = reader
        .stdout()
        .iter()
        .filter_map(|l| l.strip_prefix("heard "))
        .filter_map(|l| l.split(' ').next())
        .filter(|hex| hex.starts_with("0001"))
        .map(str::to_owned)
        .collect();
    let expected: Vec<String> = (1..=3)
        .chain(1..=20)
        .map(|i| string_cdr(&format!("Hello World: {i}")))
        .collect();
    assert_eq!(heard, expected, "every message, in order\n{}", bridge.dump());
    drop(second);
    stop_bridge(bridge);
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
