//! `zshm topic echo` and `zshm topic pub` against the independent Python rmw_zenoh peer
//! (`router/tests/interop/rmw_zenoh_peer.py`, modes `receive` and `send`), which serializes and
//! deserializes with rosbags: what zshm publishes must be byte-exact CDR for rosbags, and what
//! rosbags publishes must print as `ros2 topic echo` prints it.
//!
//! | type | why |
//! |---|---|
//! | Twist | `ros2 topic pub /cmd_vel ...`, the everyday case; echo without TYPE (the graph's type) |
//! | Odometry | nested headers, a fixed `float64[36]` covariance |
//! | TFMessage | a sequence of structs (`- header:` items) |
//! | LaserScan | a float32 sequence longer than 128: cut with `- '...'` |
//! | PointCloud2 | 7 MB of `uint8[]`: abbreviated, struct sequence of fields |

use std::time::{Duration, Instant};

use crate::support::{DEADLINE, Router, Spawn, repo_path};

fn peer(name: &str, args: &[&str]) -> Spawn {
    let python = std::env::var("ZSHM_PYTHON").unwrap_or_else(|_| repo_path(".venv/bin/python"));
    assert!(
        std::path::Path::new(&python).exists(),
        "no Python environment at {python}: run tools/test.sh"
    );
    let script = repo_path("router/tests/interop/rmw_zenoh_peer.py");
    let mut all = vec![script.as_str()];
    all.extend_from_slice(args);
    Spawn::program(name, &python, &all)
}

#[test]
fn topic_pub_once_is_received_byte_exact_by_the_python_peer() {
    use zshm::msgs::Message;
    use zshm::msgs::geometry_msgs::msg::{Twist, Vector3};
    let router = Router::start(&[]);
    let mut receive = peer(
        "py-receive",
        &[
            "receive",
            "--connect",
            &router.locator,
            "--count",
            "1",
            "--topic",
            "/cmd_vel",
            "--type",
            "geometry_msgs/msg/Twist",
        ],
    )
    .start();
    let mut publish = Spawn::zshm(
        "topic-pub",
        &[
            "topic",
            "pub",
            "/cmd_vel",
            "geometry_msgs/msg/Twist",
            "{linear: {x: 0.5}}",
            "--once",
            "--max-wait-time-secs",
            "60",
            "-e",
            &router.locator,
        ],
    )
    .start();
    assert_eq!(receive.wait_exit(), 0, "{}", receive.dump());
    assert_eq!(publish.wait_exit(), 0, "{}", publish.dump());
    let report = receive.json();
    assert_eq!(report["ok"], true, "{report}");
    let expected = Twist {
        linear: Vector3 {
            x: 0.5,
            ..Default::default()
        },
        ..Default::default()
    }
    .to_cdr();
    let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(report["messages"][0]["cdr"], hex.as_str(), "{report}");
    assert_eq!(report["messages"][0]["value"]["linear"]["x"], 0.5);
    assert_eq!(publish.stdout()[0], "publisher: beginning loop");
}

/// Starts `zshm topic echo /<topic> TYPE --once` and the peer sending one sample of `type_name`;
/// returns what echo printed.
fn echo_one(type_name: &str, with_type: bool) -> Vec<String> {
    let router = Router::start(&[]);
    let topic = "/echoed";
    let send_args = [
        "send",
        "--connect",
        &router.locator,
        "--count",
        "1",
        "--topic",
        topic,
        "--type",
        type_name,
        "--timeout",
        "60",
    ];
    let mut send = peer("py-send", &send_args).start();
    let mut args = vec!["topic", "echo", topic];
    if with_type {
        args.push(type_name);
    } else {
        wait_for_publisher(&router, topic);
    }
    args.extend(["--once", "-e", &router.locator]);
    let mut echo = Spawn::zshm("topic-echo", &args).start();
    assert_eq!(echo.wait_exit(), 0, "{}", echo.dump());
    assert_eq!(send.wait_exit(), 0, "{}", send.dump());
    echo.stdout()
}

/// Waits until the graph shows a publisher of `topic` (so echo can take the type from it).
fn wait_for_publisher(router: &Router, topic: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let mut topics = Spawn::zshm("topics", &["topics", "-e", &router.locator, "--json"]).start();
        assert_eq!(topics.wait_exit(), 0, "{}", topics.dump());
        let found = topics.json().as_array().is_some_and(|topics| {
            topics
                .iter()
                .any(|t| t["name"] == topic && t["publishers"].as_u64() > Some(0))
        });
        if found {
            return;
        }
        assert!(Instant::now() < deadline, "no publisher of {topic} showed up");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn topic_echo_prints_a_twist_with_the_type_from_the_graph() {
    let out = echo_one("geometry_msgs/msg/Twist", false);
    assert_eq!(
        text(&out),
        "linear:\n  x: 0.5\n  y: 0.0\n  z: 0.0\nangular:\n  x: 0.0\n  y: 0.0\n  z: -1.25\n---\n"
    );
}

#[test]
fn topic_echo_prints_odometry() {
    let out = text(&echo_one("nav_msgs/msg/Odometry", true));
    let head = "header:\n  stamp:\n    sec: 12\n    nanosec: 345\n  frame_id: odom\nchild_frame_id: base_link\n\
                pose:\n  pose:\n    position:\n      x: 1.5\n      y: -2.0\n      z: 0.0\n    orientation:\n      \
                x: 0.0\n      y: 0.0\n      z: 0.0\n      w: 1.0\n  covariance:\n  - 0.25\n  - 0.0\n";
    assert!(out.starts_with(head), "{out}");
    assert!(
        out.contains("\ntwist:\n  twist:\n    linear:\n      x: 0.5\n"),
        "{out}"
    );
    assert!(out.ends_with("  - 0.0\n---\n"), "{out}");
    assert_eq!(out.matches("  - ").count(), 72, "two covariances of 36: {out}");
}

#[test]
fn topic_echo_prints_a_tf_message() {
    let out = text(&echo_one("tf2_msgs/msg/TFMessage", true));
    assert_eq!(
        out,
        "transforms:\n- header:\n    stamp:\n      sec: 12\n      nanosec: 345\n    frame_id: odom\n  \
         child_frame_id: base_link\n  transform:\n    translation:\n      x: 1.0\n      y: 2.0\n      \
         z: 0.0\n    rotation:\n      x: 0.0\n      y: 0.0\n      z: 0.0\n      w: 1.0\n---\n"
    );
}

#[test]
fn topic_echo_prints_a_laser_scan_cut_after_128_ranges() {
    let out = echo_one("sensor_msgs/msg/LaserScan", true);
    let all = text(&out);
    assert!(
        all.starts_with(
            "header:\n  stamp:\n    sec: 12\n    nanosec: 345\n  frame_id: laser\nangle_min: -1.5\nangle_max: 1.5\n\
             angle_increment: 0.015625\ntime_increment: 0.0\nscan_time: 0.125\nrange_min: 0.25\nrange_max: 30.0\n\
             ranges:\n- 1.0\n- 1.25\n- 1.5\n"
        ),
        "{all}"
    );
    let ranges = out
        .iter()
        .filter(|l| l.starts_with("- ") && *l != "- '...'")
        .count();
    assert_eq!(ranges, 128, "{all}");
    assert!(all.ends_with("- 32.75\n- '...'\nintensities: []\n---\n"), "{all}");
}

#[test]
fn topic_echo_prints_a_7_mb_point_cloud_abbreviated() {
    let out = echo_one("sensor_msgs/msg/PointCloud2", true);
    let all = text(&out);
    assert!(
        all.starts_with(
            "header:\n  stamp:\n    sec: 12\n    nanosec: 345\n  frame_id: camera\nheight: 1\nwidth: 307200\n\
             fields:\n- name: x\n  offset: 0\n  datatype: 7\n  count: 1\n- name: y\n  offset: 4\n"
        ),
        "{all}"
    );
    assert!(
        all.contains("\nis_bigendian: false\npoint_step: 24\nrow_step: 7372800\ndata:\n- 0\n- 1\n- 2\n"),
        "{all}"
    );
    assert!(all.ends_with("- 127\n- '...'\nis_dense: true\n---\n"), "{all}");
    assert!(out.len() < 200, "abbreviated: {} lines", out.len());
}

#[test]
fn topic_pub_and_echo_refuse_bad_input_with_exit_2_and_the_field_path() {
    for (args, message) in [
        (
            vec!["/cmd_vel", "geometry_msgs/msg/Twist", "{linear: {x: abc}}"],
            "linear.x: expected float64, got 'abc'",
        ),
        (
            vec!["/cmd_vel", "geometry_msgs/msg/Twist", "{linear: {q: 1}}"],
            "linear.q: unknown field (geometry_msgs/Vector3 has x, y, z)",
        ),
        (
            vec!["/n", "std_msgs/msg/UInt8", "{data: 300}"],
            "data: 300 is out of range for uint8 (0..=255)",
        ),
        (vec!["/n", "std_msgs/msg/String", "{data: [1"], "invalid YAML"),
        (
            vec!["/n", "std_msgs/msg/Nope", "{}"],
            "unknown message type std_msgs/msg/Nope",
        ),
    ] {
        let mut all = vec!["topic", "pub"];
        all.extend(&args);
        all.extend(["--once", "-e", "tcp/127.0.0.1:1"]);
        let mut publish = Spawn::zshm("topic-pub", &all).start();
        assert_eq!(publish.wait_exit(), 2, "{args:?}: {}", publish.dump());
        assert!(publish.stderr().contains(message), "{args:?}: {}", publish.dump());
    }
    let mut echo = Spawn::zshm(
        "topic-echo",
        &[
            "topic",
            "echo",
            "/odom",
            "nav_msgs/msg/Odometry",
            "--field",
            "pose.nope",
            "-e",
            "tcp/127.0.0.1:1",
        ],
    )
    .start();
    assert_eq!(echo.wait_exit(), 2, "{}", echo.dump());
    assert!(echo.stderr().contains("--field pose.nope"), "{}", echo.dump());
}

#[test]
fn a_latched_topic_pub_reaches_a_later_echo_that_takes_its_qos_from_the_graph() {
    let router = Router::start(&[]);
    let _publisher = Spawn::zshm(
        "latched pub",
        &[
            "topic",
            "pub",
            "/latched_map",
            "std_msgs/msg/String",
            "{data: map}",
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
    let mut info = Spawn::zshm(
        "topic info",
        &["topic", "info", "/latched_map", "-v", "-e", &router.locator],
    )
    .start();
    assert_eq!(info.wait_exit(), 0, "{}", info.dump());
    let text = info.stdout().join("\n");
    assert!(text.contains("  Durability: TRANSIENT_LOCAL"), "{text}");
    assert!(text.contains("  History (Depth): KEEP_LAST (1)"), "{text}");
    // No QoS flag: echo sees a transient-local publisher and asks for its last message, as
    // `ros2 topic echo` does; it was published before echo started.
    let mut echo = Spawn::zshm(
        "late echo",
        &[
            "topic",
            "echo",
            "/latched_map",
            "--once",
            "--json",
            "-e",
            &router.locator,
        ],
    )
    .start();
    assert_eq!(echo.wait_exit(), 0, "{}", echo.dump());
    assert_eq!(echo.stdout(), vec![r#"{"data":"map"}"#], "{}", echo.dump());
}
