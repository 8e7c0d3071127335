//! Interop with an independent implementation of rmw_zenoh's protocol: a Python peer on the
//! eclipse-zenoh package (`router/tests/interop/rmw_zenoh_peer.py`), written from the protocol
//! notes, not from zshm's code. It must see zshm's tokens and decode its samples, and zshm must
//! accept its samples and reject its garbage.
//!
//! The Python environment comes from `$ZSHM_PYTHON`, else `.venv/bin/python`;
//! `tools/test.sh` (the README's test command) creates it.

use std::time::{Duration, Instant};

use crate::support::{DEADLINE, LaneRoot, Router, Spawn, repo_path};

pub(crate) fn python() -> String {
    let python = std::env::var("ZSHM_PYTHON").unwrap_or_else(|_| repo_path(".venv/bin/python"));
    assert!(
        std::path::Path::new(&python).exists(),
        "no Python environment at {python}: run tools/test.sh, or python3 -m venv .venv && \
         .venv/bin/pip install -r router/tests/interop/requirements.txt"
    );
    python
}

pub(crate) fn peer(name: &str, args: &[&str]) -> Spawn {
    let script = repo_path("router/tests/interop/rmw_zenoh_peer.py");
    let mut all = vec![script.as_str()];
    all.extend_from_slice(args);
    Spawn::program(name, &python(), &all)
}

#[test]
fn python_rmw_zenoh_peer_decodes_zshm_talker_and_sees_its_tokens() {
    let router = Router::start(&[]);
    let mut listen = peer(
        "py-listen",
        &["listen", "--connect", &router.locator, "--count", "5"],
    )
    .start();
    let mut talker = Spawn::zshm(
        "talker",
        &[
            "talker",
            "-e",
            &router.locator,
            "-n",
            "5",
            "-r",
            "20",
            "--wait",
            "60",
        ],
    )
    .start();
    assert_eq!(listen.wait_exit(), 0, "{}", listen.dump());
    assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
    let report = listen.json();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["sequence_numbers"], serde_json::json!([1, 2, 3, 4, 5]));
    assert_eq!(report["texts"][4], "Hello World: 5");
    assert_eq!(
        report["publisher_gid"], report["token_gid"],
        "attachment GID = GID of the MP token"
    );
}

#[test]
fn zshm_listener_accepts_python_samples() {
    let router = Router::start(&[]);
    let mut listener = Spawn::zshm("listener", &["listener", "-e", &router.locator, "-n", "5"]).start();
    let mut talk = peer("py-talk", &["talk", "--connect", &router.locator, "--count", "5"]).start();
    assert_eq!(listener.wait_exit(), 0, "{}", listener.dump());
    assert_eq!(talk.wait_exit(), 0, "{}", talk.dump());
    let heard: Vec<String> = listener.stdout();
    let expected: Vec<String> = (1..=5)
        .map(|k| format!("I heard: [Hello from Python: {k}]"))
        .collect();
    assert_eq!(heard, expected);
}

/// The type description service as Jazzy tools call it: the Python peer asks the zshm
/// listener's `~/get_type_description` for std_msgs/msg/String, with the hash rosbags computes,
/// and decodes the answer with rosbags.
#[test]
fn python_peer_gets_the_type_description_of_a_zshm_listeners_subscription() {
    let router = Router::start(&[]);
    let _listener = Spawn::zshm("listener", &["listener", "-e", &router.locator, "-n", "1"]).start();
    let mut describe = peer(
        "py-describe",
        &[
            "describe",
            "--connect",
            &router.locator,
            "--topic",
            "/listener/get_type_description",
            "--type",
            "std_msgs/msg/String",
        ],
    )
    .start();
    assert_eq!(describe.wait_exit(), 0, "{}", describe.dump());
    let report = describe.json();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(
        report["requested_hash"],
        "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
    );
    let response = &report["response"];
    assert_eq!(response["successful"], true, "{report}");
    assert_eq!(response["failure_reason"], "");
    let own = &response["type_description"]["type_description"];
    assert_eq!(own["type_name"], "std_msgs/msg/String");
    assert_eq!(own["fields"][0]["name"], "data");
    assert_eq!(own["fields"][0]["type"]["type_id"], 17, "an unbounded string");
    assert_eq!(
        response["type_description"]["referenced_type_descriptions"],
        serde_json::json!([])
    );
    assert_eq!(response["type_sources"][0]["encoding"], "msg");
}

#[test]
fn zshm_listener_rejects_and_counts_malformed_samples_then_keeps_listening() {
    let router = Router::start(&[]);
    let mut listener = Spawn::zshm("listener", &["listener", "-e", &router.locator, "-n", "1"]).start();
    let mut garbage = peer(
        "py-garbage",
        &[
            "garbage",
            "--connect",
            &router.locator,
            "--count",
            "6",
            "--timeout",
            "3",
        ],
    )
    .start();
    garbage.wait_exit();
    assert_eq!(garbage.json()["published"], 6, "{}", garbage.dump());
    let mut talk = peer("py-talk", &["talk", "--connect", &router.locator, "--count", "1"]).start();
    assert_eq!(listener.wait_exit(), 0, "{}", listener.dump());
    talk.wait_exit();
    assert_eq!(
        listener.stdout(),
        ["I heard: [Hello from Python: 1]"],
        "garbage must never be delivered"
    );
    let stderr = listener.stderr();
    for reason in ["missing_attachment", "bad_attachment", "malformed_cdr"] {
        let lines = stderr
            .lines()
            .filter(|l| l.contains("dropped a sample") && l.contains(reason))
            .count();
        assert_eq!(lines, 1, "one WARN for {reason}:\n{stderr}");
    }
}

/// Waits until the graph shows `count` subscribers of /chatter.
fn wait_for_chatter_subscribers(router: &Router, count: u64) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let mut topics = Spawn::zshm("topics", &["topics", "-e", &router.locator, "--json"]).start();
        assert_eq!(topics.wait_exit(), 0, "{}", topics.dump());
        let subscribers = topics.json().as_array().and_then(|topics| {
            topics
                .iter()
                .find(|t| t["name"] == "/chatter")
                .and_then(|t| t["subscribers"].as_u64())
        });
        if subscribers == Some(count) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{count} subscribers of /chatter never showed up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The lane serves zshm subscribers; everyone else must still get every message through zenoh.
#[test]
fn a_python_rmw_zenoh_subscriber_next_to_a_lane_subscriber_gets_every_message() {
    let root = LaneRoot::new("pylane", 0);
    let router = Router::start(&[]);
    let mut listen = peer(
        "py-listen",
        &["listen", "--connect", &router.locator, "--count", "30"],
    )
    .start();
    let mut listener = Spawn::zshm("listener", &["listener", "-e", &router.locator, "-n", "30"])
        .env("ZSHM_LANE_ROOT", &root.path)
        .start();
    wait_for_chatter_subscribers(&router, 2);
    let mut talker = Spawn::zshm(
        "talker",
        &[
            "talker",
            "-e",
            &router.locator,
            "-n",
            "30",
            "-r",
            "30",
            "--wait",
            "60",
        ],
    )
    .env("ZSHM_LANE_ROOT", &root.path)
    .start();
    assert_eq!(listen.wait_exit(), 0, "{}", listen.dump());
    assert_eq!(listener.wait_exit(), 0, "{}", listener.dump());
    assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
    let report = listen.json();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(
        report["sequence_numbers"],
        serde_json::json!((1..=30).collect::<Vec<_>>())
    );
    let expected: Vec<String> = (1..=30).map(|n| format!("I heard: [Hello World: {n}]")).collect();
    assert_eq!(listener.stdout(), expected);
    let stderr = listener.stderr();
    let summary = stderr
        .lines()
        .find(|l| l.contains("heard 30 messages"))
        .unwrap_or_else(|| panic!("no summary:\n{stderr}"));
    assert!(
        !summary.contains(" lane=0 "),
        "the zshm listener used the lane: {summary}"
    );
}
