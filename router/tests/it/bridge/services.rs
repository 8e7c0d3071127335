//! Services both ways with the Cyclone DDS peer (rmw_cyclonedds_cpp's request header).

use super::*;

#[test]
fn bridge_lets_a_zshm_client_call_a_dds_server_with_cyclones_request_header() {
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let server = net
        .dds(
            "dds add server",
            &["add-server", "--count", "2", "--timeout", "100"],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    let mut client = net
        .zshm(
            "add-two-ints-client",
            &[
                "add-two-ints-client",
                "-a",
                "2",
                "-b",
                "3",
                "-e",
                &router.locator,
                "--timeout",
                "60",
            ],
        )
        .start();
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), bridge.dump());
    assert!(
        client.stdout().iter().any(|l| l == "Result of add_two_ints: 5"),
        "{}",
        client.dump()
    );
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: "));
    assert_eq!(
        up,
        "route up: /add_two_ints [example_interfaces/srv/AddTwoInts] zenoh clients -> DDS server (reliable, volatile; type hash from zenoh peer; rmw_cyclonedds_cpp's request header)"
    );
    // A second client, through `zshm service call`, gets its own reply (its own sequence number
    // under the bridge's header guid).
    let mut call = net
        .zshm(
            "service call",
            &[
                "service",
                "call",
                "/add_two_ints",
                "example_interfaces/srv/AddTwoInts",
                "{a: 40, b: 2}",
                "-e",
                &router.locator,
                "--json",
                "--timeout",
                "60",
            ],
        )
        .start();
    assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), bridge.dump());
    assert_eq!(call.json()["sum"], 42, "{}", call.dump());
    let mut server = server;
    assert_eq!(server.wait_exit(), 0, "{}", server.dump());
    assert_eq!(
        server
            .stdout()
            .into_iter()
            .filter(|l| l.starts_with("request "))
            .collect::<Vec<_>>(),
        ["request 2 3", "request 40 2"],
        "each request reached the DDS server once"
    );
    stop_bridge(bridge);
}

#[test]
fn bridge_lets_a_dds_client_call_a_zshm_server() {
    let net = Net::new();
    let router = net.router();
    let server = net
        .zshm(
            "add-two-ints-server",
            &["add-two-ints-server", "-e", &router.locator],
        )
        .start();
    let bridge = net.bridge(&router, &[]);
    let mut client = net
        .dds(
            "dds add client",
            &["add-client", "-a", "7", "-b", "8", "--timeout", "60"],
        )
        .start();
    assert_eq!(client.wait_exit(), 0, "{}\n{}", client.dump(), bridge.dump());
    assert_eq!(
        client.stdout().last().map(String::as_str),
        Some("sum 15"),
        "{}",
        client.dump()
    );
    let up = bridge.wait_for_stdout("route up", |l| l.starts_with("route up: "));
    assert_eq!(
        up,
        "route up: /add_two_ints [example_interfaces/srv/AddTwoInts] DDS clients -> zenoh server (reliable, volatile; type hash from zenoh peer; rmw_cyclonedds_cpp's request header)"
    );
    server.wait_for_stdout("the request", |l| l.contains("a: 7 b: 8"));
    let lines = stop_bridge(bridge);
    let down = lines.iter().find(|l| l.starts_with("route down: ")).unwrap();
    assert_eq!(count_in(down, "messages"), 2, "one request, one reply: {down}");
}

#[test]
fn a_dds_server_that_never_answers_gives_the_zshm_caller_its_timeout() {
    let net = Net::new();
    let router = net.router();
    let bridge = net.bridge(&router, &[]);
    let server = net
        .dds(
            "silent dds server",
            &[
                "add-server",
                "--silent",
                "--count",
                "1",
                "--timeout",
                "100",
                "--linger",
                "60",
            ],
        )
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    let mut client = net
        .zshm(
            "add-two-ints-client",
            &["add-two-ints-client", "-e", &router.locator, "--timeout", "20"],
        )
        .start();
    // The request reached the server (so the route and the wait were real), then the caller
    // gave up on its own timeout with a reason, and nothing hung.
    server.wait_for_stdout("the request", |l| l == "request 2 3");
    assert_eq!(client.wait_exit(), 1, "{}", client.dump());
    assert!(
        client
            .stderr()
            .contains("service /add_two_ints did not answer within 20s"),
        "{}",
        client.dump()
    );
    stop_bridge(bridge);
}
