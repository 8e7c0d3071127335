//! The ROS commands between processes: talker and listener, and the graph they announce.

use crate::support::{Router, Spawn};

#[test]
fn talker_and_listener_talk_and_the_graph_shows_them() {
    let router = Router::start(&[]);
    let listener = Spawn::zshm(
        "listener",
        &[
            "listener",
            "-e",
            &router.locator,
            "--namespace",
            "/robot1",
            "-t",
            "/chatter",
        ],
    )
    .start();
    listener.wait_for_stderr("subscription", |l| l.contains("listening"));
    let _talker = Spawn::zshm(
        "talker",
        &["talker", "-e", &router.locator, "-r", "20", "--wait", "60"],
    )
    .start();
    listener.wait_for_stdout("a message", |l| l == "I heard: [Hello World: 1]");

    let mut topics = Spawn::zshm("topics", &["topics", "-e", &router.locator]).start();
    assert_eq!(topics.wait_exit(), 0, "{}", topics.dump());
    assert!(
        topics
            .stdout()
            .contains(&"/chatter [std_msgs/msg/String] (1 publishers, 1 subscribers)".to_owned()),
        "{}",
        topics.dump()
    );
    let mut nodes = Spawn::zshm("nodes", &["nodes", "-e", &router.locator, "--json"]).start();
    assert_eq!(nodes.wait_exit(), 0, "{}", nodes.dump());
    assert_eq!(nodes.json(), serde_json::json!(["/robot1/listener", "/talker"]));
}

#[test]
fn an_invalid_topic_name_is_refused_with_exit_code_2() {
    let mut talker = Spawn::zshm("talker", &["talker", "-t", "camera//points", "-n", "1"])
        .env("ZENOH_ROUTER_CHECK_ATTEMPTS", "-1")
        .start();
    assert_eq!(talker.wait_exit(), 2);
    assert!(talker.stderr().contains("empty token"), "{}", talker.dump());
}
