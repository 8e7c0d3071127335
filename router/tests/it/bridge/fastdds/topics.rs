//! Topics between real rclpy nodes on Fast DDS and zshm nodes, both ways at once: small
//! messages byte-exact and in order (reliable and best effort, on loopback only and on a veth
//! pair), and 7 MB clouds from zenoh's shared memory to an rclpy subscription and from an rclpy
//! publisher into shared memory.

use super::*;

/// The numbers N of `I heard: [Hello World: N]` lines, in order.
fn zshm_heard(listener: &Proc) -> Vec<u64> {
    listener.stdout().iter().filter_map(|l| number_heard(l)).collect()
}

/// An rclpy talker to a zshm listener on `/from_dds`, and a zshm talker to an rclpy listener on
/// `/to_dds`, through one bridge; each listener takes 20 messages.
///
/// Reliable (`best_effort` false): messages 1 to 20 each way, byte-exact, and each route's last
/// line counts its 20 with no drop. The rclpy listener keeps all: a new route holds its first
/// messages until the reader knows the bridge's writer (third_party/rustdds/PATCHES.md, 7),
/// 0.6 s on a loaded machine (12 messages at 20 Hz), and then writes them at once, which a
/// history of 10 cuts to its last 10 (seen with rclpy's default depth: messages 1 and 2 lost,
/// and acknowledged, in 5 of about 120 runs). Best effort: a DDS reader may miss what a writer
/// sends before the reader has discovered it (what best effort means; nothing can tell it was
/// missed), so each talker sends 40 and each listener's 20 must follow one another, byte-exact,
/// with nothing twice and nothing out of order.
fn talkers_both_ways(net: Net, best_effort: bool) {
    let qos: &[&str] = if best_effort { &["--best-effort"] } else { &[] };
    let sent = if best_effort { "40" } else { "20" };
    let router = net.router();
    let bridge = net.bridge(&router, &[]);

    let mut listener = net
        .zshm(
            "zshm listener",
            &[
                "listener",
                "-e",
                &router.locator,
                "-t",
                "from_dds",
                "-n",
                "20",
                "--timeout",
                "100",
            ],
        )
        .start();
    net.wait_for_subscriptions(&router, "/from_dds", 1);
    let mut args = vec![
        "talker",
        "--topic",
        "/from_dds",
        "--count",
        sent,
        "--rate",
        "20",
        "--linger",
        "60",
    ];
    args.extend_from_slice(qos);
    let mut rclpy_talker = net.rclpy("rclpy talker", &args).start();

    let mut args = vec![
        "listener",
        "--topic",
        "/to_dds",
        "--count",
        "20",
        "--timeout",
        "100",
    ];
    args.push(if best_effort {
        "--best-effort"
    } else {
        "--keep-all"
    });
    let mut rclpy_listener = net.rclpy("rclpy listener", &args).start();
    rclpy_listener.wait_for_stdout("listening", |l| l == "listening");
    let mut talker = net
        .zshm(
            "zshm talker",
            &[
                "talker",
                "-e",
                &router.locator,
                "-t",
                "to_dds",
                "-n",
                sent,
                "-r",
                "20",
                "--wait",
                "100",
            ],
        )
        .start();

    assert_eq!(listener.wait_exit(), 0, "{}\n{}", listener.dump(), bridge.dump());
    let heard = zshm_heard(&listener);
    let first = if best_effort { heard[0] } else { 1 };
    assert_eq!(
        heard,
        (first..first + 20).collect::<Vec<_>>(),
        "rclpy -> zshm: in order, none twice{}",
        if best_effort { "" } else { ", none lost" }
    );

    assert_eq!(
        rclpy_listener.wait_exit(),
        0,
        "{}\n{}",
        rclpy_listener.dump(),
        bridge.dump()
    );
    // RTPS carries a payload in whole 4-byte words: the zero padding after the 23 bytes of
    // "Hello World: 1" is on the wire, and rclpy's raw subscription hands it over.
    let cdr = |i: u64| padded(&string_cdr(&format!("Hello World: {i}")));
    let heard = rclpy_heard(&rclpy_listener);
    let first = (1..=40)
        .find(|&i| heard.first() == Some(&cdr(i)))
        .unwrap_or_else(|| panic!("not a talker's message: {heard:?}"));
    assert!(
        best_effort || first == 1,
        "reliable: from the first message on: {heard:?}"
    );
    let expected: Vec<String> = (first..first + 20).map(cdr).collect();
    assert_eq!(heard, expected, "zshm -> rclpy: in order, byte-exact, none twice");
    talker.wait_exit();
    rclpy_talker.stop();

    let lines = stop_bridge(bridge);
    for (topic, direction) in [("/from_dds", "DDS -> zenoh"), ("/to_dds", "zenoh -> DDS")] {
        let down = lines
            .iter()
            .find(|l| l.starts_with(&format!("route down: {topic} ")) && l.contains(direction))
            .unwrap_or_else(|| panic!("a route {topic} {direction}\n{}", lines.join("\n")));
        if best_effort {
            assert!(count_in(down, "messages") >= 20, "{down}");
        } else {
            assert_eq!(count_in(down, "messages"), 20, "{down}");
            assert!(down.ends_with("no drops"), "{down}");
        }
    }
}

#[test]
fn rclpy_on_fast_dds_and_zshm_talk_both_ways_in_order_byte_exact_on_loopback_only() {
    talkers_both_ways(Net::for_fast_dds(), false);
}

#[test]
fn rclpy_on_fast_dds_and_zshm_talk_both_ways_best_effort() {
    talkers_both_ways(Net::for_fast_dds(), true);
}

#[test]
fn rclpy_on_fast_dds_and_zshm_talk_both_ways_on_a_veth_pair_with_the_bridge_on_its_address() {
    talkers_both_ways(Net::for_fast_dds_on_veth(), false);
}

#[test]
fn seven_mb_clouds_go_from_zshm_shared_memory_to_rclpy_and_from_rclpy_into_shared_memory() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);

    // zenoh -> Fast DDS: zshm's camera (its clouds in shared memory) to an rclpy subscription
    // that checks every byte of each against the pattern.
    let mut subscriber = net
        .rclpy(
            "rclpy cloud listener",
            &[
                "cloud-listener",
                "--topic",
                "/zshm/points",
                "--count",
                "10",
                "--timeout",
                "200",
            ],
        )
        .start();
    subscriber.wait_for_stdout("listening", |l| l == "listening");
    let mut camera = net
        .zshm(
            "cam-pub",
            &[
                "cam-pub",
                "-e",
                &router.locator,
                "-t",
                "/zshm/points",
                "-n",
                "10",
                "-r",
                "5",
                "--pattern",
                "--keep-all",
                "--wait",
                "100",
            ],
        )
        .start();
    assert_eq!(
        subscriber.wait_exit(),
        0,
        "{}\n{}",
        subscriber.dump(),
        bridge.dump()
    );
    let clouds: Vec<String> = subscriber
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with("cloud "))
        .collect();
    assert_eq!(clouds.len(), 10, "{clouds:?}");
    for line in &clouds {
        assert!(
            line.ends_with(" ok 7372800"),
            "every byte of a 7 MB cloud: {line}"
        );
    }
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());

    // Fast DDS -> zenoh: an rclpy camera to `cam-latency --verify`, which checks each cloud's
    // layout and data and says how much came through shared memory.
    let mut probe = net
        .zshm(
            "cam-latency",
            &[
                "cam-latency",
                "-e",
                &router.locator,
                "-t",
                "/rclpy/points",
                "-n",
                "10",
                "--verify",
                "--window",
                "1",
                "--timeout",
                "200",
            ],
        )
        .start();
    net.wait_for_subscriptions(&router, "/rclpy/points", 1);
    let mut rclpy_camera = net
        .rclpy(
            "rclpy camera",
            &[
                "cloud",
                "--topic",
                "/rclpy/points",
                "--count",
                "10",
                "--rate",
                "5",
                "--linger",
                "100",
            ],
        )
        .start();
    assert_eq!(probe.wait_exit(), 0, "{}\n{}", probe.dump(), bridge.dump());
    let lines = probe.stdout();
    let summary = lines
        .iter()
        .position(|l| l.starts_with("Summary over "))
        .unwrap_or_else(|| panic!("a summary\n{}", probe.dump()));
    let details = &lines[summary + 1];
    for part in ["n=10 ", " lost=0 ", " shm=100% ", "size=7.0 MiB"] {
        assert!(details.contains(part), "{part:?} in {details}");
    }
    rclpy_camera.stop();

    let lines = stop_bridge(bridge);
    for (topic, direction) in [
        ("/zshm/points", "zenoh -> DDS"),
        ("/rclpy/points", "DDS -> zenoh"),
    ] {
        let down = lines
            .iter()
            .find(|l| l.starts_with(&format!("route down: {topic} ")) && l.contains(direction))
            .unwrap_or_else(|| panic!("a route {topic} {direction}\n{}", lines.join("\n")));
        assert_eq!(count_in(down, "messages"), 10, "{down}");
        assert!(down.ends_with("no drops"), "{down}");
    }
}

/// Fast DDS's profile file: data-sharing on (AUTOMATIC: where the type allows it) for every
/// writer.
const DATA_SHARING_PROFILE: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<profiles xmlns="http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles">
  <data_writer profile_name="data_sharing" is_default_profile="true">
    <qos><data_sharing><kind>AUTOMATIC</kind></data_sharing></qos>
  </data_writer>
</profiles>
"#;

/// An rclpy talker of a plain type (std_msgs/Int64: fixed size, what Fast DDS's data-sharing
/// takes) on Fast DDS: its writer offers data-sharing, which works only between Fast DDS
/// processes. The bridge says so once and counts the endpoint in the route's last line, and every
/// message still arrives (Fast DDS sends the bridge copies over its transports).
#[test]
fn a_fast_dds_writer_offering_data_sharing_is_said_once_and_its_messages_arrive_by_copy() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let mut echo = net
        .zshm(
            "echo",
            &[
                "topic",
                "echo",
                "-e",
                &router.locator,
                "/ints",
                "std_msgs/msg/Int64",
                "--json",
            ],
        )
        .start();
    net.wait_for_subscriptions(&router, "/ints", 1);
    // rmw_fastrtps_cpp leaves data-sharing off unless a Fast DDS profile turns it on and the RMW
    // is told to keep the profile's QoS (seen here: with the profile alone, no writer offered it).
    let profile = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(profile.path(), DATA_SHARING_PROFILE).unwrap();
    let mut talker = net
        .rclpy(
            "rclpy talker",
            &[
                "talker", "--plain", "--topic", "/ints", "--count", "10", "--rate", "10", "--linger", "60",
            ],
        )
        .env("FASTRTPS_DEFAULT_PROFILES_FILE", profile.path().to_str().unwrap())
        .env("RMW_FASTRTPS_USE_QOS_FROM_XML", "1")
        .start();
    wait_until("ten messages echoed", || {
        echo.stdout().iter().filter(|l| l.starts_with('{')).count() >= 10
    });
    echo.signal_process(nix::sys::signal::Signal::SIGINT);
    echo.wait_exit();
    talker.stop();
    let values: Vec<String> = echo
        .stdout()
        .iter()
        .filter(|l| l.starts_with('{'))
        .cloned()
        .collect();
    let expected: Vec<String> = (1..=10).map(|i| format!("{{\"data\":{i}}}")).collect();
    assert_eq!(values, expected, "{}", bridge.dump());
    let stderr = bridge.stderr();
    let lines = stop_bridge(bridge);
    let said = stderr
        .lines()
        .filter(|l| l.contains("not carried: the DDS writer") && l.contains("offers Fast DDS data-sharing"))
        .count();
    assert_eq!(said, 1, "said once:\n{stderr}");
    let down = lines
        .iter()
        .find(|l| l.starts_with("route down: /ints "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(count_in(down, "messages"), 10, "{down}");
    assert!(
        down.ends_with("no drops, not carried: data_sharing (1 DDS endpoint)"),
        "{down}"
    );
}
