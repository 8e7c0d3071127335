//! Services, parameters and actions between real rclpy nodes on Fast DDS and zshm nodes, both
//! ways: the bridge frames the DDS side as rmw_fastrtps_cpp does (plain CDR, the call's identity
//! in the RTPS sample identity and `related_sample_identity`).

use super::*;

/// `zshm <args> -e <router>` in `net`, run to its end.
fn zshm_run(net: &Net, router: &Router, args: &[&str]) -> Proc {
    let mut all = args.to_vec();
    all.extend_from_slice(&["-e", &router.locator]);
    let mut proc = net.zshm(args[..2].join(" ").as_str(), &all).start();
    proc.wait_exit();
    proc
}

#[test]
fn zshm_calls_an_rclpy_server_and_rclpy_calls_a_zshm_server_in_fast_dds_framing() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);

    // zenoh client -> rclpy server.
    let mut server = net
        .rclpy(
            "rclpy server",
            &["server", "--service", "/flip", "--count", "2", "--linger", "5"],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    for (data, success) in [(true, false), (false, true)] {
        let request = format!("{{data: {data}}}");
        let mut call = zshm_run(
            &net,
            &router,
            &[
                "service",
                "call",
                "/flip",
                "std_srvs/srv/SetBool",
                &request,
                "--json",
                "--timeout",
                "60",
            ],
        );
        assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), bridge.dump());
        let response = call.json();
        assert_eq!(response["success"], success, "{}", call.dump());
        let was = if data { "was True" } else { "was False" };
        assert_eq!(response["message"], was, "{}", call.dump());
    }
    assert_eq!(server.wait_exit(), 0, "{}", server.dump());
    assert_eq!(
        lines_with_prefix(&server, "request "),
        ["request True", "request False"],
        "each request reached the rclpy server once"
    );
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: /flip "));
    assert_eq!(
        up,
        "route up: /flip [std_srvs/srv/SetBool] zenoh clients -> DDS server (reliable, volatile; type hash from zenoh peer; rmw_fastrtps_cpp's sample identity)"
    );

    // rclpy client -> zenoh server: the reply's bytes as the zshm server wrote them.
    let _zshm_server = net
        .zshm(
            "add-two-ints-server",
            &["add-two-ints-server", "-e", &router.locator],
        )
        .start();
    let mut client = net
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
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), bridge.dump());
    assert_eq!(
        lines_with_prefix(&client, "response "),
        ["response 000100002a00000000000000"],
        "sum 42, int64 little-endian after the encapsulation header"
    );
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: /add_two_ints "));
    assert_eq!(
        up,
        "route up: /add_two_ints [example_interfaces/srv/AddTwoInts] DDS clients -> zenoh server (reliable, volatile; type hash from zenoh peer; rmw_fastrtps_cpp's sample identity)"
    );
    let lines = stop_bridge(bridge);
    for line in lines.iter().filter(|l| l.starts_with("route down: ")) {
        assert!(line.ends_with("no drops"), "{line}");
    }
}

/// The stdout lines of `proc` that start with `prefix`.
fn lines_with_prefix(proc: &Proc, prefix: &str) -> Vec<String> {
    proc.stdout()
        .into_iter()
        .filter(|l| l.starts_with(prefix))
        .collect()
}

#[test]
fn an_rclpy_server_that_never_answers_gives_the_zshm_caller_its_timeout() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let server = net
        .rclpy(
            "silent rclpy server",
            &["server", "--service", "/flip", "--silent"],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    // The route first: the timeout must be the server's silence, not a missing route.
    let mut warm = zshm_run(
        &net,
        &router,
        &[
            "service",
            "call",
            "/flip",
            "std_srvs/srv/SetBool",
            "{data: true}",
            "--timeout",
            "5",
        ],
    );
    bridge.wait_for_stdout("route up", |l| l.starts_with("route up: /flip "));
    server.wait_for_stdout("the request", |l| l == "request True");
    assert_ne!(warm.wait_exit(), 0, "{}", warm.dump());
    assert!(
        warm.stderr().contains("service /flip did not answer within"),
        "{}",
        warm.dump()
    );
    drop(server);
    stop_bridge(bridge);
}

#[test]
fn zshm_param_reads_and_sets_an_rclpy_node_and_rclpys_parameter_client_a_zshm_node() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let _node = net
        .rclpy("rclpy param node", &["param-node", "--node-name", "robot_params"])
        .start();
    let param = |args: &[&str]| {
        let mut all = vec!["param"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--timeout", "60"]);
        zshm_run(&net, &router, &all)
    };

    let mut list = param(&["list", "/robot_params"]);
    assert_eq!(list.wait_exit(), 0, "{}\n{}", list.dump(), bridge.dump());
    for name in ["  fixed", "  frame", "  gain", "  rate", "  use_sim_time"] {
        assert!(
            list.stdout().contains(&name.to_owned()),
            "{name} in {}",
            list.dump()
        );
    }
    let get = param(&["get", "/robot_params", "rate"]);
    assert_eq!(get.stdout(), ["Integer value is: 15"], "{}", get.dump());
    let mut set = param(&["set", "/robot_params", "rate", "30"]);
    assert_eq!(set.wait_exit(), 0, "{}", set.dump());
    assert_eq!(set.stdout(), ["Set parameter successful"], "{}", set.dump());
    let get = param(&["get", "/robot_params", "rate"]);
    assert_eq!(get.stdout(), ["Integer value is: 30"], "{}", get.dump());
    let mut refused = param(&["set", "/robot_params", "fixed", "false"]);
    assert_eq!(refused.wait_exit(), 1, "{}", refused.dump());
    assert!(refused.stderr().contains("read-only"), "{}", refused.dump());
    let describe = param(&["describe", "/robot_params", "gain"]);
    let lines = describe.stdout();
    assert_eq!(lines[0], "Parameter name: gain", "{}", describe.dump());
    assert_eq!(lines[1], "  Type: double", "{}", describe.dump());
    assert!(
        lines.contains(&"  Description: how hard to push".to_owned()),
        "{lines:?}"
    );
    let mut dump = param(&["dump", "/robot_params"]);
    assert_eq!(dump.wait_exit(), 0, "{}", dump.dump());
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
    let _camera = net
        .zshm(
            "cam-pub",
            &[
                "cam-pub",
                "-e",
                &router.locator,
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
    let mut client = net
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
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), bridge.dump());
    assert_eq!(
        client.stdout(),
        [
            "list frame_id height rate use_sim_time width",
            "get rate 5.0",
            "set rate True",
            "get rate 40.0"
        ],
        "{}",
        client.dump()
    );
    stop_bridge(bridge);
}

#[test]
fn zshm_drives_an_rclpy_action_server_and_rclpy_a_zshm_one_with_feedback_result_and_cancel() {
    let net = Net::for_fast_dds();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let server = net
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
    let mut send = net
        .zshm(
            "send_goal",
            &[
                "action",
                "send_goal",
                "/rclpy_fibonacci",
                "action_tutorials_interfaces/action/Fibonacci",
                "{order: 3}",
                "--feedback",
                "-e",
                &router.locator,
                "--timeout",
                "60",
            ],
        )
        .start();
    assert_eq!(
        send.wait_exit(),
        0,
        "{}\n{}\n{}",
        send.dump(),
        server.dump(),
        bridge.dump()
    );
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
    let mut cancel = net
        .zshm(
            "send_goal to cancel",
            &[
                "action",
                "send_goal",
                "/rclpy_fibonacci",
                "action_tutorials_interfaces/action/Fibonacci",
                "{order: 40}",
                "--feedback",
                "-e",
                &router.locator,
                "--timeout",
                "60",
            ],
        )
        .start();
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
    let _zshm_server = net
        .zshm(
            "fibonacci-action-server",
            &[
                "fibonacci-action-server",
                "-e",
                &router.locator,
                "--period",
                "0.3",
            ],
        )
        .start();
    let mut client = net
        .rclpy(
            "rclpy action client",
            &["action-client", "--action", "/fibonacci", "--order", "3"],
        )
        .start();
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), bridge.dump());
    let lines = client.stdout();
    assert_eq!(lines[0], "goal accepted", "{lines:?}");
    assert!(lines.contains(&"feedback [0, 1, 1]".to_owned()), "{lines:?}");
    assert_eq!(
        lines.last().unwrap(),
        "result [0, 1, 1, 2] SUCCEEDED",
        "{lines:?}"
    );
    let mut canceling = net
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
    assert_eq!(
        canceling.wait_exit(),
        0,
        "{}\n{}",
        canceling.dump(),
        bridge.dump()
    );
    let lines = canceling.stdout();
    assert!(lines.contains(&"cancel 1".to_owned()), "{lines:?}");
    assert!(lines.last().unwrap().ends_with(" CANCELED"), "{lines:?}");
    stop_bridge(bridge);
}
