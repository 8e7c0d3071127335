//! Library integration tests: real zenoh sessions in this process, on ephemeral loopback ports.
//! Process-level tests (router and nodes as separate programs) live in `router/tests/it`.

// Every reference config from rmw_zenoh and the workshop loads and opens unchanged.
mod reference_configs;
// Loans: SHM when the pool has room, a counted heap fallback when it has not.
mod pool;
// CDR byte for byte against fixtures written by rosbags.
mod cdr_fixtures;
// Generated types against golden payloads and their definitions.
mod generated;
// Malformed CDR, attachments and tokens: errors, never panics.
mod malformed;
// Random config files, overrides and ZENOH_* variables: errors, never panics.
mod config_fuzz;
// Typed ROS nodes: zero-copy clouds, tokens, transient local, rejected samples.
mod ros_nodes;
// Typed delivery: slow callbacks, drops per QoS, one validating parse.
mod delivery;
// Executors: threads per process, who runs a callback, callback groups, timers.
mod executor;
mod services;
// Actions: goals, feedback, cancels, results kept and expired, status.
mod actions;
// Type descriptions: every node describes the types it uses, as Jazzy nodes do.
mod type_description;
// Parameters: types, ranges, read-only, callbacks, overrides, events, opting out.
mod params;
// The layers of docs/architecture.md hold in the code of both crates.
mod layers;
// zenoh's statistics of closed sessions, bounded without a scrape.
mod zenoh_stats;
// The same-host lane: paths, switching, QoS, lane off.
mod lane;
// Dynamic messages against rosbags for every shipped type, both ways.
mod dynamic_oracle;

use zshm::Session;
use zshm::config::Environment;

/// An environment that skips the router check (these tests open routers themselves), with the
/// same-host lane off: these sessions share one process, and what most tests check is zenoh's
/// path. The lane's tests turn it on in a private domain (`lane::Domain::env`).
///
/// The first call also removes /dev/shm segments that earlier test runs left behind: this
/// process's own segments stay mapped until it exits, so the next test binary removes them.
pub fn test_env() -> Environment {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        zshm::internal::shm::cleanup_orphaned_segments();
    });
    Environment::empty()
        .with("ZENOH_ROUTER_CHECK_ATTEMPTS", "-1")
        .with("ZSHM_LANE", "off")
}

/// Two peer sessions: the first listens on an ephemeral port, the second connects to it.
pub async fn session_pair() -> (Session, Session) {
    session_pair_in(test_env()).await
}

/// [`session_pair`] in `env` (with a lane domain of `lane::Domain`, they talk through the lane).
pub async fn session_pair_in(env: Environment) -> (Session, Session) {
    let a = Session::builder()
        .environment(env.clone())
        .listen(["tcp/127.0.0.1:0"])
        .connect(Vec::<String>::new())
        .open()
        .await
        .unwrap();
    let locator = a.locators().await.into_iter().next().unwrap();
    let b = Session::builder()
        .environment(env)
        .listen(["tcp/127.0.0.1:0"])
        .connect([locator])
        .open()
        .await
        .unwrap();
    (a, b)
}

/// Path of a file under `tests/data/`.
pub fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}
