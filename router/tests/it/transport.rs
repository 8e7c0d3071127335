//! The data path between real processes: 4 MiB payloads through the router, checked byte for
//! byte by `zshm sub`, with shared memory on, off, and impossible for the publisher.

use crate::support::{Router, Spawn, in_private_dev_shm, repo_path, with_memlock_limit_of_an_ordinary_user};
use serde_json::Value;

const COUNT: &str = "200";
const SIZE: &str = "4194304";

/// Runs `zshm sub` then `zshm pub` (the publisher spawned by `publisher`) against `router`, and
/// returns both JSON summaries after checking both exited 0.
fn exchange(
    router: &Router,
    session_args: &[&str],
    publisher: impl FnOnce(Vec<&str>) -> Spawn,
) -> (Value, Value, String) {
    let mut sub_args = vec!["sub", "-e", &router.locator, "-n", COUNT, "-k", "it/transport"];
    sub_args.extend_from_slice(session_args);
    let mut sub = Spawn::zshm("sub", &sub_args).start();
    sub.wait_for_stderr("subscription", |l| l.contains("subscribed"));

    let mut pub_args = vec![
        "pub",
        "-e",
        &router.locator,
        "-n",
        COUNT,
        "-s",
        SIZE,
        "-k",
        "it/transport",
    ];
    pub_args.extend_from_slice(session_args);
    let mut publisher = publisher(pub_args).start();

    assert_eq!(sub.wait_exit(), 0, "subscriber failed\n{}", sub.dump());
    assert_eq!(publisher.wait_exit(), 0, "publisher failed\n{}", publisher.dump());
    (publisher.json(), sub.json(), publisher.stderr())
}

fn assert_all_delivered_intact(sub: &Value) {
    assert_eq!(sub["distinct"], 200, "{sub}");
    assert_eq!(sub["missing"], 0, "{sub}");
    assert_eq!(sub["tally"]["corrupt"], 0, "{sub}");
    assert_eq!(sub["tally"]["duplicates"], 0, "{sub}");
    assert_eq!(sub["tally"]["bytes"], 200 * 4194304u64, "{sub}");
}

#[test]
fn shm_on_delivers_200_payloads_of_4_mib_byte_exact_all_through_shm() {
    let router = Router::start(&[]);
    let (publisher, sub, _) = exchange(&router, &[], |args| Spawn::zshm("pub", &args));
    assert_all_delivered_intact(&sub);
    assert_eq!(sub["tally"]["shm"], 200, "every sample must be SHM-backed: {sub}");
    assert_eq!(publisher["shm_status"]["active"], true, "{publisher}");
    assert_eq!(publisher["stats"]["published_shm_messages"], 200, "{publisher}");
    assert_eq!(publisher["stats"]["fallback_pool_exhausted"], 0, "{publisher}");
}

#[test]
fn shm_on_copy_path_publishes_through_shm_too() {
    let router = Router::start(&[]);
    let (publisher, sub, _) = exchange(&router, &[], |mut args| {
        args.push("--copy");
        Spawn::zshm("pub", &args)
    });
    assert_all_delivered_intact(&sub);
    assert_eq!(sub["tally"]["shm"], 200, "{sub}");
    assert_eq!(publisher["stats"]["published_shm_messages"], 200, "{publisher}");
}

#[test]
fn tcp_configs_deliver_byte_exact_over_tcp() {
    let router_config = repo_path("configs/ROUTER_CONFIG_TCP.json5");
    let session_config = repo_path("configs/SESSION_CONFIG_TCP.json5");
    let router = Router::start(&["-c", &router_config]);
    assert!(router.proc.stdout()[1].contains("shared memory off (disabled in the config)"));
    let (publisher, sub, _) = exchange(&router, &["-c", &session_config], |args| {
        Spawn::zshm("pub", &args)
    });
    assert_all_delivered_intact(&sub);
    assert_eq!(sub["tally"]["shm"], 0, "{sub}");
    assert_eq!(sub["stats"]["received_net_messages"], 200, "{sub}");
    assert_eq!(
        publisher["shm_status"]["reason"], "disabled_in_config",
        "{publisher}"
    );
}

/// The publisher cannot use /dev/shm; everything must still arrive, over TCP, and the publisher
/// must say why once.
fn assert_tcp_fallback(wrapper: &[String], reason: &str) {
    let router = Router::start(&[]);
    let (publisher, sub, pub_stderr) = exchange(&router, &[], |args| Spawn::wrapped("pub", wrapper, &args));
    assert_all_delivered_intact(&sub);
    assert_eq!(sub["tally"]["shm"], 0, "{sub}");
    assert_eq!(publisher["shm_status"]["active"], false, "{publisher}");
    assert_eq!(publisher["shm_status"]["reason"], reason, "{publisher}");
    let warnings: Vec<&str> = pub_stderr
        .lines()
        .filter(|l| l.contains("falling back to TCP"))
        .collect();
    assert_eq!(warnings.len(), 1, "exactly one WARN line expected:\n{pub_stderr}");
    assert!(
        warnings[0].contains("WARN") && warnings[0].contains("fix:"),
        "{}",
        warnings[0]
    );
}

#[test]
fn tcp_fallback_delivers_byte_exact_when_dev_shm_is_read_only() {
    assert_tcp_fallback(&in_private_dev_shm("ro,size=64k"), "dev_shm_read_only");
}

#[test]
fn tcp_fallback_delivers_byte_exact_when_dev_shm_is_too_small() {
    assert_tcp_fallback(&in_private_dev_shm("size=64k"), "dev_shm_too_small");
}

#[test]
fn tcp_fallback_delivers_byte_exact_when_memlock_limit_is_too_low() {
    assert_tcp_fallback(&with_memlock_limit_of_an_ordinary_user(), "memlock_too_low");
}

#[test]
fn pool_smaller_than_message_falls_back_to_heap_counted_and_delivered() {
    let router = Router::start(&[]);
    let (publisher, sub, pub_stderr) = exchange(&router, &[], |args| {
        Spawn::zshm("pub", &args).env("ZENOH_SHM_ALLOC_SIZE", "1048576")
    });
    assert_all_delivered_intact(&sub);
    assert_eq!(
        publisher["stats"]["fallback_larger_than_pool"], 200,
        "{publisher}"
    );
    assert_eq!(publisher["stats"]["published_heap_messages"], 200, "{publisher}");
    let warnings = pub_stderr
        .lines()
        .filter(|l| l.contains("fell back to the heap"))
        .count();
    assert_eq!(warnings, 1, "one WARN per reason:\n{pub_stderr}");
}
