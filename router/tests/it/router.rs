//! `zshm router`: what it prints, how it stops, and which configs it accepts.

use nix::sys::signal::Signal;

use crate::support::{Router, Spawn, repo_path};

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
