//! `zshm router`: what it prints, how it stops, and which configs it accepts.

use nix::sys::signal::Signal;

use crate::support::routing_tree::{RESOURCE_LOG, router_zid, wait_until_forgotten};
use crate::support::{Router, Spawn, procfs, repo_path};

fn assert_started_line(router: &Router) {
    let first = &router.proc.stdout()[0];
    let zid = first
        .strip_prefix("Started Zenoh router with id ")
        .unwrap_or_else(|| panic!("{first}"));
    assert!(!zid.is_empty() && zid.len() <= 32, "{zid}");
    assert!(
        zid.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{zid}"
    );
}

fn assert_stops_cleanly_on(signal: Signal) {
    let mut router = Router::start(&[]);
    assert_started_line(&router);
    let status = &router.proc.stdout()[1];
    assert!(
        status.contains("config built-in configs/ROUTER_CONFIG.json5"),
        "{status}"
    );
    assert!(
        status.contains("shared memory on (pool up to 64.1 MiB, created on first use; messages >= 512 B)"),
        "{status}"
    );
    router.proc.signal(signal);
    assert_eq!(router.proc.wait_exit(), 0, "{}", router.proc.dump());
    // Nothing is left in the router's process group.
    let group = nix::unistd::Pid::from_raw(router.proc.pid() as i32);
    assert!(
        nix::sys::signal::killpg(group, None).is_err(),
        "processes remain in the router's group"
    );
}

#[test]
fn prints_rmw_zenohd_line_and_exits_0_on_sigint() {
    assert_stops_cleanly_on(Signal::SIGINT);
}

#[test]
fn exits_0_on_sigterm() {
    assert_stops_cleanly_on(Signal::SIGTERM);
}

#[test]
fn no_shm_flag_is_reported_in_the_status_line() {
    let router = Router::start(&["--no-shm"]);
    assert!(router.proc.stdout()[1].contains("shared memory off (disabled by --no-shm)"));
}

#[test]
fn config_from_environment_is_used_and_named() {
    let config = repo_path("configs/ROUTER_CONFIG_TCP.json5");
    let proc = Spawn::zshm("router", &["router", "-l", "tcp/127.0.0.1:0", "--no-metrics"])
        .env("ZENOH_ROUTER_CONFIG_URI", &config)
        .start();
    let status = proc.wait_for_stdout("status line", |l| l.starts_with("zshm router: listening on "));
    assert!(status.contains("(from ZENOH_ROUTER_CONFIG_URI)"), "{status}");
    assert!(
        status.contains("shared memory off (disabled in the config)"),
        "{status}"
    );
}

/// Every router config shipped by rmw_zenoh and the workshop starts the router unchanged (the
/// listen endpoint is moved to an ephemeral port so tests can run in parallel).
#[test]
fn reference_router_configs_start_unchanged() {
    for name in [
        "DEFAULT_RMW_ZENOH_ROUTER_CONFIG.json5",
        "WORKSHOP_EX3_ROUTER_CONFIG.json5",
    ] {
        let config = repo_path(&format!("session-lib/tests/data/reference/{name}"));
        let router = Router::start(&["-c", &config]);
        assert_started_line(&router);
        assert!(
            router.proc.stdout()[1].contains(name),
            "{}",
            router.proc.stdout()[1]
        );
    }
}

/// A taken metrics port does not stop the router after `Started Zenoh router` (launch files
/// trust that line): it says why metrics are off and routes.
#[test]
fn a_taken_metrics_port_leaves_the_router_routing() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().to_string();
    let mut router = Router::launch(
        Spawn::zshm("router", &["router", "-l", "tcp/127.0.0.1:0", "--metrics", &port]),
        "tcp/127.0.0.1:",
    );
    assert_started_line(&router);
    let status = &router.proc.stdout()[1];
    assert!(
        status.contains("metrics off (cannot listen for metrics on"),
        "{status}"
    );
    let _talker = Spawn::zshm("talker", &["talker", "-e", &router.locator, "-r", "20"]).start();
    let mut listener = Spawn::zshm("listener", &["listener", "-e", &router.locator, "-n", "3"]).start();
    assert_eq!(listener.wait_exit(), 0, "{}", listener.dump());
    assert!(!router.proc.exited(), "{}", router.proc.dump());
    router.proc.signal(Signal::SIGTERM);
    assert_eq!(router.proc.wait_exit(), 0);
}

/// The metrics endpoint closes a connection that sends nothing, so idle clients cannot hold
/// its slots, and stops on SIGTERM.
#[test]
fn the_metrics_endpoint_drops_idle_connections_and_stops_on_sigterm() {
    use std::io::Read;
    let mut router = Router::start(&[]);
    let address = router
        .metrics
        .trim_start_matches("http://")
        .trim_end_matches("/metrics")
        .to_owned();
    let mut idle = std::net::TcpStream::connect(&address).unwrap();
    idle.set_read_timeout(Some(std::time::Duration::from_secs(90)))
        .unwrap();
    let mut buf = [0u8; 16];
    // The server closing reads as end of file (or a reset); our own read timeout does not count.
    let closed = match idle.read(&mut buf) {
        Ok(0) => true,
        Err(err) => err.kind() == std::io::ErrorKind::ConnectionReset,
        Ok(_) => false,
    };
    assert!(closed, "the idle connection is still open");
    router.proc.signal(Signal::SIGTERM);
    assert_eq!(router.proc.wait_exit(), 0, "{}", router.proc.dump());
    assert!(
        std::net::TcpStream::connect(&address).is_err(),
        "the endpoint still answers"
    );
}

/// A node that waits inside zenoh's `open` for a router that never answers still stops on the
/// first SIGTERM.
#[test]
fn a_signal_ends_a_node_still_opening_its_session() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("tcp/{}", closed.local_addr().unwrap());
    drop(closed);
    let mut node = Spawn::zshm("listener", &["listener", "-e", &endpoint])
        .env(
            "ZENOH_CONFIG_OVERRIDE",
            "connect/exit_on_failure={peer:true};connect/timeout_ms={peer:-1}",
        )
        .start();
    std::thread::sleep(std::time::Duration::from_millis(500)); // let it enter zenoh's open
    assert!(!node.exited(), "{}", node.dump());
    // It would wait forever otherwise (connect timeout -1): exiting at all, with the message
    // below, is the signal's doing.
    node.signal(Signal::SIGTERM);
    assert_eq!(node.wait_exit(), 1, "{}", node.dump());
    assert!(
        node.stderr()
            .contains("SIGTERM received while opening the session"),
        "{}",
        node.dump()
    );
}

/// A router keeps nothing of a node that has left: every key its session declared (its zenoh
/// admin space `@/<zid>/peer/**`, its graph token, its queryables) and every prefix of them named
/// after it leaves the routing tree, whether the node ended or was SIGKILLed. zenoh 1.9's router
/// kept `@/<zid>` and `@/<zid>/peer` of every session that had an admin space, about 1.4 KB each
/// (third_party/zenoh/PATCHES.md, 2).
#[test]
fn a_router_keeps_nothing_of_a_node_that_left() {
    let router = Router::launch(
        Spawn::zshm("router", &["router", "-l", "tcp/127.0.0.1:0", "--no-metrics"])
            .env("RUST_LOG", RESOURCE_LOG),
        "tcp/127.0.0.1:",
    );
    let zid = router_zid(&router.proc);
    let mut listener = Spawn::zshm("listener", &["listener", "-e", &router.locator]).start();
    listener.wait_for_stderr("listening", |l| l.contains("listening"));
    let mut nodes = Spawn::zshm("nodes", &["nodes", "-e", &router.locator, "--timeout", "0.5"]).start();
    assert_eq!(nodes.wait_exit(), 0, "{}", nodes.dump());
    listener.signal(Signal::SIGKILL);
    listener.wait_exit();
    wait_until_forgotten(&router.proc, &zid);
    // Both sessions were seen, so the check above covered them.
    let log = router.proc.stderr();
    let admin_spaces = log
        .lines()
        .filter(|l| l.contains("Register resource @/") && l.ends_with("/peer/**"))
        .count();
    assert_eq!(admin_spaces, 2, "{}", router.proc.dump());
}

/// The router keeps one malloc arena, however many threads its runtimes run and sessions come
/// and go: glibc's per-thread arenas each kept a little of every closed session
/// (docs/RELIABILITY.md, "What was left: malloc's arenas"). A `MALLOC_ARENA_MAX` the user set
/// still wins, which is also how this test shows it can see arenas at all.
#[test]
fn a_router_keeps_one_malloc_arena_unless_told_otherwise() {
    let spawn = || Spawn::zshm("router", &["router", "-l", "tcp/127.0.0.1:0", "--no-metrics"]);
    let bounded = Router::launch(spawn(), "tcp/127.0.0.1:");
    let told = Router::launch(spawn().env("MALLOC_ARENA_MAX", "8"), "tcp/127.0.0.1:");
    for router in [&bounded, &told] {
        for _ in 0..3 {
            let mut nodes =
                Spawn::zshm("nodes", &["nodes", "-e", &router.locator, "--timeout", "0.2"]).start();
            assert_eq!(nodes.wait_exit(), 0, "{}", nodes.dump());
        }
    }
    let arenas = |router: &Router| procfs::malloc_arenas(router.proc.pid());
    assert_eq!(arenas(&bounded), 0, "arenas besides the main one");
    assert!(
        arenas(&told) >= 2,
        "{} arenas with MALLOC_ARENA_MAX=8",
        arenas(&told)
    );
}
