//! Services, parameters and actions between real rclpy nodes on rmw_zenoh_cpp and zshm's, both
//! ways, through `zshm router`.

use super::*;

#[test]
fn services_both_ways_between_rclpy_on_rmw_zenoh_and_zshm() {
    let robot = Robot::new(false);
    let mut router = robot.zshm_router();

    // zshm client -> rclpy server.
    let mut server = robot
        .rclpy(
            "rclpy server",
            &["server", "--service", "/flip", "--count", "2", "--linger", "2"],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    for (data, success) in [(true, false), (false, true)] {
        let request = format!("{{data: {data}}}");
        let mut call = robot.zshm_run(&[
            "service",
            "call",
            "/flip",
            "std_srvs/srv/SetBool",
            &request,
            "--json",
            "--timeout",
            "60",
        ]);
        assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), server.dump());
        let response = call.json();
        assert_eq!(response["success"], success, "{}", call.dump());
        let was = if data { "was True" } else { "was False" };
        assert_eq!(response["message"], was, "{}", call.dump());
    }
    assert_rclpy_exit_ok(&mut server, &[]);
    assert_eq!(
        lines_with_prefix(&server, "request "),
        ["request True", "request False"]
    );

    // rclpy client -> zshm server: the reply's bytes as zshm wrote them.
    let _zshm_server = robot
        .zshm("add-two-ints-server", &["add-two-ints-server"])
        .start();
    let mut client = robot
        .rclpy(
            "rclpy client",
            &[
                "client",
                "--kind",
                "add",
                "--service",
                "/add_two_ints",
                "-a",
                "2",
                "-b",
                "40",
            ],
        )
        .start();
    assert_rclpy_exit_ok(&mut client, &[]);
    assert_eq!(
        lines_with_prefix(&client, "response "),
        ["response 000100002a00000000000000"],
        "sum 42, int64 little-endian after the encapsulation header"
    );
    drop(client);
    drop(_zshm_server);
    assert_quiet(&robot, &mut router.proc);
}

#[test]
fn zshm_param_on_an_rclpy_node_and_rclpys_parameter_client_on_a_zshm_node() {
    let robot = Robot::new(false);
    let _router = robot.zshm_router();
    let _node = robot
        .rclpy("rclpy param node", &["param-node", "--node-name", "robot_params"])
        .start();
    let param = |args: &[&str]| {
        let mut all = vec!["param"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--timeout", "60"]);
        robot.zshm_run(&all)
    };
    let list = param(&["list", "/robot_params"]);
    for name in ["  fixed", "  frame", "  gain", "  rate", "  use_sim_time"] {
        assert!(
            list.stdout().contains(&name.to_owned()),
            "{name} in {}",
            list.dump()
        );
    }
    let get = param(&["get", "/robot_params", "rate"]);
    assert_eq!(get.stdout(), ["Integer value is: 15"], "{}", get.dump());
    let set = param(&["set", "/robot_params", "rate", "30"]);
    assert_eq!(set.stdout(), ["Set parameter successful"], "{}", set.dump());
    let get = param(&["get", "/robot_params", "rate"]);
    assert_eq!(get.stdout(), ["Integer value is: 30"], "{}", get.dump());
    let mut refused = param(&["set", "/robot_params", "fixed", "false"]);
    assert_eq!(refused.wait_exit(), 1, "{}", refused.dump());
    assert!(refused.stderr().contains("read-only"), "{}", refused.dump());
    let describe = param(&["describe", "/robot_params", "gain"]);
    let lines = describe.stdout();
    assert_eq!(
        lines[..2],
        ["Parameter name: gain", "  Type: double"],
        "{}",
        describe.dump()
    );
    assert!(
        lines.contains(&"  Description: how hard to push".to_owned()),
        "{lines:?}"
    );
    let dump = param(&["dump", "/robot_params"]);
    let text = dump.stdout().join("\n");
    for part in [
        "/robot_params:",
        "ros__parameters:",
        "rate: 30",
        "frame: base_link",
    ] {
        assert!(text.contains(part), "{part:?} in\n{text}");
    }

    // rclpy's AsyncParameterClient on a zshm node (the camera's parameters).
    let _camera = robot
        .zshm(
            "cam-pub",
            &[
                "cam-pub",
                "--width",
                "8",
                "--height",
                "4",
                "--report",
                "100",
                "--ros-args",
                "-p",
                "rate:=5.0",
            ],
        )
        .start();
    let mut client = robot
        .rclpy(
            "rclpy parameter client",
            &[
                "param-client",
                "--target",
                "/sim_camera",
                "--name",
                "rate",
                "--value",
                "40.0",
            ],
        )
        .start();
    assert_rclpy_exit_ok(&mut client, &[]);
    assert_eq!(
        rclpy_lines(&client),
        [
            "list frame_id height rate use_sim_time width",
            "get rate 5.0",
            "set rate True",
            "get rate 40.0"
        ],
        "{}",
        client.dump()
    );
}

#[test]
fn actions_both_ways_with_feedback_result_and_cancel() {
    let robot = Robot::new(false);
    let _router = robot.zshm_router();
    let server = robot
        .rclpy(
            "rclpy action server",
            &[
                "action-server",
                "--action",
                "/rclpy_fibonacci",
                "--count",
                "2",
                "--period",
                "0.3",
                "--linger",
                "5",
            ],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    let goal = |order: &str| {
        robot.zshm(
            "send_goal",
            &[
                "action",
                "send_goal",
                "/rclpy_fibonacci",
                "action_tutorials_interfaces/action/Fibonacci",
                order,
                "--feedback",
                "--timeout",
                "60",
            ],
        )
    };
    let mut send = goal("{order: 3}").start();
    assert_eq!(send.wait_exit(), 0, "{}\n{}", send.dump(), server.dump());
    let lines = send.stdout();
    assert!(
        lines.iter().any(|l| l.starts_with("Goal accepted with ID: ")),
        "{lines:?}"
    );
    let tail = [
        "Result:",
        "    sequence:",
        "- 0",
        "- 1",
        "- 1",
        "- 2",
        "",
        "Goal finished with status: SUCCEEDED",
    ];
    assert_eq!(lines[lines.len() - tail.len()..], tail, "{lines:?}");
    assert!(
        lines
            .windows(4)
            .any(|w| w == ["Feedback:", "    partial_sequence:", "- 0", "- 1"]),
        "feedback came through: {lines:?}"
    );
    // Ctrl-C cancels the goal on the rclpy server.
    let mut cancel = goal("{order: 40}").start();
    cancel.wait_for_stdout("feedback", |l| l == "Feedback:");
    cancel.signal_process(nix::sys::signal::Signal::SIGINT);
    cancel.wait_exit();
    assert!(
        cancel.stdout().contains(&"Goal canceled.".to_owned()),
        "{}",
        cancel.dump()
    );
    server.wait_for_stdout("the server's cancel", |l| l == "canceled");

    // rclpy action client -> zshm's Fibonacci server.
    let _zshm_server = robot
        .zshm(
            "fibonacci-action-server",
            &["fibonacci-action-server", "--period", "0.3"],
        )
        .start();
    let mut client = robot
        .rclpy(
            "rclpy action client",
            &["action-client", "--action", "/fibonacci", "--order", "3"],
        )
        .start();
    assert_rclpy_exit_ok(&mut client, &[]);
    let lines = rclpy_lines(&client);
    assert_eq!(lines[0], "goal accepted", "{lines:?}");
    assert!(lines.contains(&"feedback [0, 1, 1]".to_owned()), "{lines:?}");
    assert_eq!(
        lines.last().unwrap(),
        "result [0, 1, 1, 2] SUCCEEDED",
        "{lines:?}"
    );
    let mut canceling = robot
        .rclpy(
            "rclpy action client that cancels",
            &[
                "action-client",
                "--action",
                "/fibonacci",
                "--order",
                "40",
                "--cancel",
            ],
        )
        .start();
    assert_rclpy_exit_ok(&mut canceling, &[]);
    let lines = rclpy_lines(&canceling);
    assert!(lines.contains(&"cancel 1".to_owned()), "{lines:?}");
    assert!(lines.last().unwrap().ends_with(" CANCELED"), "{lines:?}");
}
