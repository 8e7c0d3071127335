//! Actions across processes: zshm's Fibonacci demo server and client, `zshm action list / info
//! / send_goal`, a client killed mid-goal, and the failures a caller must see with the right
//! exit code: no server (1), a bad goal (2).

use nix::sys::signal::Signal;

use crate::support::{Proc, Router, Spawn};

/// A Fibonacci server on `router`, fast enough for tests (`--period`), once it serves.
fn server(router: &Router, period: &str) -> Proc {
    let server = Spawn::zshm(
        "fibonacci-action-server",
        &[
            "fibonacci-action-server",
            "-e",
            &router.locator,
            "--period",
            period,
        ],
    )
    .start();
    server.wait_for_stderr("the server", |l| l.contains("serving"));
    server
}

fn fibonacci_client(router: &Router, order: &str) -> Proc {
    Spawn::zshm(
        "fibonacci-action-client",
        &[
            "fibonacci-action-client",
            "-e",
            &router.locator,
            "--order",
            order,
            "--timeout",
            "20",
        ],
    )
    .start()
}

#[test]
fn the_fibonacci_demos_print_the_tutorials_lines_and_exit_0() {
    let router = Router::start(&[]);
    let mut server = server(&router, "0.05");
    let mut client = fibonacci_client(&router, "5");
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), server.dump());
    let lines = client.stdout();
    let feedback: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("Received feedback: "))
        .collect();
    assert_eq!(
        feedback,
        [
            "Received feedback: [0, 1, 1]",
            "Received feedback: [0, 1, 1, 2]",
            "Received feedback: [0, 1, 1, 2, 3]",
            "Received feedback: [0, 1, 1, 2, 3, 5]",
        ],
        "{lines:?}"
    );
    assert!(lines.contains(&"Goal accepted :)".to_owned()), "{lines:?}");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Result: [0, 1, 1, 2, 3, 5]")
    );
    server.wait_for_stdout("the end of the goal", |l| l == "Goal succeeded");
    let served = server.stdout();
    assert_eq!(served[0], "Received goal request with order 5", "{served:?}");
    assert_eq!(served[1], "Executing goal...", "{served:?}");
    assert!(
        served.contains(&"Publishing feedback: [0, 1, 1, 2, 3, 5]".to_owned()),
        "{served:?}"
    );

    // Rejected (an order whose sequence does not fit int32): said, and exit 1.
    let mut rejected = fibonacci_client(&router, "47");
    assert_eq!(rejected.wait_exit(), 1, "{}", rejected.dump());
    assert!(
        rejected.stdout().contains(&"Goal rejected :(".to_owned()),
        "{}",
        rejected.dump()
    );

    server.signal(Signal::SIGINT);
    assert_eq!(server.wait_exit(), 0, "{}", server.dump());
}

#[test]
fn a_client_killed_mid_goal_leaves_the_server_able_to_take_new_goals() {
    let router = Router::start(&[]);
    let server = server(&router, "0.05");
    let mut doomed = fibonacci_client(&router, "30");
    doomed.wait_for_stdout("a first feedback", |l| l.starts_with("Received feedback: "));
    doomed.signal_process(Signal::SIGKILL);
    doomed.wait_exit();
    let mut next = fibonacci_client(&router, "3");
    assert_eq!(next.wait_exit(), 0, "{}\n{}", next.dump(), server.dump());
    assert_eq!(
        next.stdout().last().map(String::as_str),
        Some("Result: [0, 1, 1, 2]")
    );
    server.wait_for_stdout("the abandoned goal's end", |l| l == "Goal succeeded");
}

#[test]
fn action_list_info_and_send_goal_show_what_ros2_action_shows() {
    let router = Router::start(&[]);
    let server = server(&router, "0.05");
    let mut list = Spawn::zshm("action-list", &["action", "list", "-t", "-e", &router.locator]).start();
    assert_eq!(list.wait_exit(), 0, "{}", list.dump());
    assert_eq!(
        list.stdout(),
        ["/fibonacci [action_tutorials_interfaces/action/Fibonacci]"]
    );

    let mut info = Spawn::zshm(
        "action-info",
        &["action", "info", "/fibonacci", "-e", &router.locator],
    )
    .start();
    assert_eq!(info.wait_exit(), 0, "{}", info.dump());
    assert_eq!(
        info.stdout(),
        [
            "Action: /fibonacci",
            "Action clients: 0",
            "Action servers: 1",
            "    /fibonacci_action_server"
        ]
    );

    let mut node = Spawn::zshm(
        "node-info",
        &["node", "info", "/fibonacci_action_server", "-e", &router.locator],
    )
    .start();
    assert_eq!(node.wait_exit(), 0, "{}", node.dump());
    let lines = node.stdout();
    let servers = lines
        .iter()
        .position(|l| l == "  Action Servers:")
        .expect("an action servers section");
    assert_eq!(
        lines[servers + 1],
        "    /fibonacci: action_tutorials_interfaces/action/Fibonacci"
    );

    let mut services = Spawn::zshm("service-list", &["service", "list", "-e", &router.locator]).start();
    assert_eq!(services.wait_exit(), 0, "{}", services.dump());
    assert!(
        services.stdout().iter().all(|l| !l.contains("/_action/")),
        "action services are hidden: {:?}",
        services.stdout()
    );

    let mut send = Spawn::zshm(
        "send-goal",
        &[
            "action",
            "send_goal",
            "/fibonacci",
            "action_tutorials_interfaces/action/Fibonacci",
            "{order: 2}",
            "--feedback",
            "-e",
            &router.locator,
        ],
    )
    .start();
    assert_eq!(send.wait_exit(), 0, "{}\n{}", send.dump(), server.dump());
    let lines = send.stdout();
    assert_eq!(lines[0], "Waiting for an action server to become available...");
    assert_eq!(lines[1..4], ["Sending goal:", "     order: 2", ""], "{lines:?}");
    assert!(lines[4].starts_with("Goal accepted with ID: "), "{lines:?}");
    assert_eq!(lines[4].len(), "Goal accepted with ID: ".len() + 32, "{lines:?}");
    let expected_tail = [
        "",
        "Feedback:",
        "    partial_sequence:",
        "- 0",
        "- 1",
        "- 1",
        "",
        "Result:",
        "    sequence:",
        "- 0",
        "- 1",
        "- 1",
        "",
        "Goal finished with status: SUCCEEDED",
    ];
    assert_eq!(lines[5..], expected_tail, "{lines:?}");
}

#[test]
fn send_goal_exits_1_without_a_server_and_2_on_a_bad_goal() {
    let router = Router::start(&[]);
    let mut nobody = Spawn::zshm(
        "send-goal-nobody",
        &[
            "action",
            "send_goal",
            "/nobody",
            "action_tutorials_interfaces/action/Fibonacci",
            "{order: 2}",
            "--timeout",
            "1",
            "-e",
            &router.locator,
        ],
    )
    .start();
    assert_eq!(nobody.wait_exit(), 1, "{}", nobody.dump());
    assert!(
        nobody.stderr().contains("no server for /nobody"),
        "{}",
        nobody.dump()
    );

    let mut client = Spawn::zshm(
        "client-nobody",
        &["fibonacci-action-client", "--timeout", "1", "-e", &router.locator],
    )
    .start();
    assert_eq!(client.wait_exit(), 1, "{}", client.dump());
    assert!(client.stderr().contains("not available"), "{}", client.dump());

    for (what, type_name, goal) in [
        (
            "bad YAML",
            "action_tutorials_interfaces/action/Fibonacci",
            "{order: [1",
        ),
        (
            "a wrong field type",
            "action_tutorials_interfaces/action/Fibonacci",
            "{order: x}",
        ),
        ("an unknown type", "nope/action/Nope", "{}"),
    ] {
        let mut bad = Spawn::zshm(
            "send-goal-bad",
            &[
                "action",
                "send_goal",
                "/fibonacci",
                type_name,
                goal,
                "-e",
                &router.locator,
            ],
        )
        .start();
        assert_eq!(bad.wait_exit(), 2, "{what}: {}", bad.dump());
        assert!(bad.stderr().contains("zshm: error:"), "{what}: {}", bad.dump());
    }
}
