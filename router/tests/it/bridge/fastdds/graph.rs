//! One ROS graph: rclpy on Fast DDS sees zshm's nodes and their endpoints under their own names
//! and types (the bridge's `ros_discovery_info`), zshm sees rclpy's, and a route's DDS endpoints
//! leave DDS with the route.

use super::*;

#[test]
fn rclpy_sees_zshm_nodes_and_zshm_sees_rclpy_nodes_under_their_own_names() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    // zenoh -> DDS: a zshm talker for an rclpy listener; the bridge's DDS writer stands for it.
    let _rclpy_listener = net
        .rclpy(
            "rclpy listener",
            &["listener", "--topic", "/chatter", "--count", "1000"],
        )
        .start();
    let _talker = net
        .zshm("zshm talker", &["talker", "-e", &router.locator, "-r", "5"])
        .start();
    bridge.wait_for_stdout("route up", |l| l.starts_with("route up: /chatter "));
    let mut graph = net
        .rclpy(
            "rclpy graph",
            &[
                "graph",
                "--expect-node",
                "/talker",
                "--topic-info",
                "/chatter",
                "--timeout",
                "60",
            ],
        )
        .start();
    assert_eq!(graph.wait_exit(), 0, "{}", graph.dump());
    let seen = graph.json();
    assert!(
        seen["nodes"].as_array().unwrap().contains(&"/talker".into()),
        "rclpy's get_node_names: {seen}\n{}",
        bridge.dump()
    );
    assert_eq!(
        seen["topics"]["/chatter"],
        serde_json::json!(["std_msgs/msg/String"]),
        "{seen}"
    );
    let publishers = seen["publishers"]["/chatter"].as_array().unwrap();
    assert_eq!(publishers.len(), 1, "{seen}");
    assert_eq!(publishers[0]["node"], "/talker", "{seen}");
    assert_eq!(publishers[0]["type"], "std_msgs/msg/String", "{seen}");
    assert_eq!(publishers[0]["reliability"], "RELIABLE", "{seen}");

    // DDS -> zenoh: an rclpy talker for a zshm listener, shown under its own node on zenoh.
    let _listener = net
        .zshm(
            "zshm listener",
            &["listener", "-e", &router.locator, "-t", "from_rclpy"],
        )
        .start();
    net.wait_for_subscriptions(&router, "/from_rclpy", 1);
    let _rclpy_talker = net
        .rclpy(
            "rclpy talker",
            &[
                "talker",
                "--node-name",
                "robot_talker",
                "--topic",
                "/from_rclpy",
                "--count",
                "1000",
                "--rate",
                "5",
            ],
        )
        .start();
    let deadline = Instant::now() + DEADLINE;
    loop {
        let mut info = net
            .zshm(
                "topic info",
                &["topic", "info", "/from_rclpy", "-v", "-e", &router.locator],
            )
            .start();
        info.wait_exit();
        let text = info.stdout().join("\n");
        if text.contains("Node name: robot_talker\nNode namespace: /\nTopic type: std_msgs/msg/String") {
            // DDS discovery carries no history: UNKNOWN, as ROS 2 reports a DDS endpoint
            // (rclpy's talker declared KEEP_LAST(10), which zshm cannot know).
            assert!(text.contains("History (Depth): UNKNOWN"), "{text}");
            assert!(!text.contains("KEEP_ALL"), "{text}");
            break;
        }
        assert!(Instant::now() < deadline, "{}\n{}", info.dump(), bridge.dump());
    }
    let mut nodes = net
        .zshm("node list", &["node", "list", "-e", &router.locator])
        .start();
    nodes.wait_exit();
    assert!(
        nodes.stdout().contains(&"/robot_talker".to_owned()),
        "{}",
        nodes.dump()
    );
    stop_bridge(bridge);
}

#[test]
fn a_routes_dds_reader_leaves_dds_with_the_route_so_an_rclpy_publisher_matches_nobody() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let mut listener = net
        .zshm(
            "zshm listener",
            &["listener", "-e", &router.locator, "-t", "camera"],
        )
        .start();
    net.wait_for_subscriptions(&router, "/camera", 1);
    let talker = net
        .rclpy(
            "rclpy talker",
            &[
                "talker",
                "--topic",
                "/camera",
                "--count",
                "1000",
                "--rate",
                "5",
                "--report-matches",
            ],
        )
        .start();
    talker.wait_for_stdout("the bridge's reader", |l| l == "subscriptions 1");
    listener.stop();
    bridge.wait_for_stdout("route down", |l| l.starts_with("route down: /camera "));
    // The bridge's reader is gone from Fast DDS's discovery: nothing is sent to nobody.
    talker.wait_for_stdout("no subscription left", |l| l == "subscriptions 0");
    stop_bridge(bridge);
}
