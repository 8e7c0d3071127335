//! The soak of docs/RELIABILITY.md, one minute long: 7 MB clouds at 15 Hz, two subscribers, one
//! SIGKILLed and restarted every 20 s, in a private /dev/shm, with the same-host lane on (as by
//! default), so that its dead-node cleanup is held to the same bounds as zenoh's segments. The
//! 10-minute run is `zshm bench --soak 600` (its figures are in docs/RELIABILITY.md); the
//! assertions are the same.

use serde_json::Value;

use crate::support::LaneRoot;
use crate::support::namespace::PrivateShm;

#[test]
fn a_one_minute_soak_loses_nothing_and_nothing_grows() {
    let ns = PrivateShm::new("1g");
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().display().to_string();
    let args = [
        "bench",
        "--soak",
        "60",
        "--restart-every",
        "20",
        "--out",
        &out_dir,
    ];
    let root = LaneRoot::new("soak", 0);
    let mut soak = ns.zshm_on_lane("soak", &root, &args).start();
    assert_eq!(soak.wait_exit(), 0, "the soak's own verdict\n{}", soak.dump());
    let report: Value = soak.json();
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");
    assert_eq!(report["restarts"], 2, "{report}");
    let published = report["published"].as_u64().unwrap();
    assert!(published > 0, "{report}");
    let probes = report["probes"].as_array().unwrap();
    assert_eq!(
        probes.len(),
        4,
        "three restarted lives and the steady one: {report}"
    );
    for probe in probes {
        assert_eq!(probe["lost"], 0, "{probe}");
        assert!(probe["received"].as_u64().unwrap() > 0, "{probe}");
    }
    let steady = probes.iter().find(|p| p["role"] == "steady").unwrap();
    // It subscribed before the camera started; the camera's first clouds can still go by
    // before its link to this subscriber is up (zenoh's discovery), which the probe reports.
    let (received, before_first) = (
        steady["received"].as_u64().unwrap(),
        steady["before_first"].as_u64().unwrap(),
    );
    assert_eq!(
        received + before_first,
        published,
        "every cloud from the first one reached the steady one: {steady}"
    );
    assert!(
        received >= published * 9 / 10,
        "the steady one missed the start: {steady}"
    );
    let samples = report["samples"].as_array().unwrap();
    assert!(samples.len() >= 10, "{report}");
    for role in ["router", "camera", "steady", "restarted"] {
        assert!(
            samples.iter().any(|s| s["rss_bytes"][role].as_u64().is_some()),
            "no RSS for {role}"
        );
    }
    assert!(
        samples.iter().any(|s| s["lane_files"].as_u64() > Some(0)),
        "the subscribers used the lane: {report}"
    );
    assert!(out.path().join("soak.md").exists() && out.path().join("soak.json").exists());
    assert_eq!(
        ns.segments(),
        [],
        "the soak's processes leave nothing in /dev/shm"
    );
}
