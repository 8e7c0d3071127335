//! Topics and the graph: real rclpy nodes on rmw_zenoh_cpp through `zshm router`, among
//! themselves and with zshm's nodes, both ways.

use super::*;

/// ROS 2's demo pair as a workshop participant runs it once `zshm router` replaced rmw_zenohd:
/// rmw_zenoh's default configs, nothing else set; and the router says nothing alarming when the
/// nodes go.
#[test]
fn rclpy_talker_and_listener_on_rmw_zenoh_talk_through_zshm_router_with_rmw_zenohs_default_configs() {
    let robot = Robot::new(false);
    let mut router = robot.zshm_router();
    let mut listener = robot
        .rclpy("rclpy listener", &["listener", "--count", "20"])
        .start();
    listener.wait_for_stdout("listening", |l| l == "listening");
    let mut talker = robot
        .rclpy("rclpy talker", &["talker", "--count", "20", "--rate", "20"])
        .start();
    assert_rclpy_exit_ok(&mut listener, &[&talker]);
    let heard = lines_with_prefix(&listener, "heard ");
    assert_eq!(heard.len(), 21, "{}", listener.dump());
    // std_msgs/String "Hello World: 1" as CDR: header, length 15, the text and its NUL.
    assert_eq!(
        heard[0],
        format!("heard 000100000f000000{}00", hex("Hello World: 1")),
        "the first message, byte for byte"
    );
    assert_eq!(heard[20], "heard 20 messages");
    assert_rclpy_exit_ok(&mut talker, &[]);
    assert_quiet(&robot, &mut router.proc);
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// rclpy → zshm and zshm → rclpy on one topic each, and each side sees the other's node and
/// endpoint under its own name and type.
#[test]
fn rclpy_and_zshm_nodes_share_topics_and_the_graph_both_ways() {
    let robot = Robot::new(false);
    let mut router = robot.zshm_router();

    // rclpy talker -> zshm listener.
    let mut listener = robot.zshm("zshm listener", &["listener", "-n", "5"]).start();
    let mut talker = robot
        .rclpy(
            "rclpy talker",
            &[
                "talker",
                "--count",
                "5",
                "--rate",
                "10",
                "--linger",
                "30",
                "--node-name",
                "py_talker",
            ],
        )
        .start();
    assert_eq!(listener.wait_exit(), 0, "{}\n{}", listener.dump(), talker.dump());
    let heard: Vec<String> = listener
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with("I heard: "))
        .collect();
    let expected: Vec<String> = (1..=5).map(|i| format!("I heard: [Hello World: {i}]")).collect();
    assert_eq!(heard, expected, "{}", listener.dump());

    // zshm sees the rclpy node and its publisher, with rclpy's type and hash.
    let nodes = robot.zshm_run(&["node", "list"]);
    assert!(
        nodes.stdout().contains(&"/py_talker".to_owned()),
        "{}",
        nodes.dump()
    );
    let info = robot.zshm_run(&["topic", "info", "/chatter", "-v"]);
    let text = info.stdout().join("\n");
    assert!(text.contains("Type: std_msgs/msg/String"), "{text}");
    assert!(text.contains("Node name: py_talker"), "{text}");
    talker.stop();

    // zshm talker -> rclpy listener, and rclpy's graph shows zshm's node.
    let mut rclpy_listener = robot
        .rclpy(
            "rclpy listener",
            &["listener", "--count", "3", "--topic", "/zshm_chatter"],
        )
        .start();
    rclpy_listener.wait_for_stdout("listening", |l| l == "listening");
    let _zshm_talker = robot
        .zshm("zshm talker", &["talker", "-t", "/zshm_chatter"])
        .start();
    assert_rclpy_exit_ok(&mut rclpy_listener, &[]);
    let heard = lines_with_prefix(&rclpy_listener, "heard 00010000");
    assert_eq!(heard.len(), 3, "{}", rclpy_listener.dump());
    let mut graph = robot
        .rclpy(
            "rclpy graph",
            &[
                "graph",
                "--expect-node",
                "/talker",
                "--topic-info",
                "/zshm_chatter",
            ],
        )
        .start();
    assert_rclpy_exit_ok(&mut graph, &[]);
    let seen: serde_json::Value = serde_json::from_str(rclpy_lines(&graph).last().unwrap()).unwrap();
    assert!(
        seen["nodes"].as_array().unwrap().iter().any(|n| n == "/talker"),
        "{seen}"
    );
    assert_eq!(
        seen["topics"]["/zshm_chatter"],
        serde_json::json!(["std_msgs/msg/String"]),
        "{seen}"
    );
    let publishers = &seen["publishers"]["/zshm_chatter"];
    assert_eq!(publishers[0]["node"], "/talker", "{seen}");
    assert_eq!(publishers[0]["reliability"], "RELIABLE", "{seen}");
    drop(_zshm_talker);
    assert_quiet(&robot, &mut router.proc);
}
