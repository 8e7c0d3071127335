//! Services across processes: zshm's demo server and client against the independent Python
//! rmw_zenoh peer (each side calls the other), `zshm service list / type / call`, and the
//! failure modes a caller must see in bounded time: no server, a server that hangs and is killed.

use nix::sys::signal::Signal;

use crate::interop::peer;
use crate::support::{DEADLINE, Router, Spawn};

fn server(router: &Router) -> crate::support::Proc {
    let server = Spawn::zshm(
        "add-two-ints-server",
        &["add-two-ints-server", "-e", &router.locator],
    )
    .start();
    server.wait_for_stderr("the server", |l| l.contains("serving"));
    server
}

#[test]
fn a_python_rmw_zenoh_client_calls_zshms_server() {
    let router = Router::start(&[]);
    let mut server = server(&router);
    let mut call = peer(
        "py-call",
        &[
            "call",
            "--connect",
            &router.locator,
            "--count",
            "5",
            "--topic",
            "/add_two_ints",
        ],
    )
    .start();
    assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), server.dump());
    let report = call.json();
    assert_eq!(report["ok"], true, "{report}");
    let sums: Vec<i64> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["sum"].as_i64().unwrap())
        .collect();
    assert_eq!(sums, (1..=5).map(|k| 1001 * k).collect::<Vec<_>>());
    let lines = server.stdout();
    assert_eq!(
        lines.iter().filter(|l| *l == "Incoming request").count(),
        5,
        "{lines:?}"
    );
    assert!(lines.contains(&"a: 3 b: 3000".to_owned()), "{lines:?}");
    server.signal(Signal::SIGINT);
    assert_eq!(server.wait_exit(), 0, "{}", server.dump());
}

#[test]
fn zshms_client_and_service_call_call_a_python_server_and_the_graph_lists_it() {
    let router = Router::start(&[]);
    let mut serve = peer(
        "py-serve",
        &[
            "serve",
            "--connect",
            &router.locator,
            "--count",
            "2",
            "--topic",
            "/add_two_ints",
        ],
    )
    .start();
    let mut client = Spawn::zshm(
        "add-two-ints-client",
        &[
            "add-two-ints-client",
            "-e",
            &router.locator,
            "-a",
            "2",
            "-b",
            "3",
            "--timeout",
            "60",
        ],
    )
    .start();
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), serve.dump());
    assert_eq!(client.stdout(), ["Result of add_two_ints: 5"]);

    let mut list = Spawn::zshm("service-list", &["service", "list", "-t", "-e", &router.locator]).start();
    assert_eq!(list.wait_exit(), 0, "{}", list.dump());
    assert!(
        list.stdout()
            .contains(&"/add_two_ints [example_interfaces/srv/AddTwoInts]".to_owned()),
        "{}",
        list.dump()
    );
    let mut ty = Spawn::zshm(
        "service-type",
        &["service", "type", "/add_two_ints", "-e", &router.locator],
    )
    .start();
    assert_eq!(ty.wait_exit(), 0, "{}", ty.dump());
    assert_eq!(ty.stdout(), ["example_interfaces/srv/AddTwoInts"]);

    let mut call = Spawn::zshm(
        "service-call",
        &[
            "service",
            "call",
            "/add_two_ints",
            "example_interfaces/srv/AddTwoInts",
            "{a: 40, b: 2}",
            "-e",
            &router.locator,
            "--json",
        ],
    )
    .start();
    assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), serve.dump());
    let response: serde_json::Value = serde_json::from_str(call.stdout().last().unwrap()).unwrap();
    assert_eq!(response, serde_json::json!({"sum": 42}));

    assert_eq!(serve.wait_exit(), 0, "{}", serve.dump());
    let report = serve.json();
    assert_eq!(report["ok"], true, "{report}");
    let requests = report["requests"].as_array().unwrap();
    assert_eq!(
        (requests[0]["a"].as_i64(), requests[0]["b"].as_i64()),
        (Some(2), Some(3))
    );
    assert_eq!(
        requests
            .iter()
            .map(|r| r["sequence_number"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [1, 1],
        "each client numbers its requests from 1"
    );
    assert_eq!(
        report["clients"].as_array().unwrap().len(),
        2,
        "two clients, two GIDs"
    );
}

#[test]
fn service_call_prints_the_response_as_yaml_and_node_info_lists_the_server() {
    let router = Router::start(&[]);
    let mut server = server(&router);
    let mut call = Spawn::zshm(
        "service-call",
        &[
            "service",
            "call",
            "add_two_ints",
            "example_interfaces/srv/AddTwoInts",
            "{a: 2, b: 3}",
            "-e",
            &router.locator,
        ],
    )
    .start();
    assert_eq!(call.wait_exit(), 0, "{}", call.dump());
    let lines = call.stdout();
    let at = lines
        .iter()
        .position(|l| l == "response:")
        .expect("a response: line");
    assert_eq!(lines[at + 1], "sum: 5", "{lines:?}");
    server.signal(Signal::SIGTERM);
    assert_eq!(server.wait_exit(), 0, "{}", server.dump());
}

#[test]
fn without_a_server_the_client_and_service_call_exit_1_with_the_reason() {
    let router = Router::start(&[]);
    let mut client = Spawn::zshm(
        "add-two-ints-client",
        &["add-two-ints-client", "-e", &router.locator, "--timeout", "1"],
    )
    .start();
    assert_eq!(client.wait_exit(), 1, "{}", client.dump());
    assert!(
        client.stderr().contains("/add_two_ints not available within 1s"),
        "{}",
        client.dump()
    );
    let mut call = Spawn::zshm(
        "service-call",
        &[
            "service",
            "call",
            "/nobody",
            "example_interfaces/srv/AddTwoInts",
            "{}",
            "-e",
            &router.locator,
            "--timeout",
            "1",
        ],
    )
    .start();
    assert_eq!(call.wait_exit(), 1, "{}", call.dump());
    assert!(
        call.stdout()
            .contains(&"waiting for service to become available...".to_owned())
    );
    assert!(
        call.stderr().contains("no server for /nobody appeared within 1s"),
        "{}",
        call.dump()
    );
}

#[test]
fn bad_requests_and_types_exit_2_before_anything_is_opened() {
    for (args, says) in [
        (
            vec!["/x", "example_interfaces/srv/Nope", "{}"],
            "unknown service type",
        ),
        (vec!["/x", "std_msgs/msg/String", "{}"], "is not a service type"),
        (
            vec!["/x", "example_interfaces/srv/AddTwoInts", "{c: 1}"],
            "cannot read the request",
        ),
    ] {
        let mut all = vec!["service", "call"];
        all.extend(args);
        let mut call = Spawn::zshm("service-call", &all).start();
        assert_eq!(call.wait_exit(), 2, "{}", call.dump());
        assert!(call.stderr().contains(says), "{says}: {}", call.dump());
    }
}

#[test]
fn a_reply_that_comes_just_after_its_servers_token_went_away_still_answers_the_call() {
    // A server that replies and exits sends its reply and withdraws its token on different links,
    // so the withdrawal can come first (it did once in CI). Here it comes first by 300 ms.
    let router = Router::start(&[]);
    let mut serve = peer(
        "py-serve-withdraws",
        &[
            "serve",
            "--connect",
            &router.locator,
            "--count",
            "1",
            "--topic",
            "/leaving",
            "--withdraw-first",
            "0.3",
        ],
    )
    .start();
    let mut call = Spawn::zshm(
        "service-call",
        &[
            "service",
            "call",
            "/leaving",
            "example_interfaces/srv/AddTwoInts",
            "{a: 40, b: 2}",
            "-e",
            &router.locator,
            "--json",
        ],
    )
    .start();
    assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), serve.dump());
    let response: serde_json::Value = serde_json::from_str(call.stdout().last().unwrap()).unwrap();
    assert_eq!(response, serde_json::json!({"sum": 42}));
    assert_eq!(serve.wait_exit(), 0, "{}", serve.dump());
}

#[test]
fn a_call_to_a_server_that_hangs_and_is_killed_fails_without_waiting_for_the_timeout() {
    let router = Router::start(&[]);
    let serve = peer(
        "py-serve-silent",
        &[
            "serve",
            "--connect",
            &router.locator,
            "--count",
            "1",
            "--topic",
            "/stuck",
            "--silent",
            "--timeout",
            "600",
        ],
    )
    .start();
    let mut call = Spawn::zshm(
        "service-call",
        &[
            "service",
            "call",
            "/stuck",
            "example_interfaces/srv/AddTwoInts",
            "{a: 1, b: 2}",
            "-e",
            &router.locator,
            "--timeout",
            "600",
        ],
    )
    .start();
    serve.wait_for_stdout("the request held", |l| l.contains("\"holding\": 1"));
    serve.signal(Signal::SIGKILL);
    // Long before the call's own 600 s: the server's token goes when its link closes.
    let (code, _took) = call.wait_exit_within(DEADLINE);
    assert_eq!(code, 1, "{}", call.dump());
    let stderr = call.stderr();
    assert!(
        stderr.contains("went away during the call") || stderr.contains("ended without a reply"),
        "{}",
        call.dump()
    );
}
