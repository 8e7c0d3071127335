//! A user-defined type (`robot_msgs/msg/Route`, nesting zshm's `geometry_msgs/Pose` and
//! `std_msgs/Header`) goes from one process through a zenoh router to another.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use zshm::config::Environment;
use zshm::{Role, Session};

fn waypoints(role: &str, router: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_waypoints"));
    command.args([role, "--connect", router, "--count", "3"]);
    for (key, _) in std::env::vars() {
        if key.starts_with("ZENOH_") || key.starts_with("ROS_") || key.starts_with("ZSHM_") {
            command.env_remove(key);
        }
    }
    // Through the router, not the same-host lane.
    command
        .env("ZSHM_LANE", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    command
}

#[tokio::test(flavor = "multi_thread")]
async fn a_custom_type_goes_through_the_router() {
    let router = Session::builder_for(Role::Router)
        .environment(Environment::empty().with("ZSHM_LANE", "off"))
        .listen(["tcp/127.0.0.1:0"])
        .connect(Vec::<String>::new())
        .open()
        .await
        .unwrap();
    let endpoint = router.locators().await.into_iter().next().unwrap();

    let mut listener = waypoints("listen", &endpoint).spawn().unwrap();
    let mut lines = BufReader::new(listener.stdout.take().unwrap()).lines();
    // The subscription exists once it says so; the talker waits for it anyway.
    assert_eq!(lines.next().unwrap().unwrap(), "listening on /route");
    let mut talker = waypoints("talk", &endpoint).spawn().unwrap();

    let received: Vec<String> = tokio::task::spawn_blocking(move || lines.map(Result::unwrap).collect())
        .await
        .unwrap();
    let listener_status = listener.wait().unwrap();
    let talker_status = tokio::task::spawn_blocking(move || talker.wait().unwrap())
        .await
        .unwrap();
    assert!(listener_status.success(), "listener: {listener_status}");
    assert!(talker_status.success(), "talker: {talker_status}");
    let expected: Vec<String> = (0..3)
        .map(|n| {
            format!(
                "route {n}: dock@(1.5,{n}) speed 0.5 priority 2, door ↗@(-2.25,{n}) speed 0.5 priority 2 (color [0.0, 0.5, 1.0])"
            )
        })
        .collect();
    assert_eq!(received, expected);
    tokio::time::timeout(Duration::from_secs(10), router.close())
        .await
        .unwrap()
        .unwrap();
}
