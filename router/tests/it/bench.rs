//! `zshm bench --quick`: a short sweep whose output files must exist and be well-formed. No
//! timing is asserted here: the numbers belong to BENCHMARKS.md, measured as ratios in one run.

use serde_json::Value;

use crate::support::Spawn;

/// How long a short benchmark may run: about a minute on an idle machine, more than two beside
/// a soak and the rest of the suite (its length is the work, not a result).
const BENCH_PATIENCE: std::time::Duration = std::time::Duration::from_secs(600);

/// Whether the case's messages go through zenoh (where a KEEP_LAST publisher may drop them,
/// counted), not through the lane or iceoryx2.
fn mode_is_zenoh_path(result: &Value) -> bool {
    !matches!(result["case"]["mode"].as_str(), Some("lane" | "iceoryx2"))
}

#[test]
fn quick_bench_writes_well_formed_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let mut bench = Spawn::zshm("bench", &["bench", "--quick", "--count", "20", "--out", out]).start();
    assert_eq!(bench.wait_exit_for(BENCH_PATIENCE), 0, "{}", bench.dump());

    let results: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results.json")).unwrap()).unwrap();
    assert!(results.len() >= 20, "{} cases", results.len());
    for result in &results {
        assert!(result["error"].is_null(), "a case failed: {result}");
        let subscribers = result["case"]["subscribers"].as_u64().unwrap();
        assert_eq!(
            result["received"].as_u64().unwrap() + result["lost"].as_u64().unwrap(),
            20 * subscribers
                * if result["case"]["sweep"] == "throughput" {
                    3
                } else {
                    1
                },
            "{result}"
        );
        // A KEEP_LAST publisher's zenoh drops what its link cannot take (congestion control
        // DROP, as rmw_zenoh maps KEEP_LAST), and counts it: on a loaded machine a burst of
        // 64 KiB over TCP once lost everything after its warm-up (received 0, lost 60), and the
        // fan-out over TCP (4 MiB at 30 Hz beside two busy loops) once received none of 20. A
        // case that received nothing must have had its messages dropped by zenoh, counted; one
        // that received nothing without a drop counted is a loss nobody explains.
        let received = result["received"].as_u64().unwrap();
        let zenoh_dropped = result["zenoh_dropped"].as_u64().unwrap();
        assert!(
            received > 0 || (mode_is_zenoh_path(result) && zenoh_dropped > 0),
            "a case received nothing, and its publisher's zenoh counted no drop: {result}"
        );
        if received > 0 {
            let latency = &result["latency_us"];
            let (p50, p99, max) = (
                latency["p50"].as_f64().unwrap(),
                latency["p99"].as_f64().unwrap(),
                latency["max"].as_f64().unwrap(),
            );
            assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{latency}");
        }
        let (shm, lane) = (
            result["shm_share"].as_f64().unwrap(),
            result["lane_share"].as_f64().unwrap(),
        );
        let mode = result["case"]["mode"].as_str().unwrap();
        if received > 0 {
            assert_eq!(
                shm,
                if mode.contains("tcp") { 0.0 } else { 1.0 },
                "{mode}: every message on its path"
            );
        }
        // A lane publisher starts its warm-up once every subscriber has attached to its lane
        // (before that a node rightly sends through zenoh: BENCHMARKS.md, "The lane in a
        // burst"). Paced, the lane carries the measured messages; in a burst on a loaded
        // machine zenoh's copies can still come first (lane share 0 seen once beside two busy
        // loops), so the throughput cases only check that the share is a share.
        match (mode, result["case"]["sweep"].as_str()) {
            ("lane", Some("throughput")) => assert!((0.0..=1.0).contains(&lane), "{mode}: {lane}"),
            ("lane", _) if received > 0 => assert!(lane > 0.5, "{mode}: lane share {lane}"),
            ("lane", _) => {}
            _ => assert_eq!(lane, 0.0, "{mode}: no lane"),
        }
    }

    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), results.len() + 1, "header plus one line per case");
    let columns = lines[0].split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == columns));

    let markdown = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
    for section in [
        "## Latency against payload",
        "## Fan-out: latency against the subscribers of one topic",
        "## Throughput",
        "## Targets",
    ] {
        assert!(markdown.contains(section), "{section} missing");
    }
    assert_eq!(
        bench.stdout().first().map(String::as_str),
        Some("# zshm bench results"),
        "the report is printed too"
    );

    for plot in ["latency_vs_payload.svg", "latency_vs_subscribers.svg"] {
        let svg = std::fs::read_to_string(dir.path().join(plot)).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{plot}: {e}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        assert!(
            svg.contains("shm-loan") && svg.contains("tcp"),
            "{plot} has a series per mode"
        );
    }
}

/// `zshm bench --sweeps topics,subscribers` at their smallest: one round, two modes, T = 10
/// over ten node processes, and S = 12 over thirteen (more nodes than the topics sweep has).
/// The files must exist and every case must have its delivered / expected row; whether a mode
/// delivered everything on a loaded machine is a result, not asserted.
#[test]
fn topics_and_subscribers_sweeps_write_delivered_and_expected_per_mode() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let mut bench = Spawn::zshm(
        "bench-topics",
        &[
            "bench",
            "--sweeps",
            "topics,subscribers",
            "--topics",
            "10",
            "--subscribers",
            "12",
            "--rounds",
            "1",
            "--seconds",
            "1",
            "--modes",
            "lane,iceoryx2",
            "--out",
            out,
        ],
    )
    .start();
    assert_eq!(bench.wait_exit_for(BENCH_PATIENCE), 0, "{}", bench.dump());

    let results: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("topics.json")).unwrap()).unwrap();
    let modes: Vec<&str> = results
        .iter()
        .map(|r| r["case"]["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["lane", "iceoryx2"]);
    for result in &results {
        assert!(result["error"].is_null(), "a case failed: {result}");
        // 10 topics × 2 readers × 100 Hz + the cloud's 4 readers × 10 Hz, over 1 s.
        assert_eq!(result["expected"].as_u64(), Some(2040), "{result}");
        assert!(result["delivered"].as_u64().unwrap() > 0, "{result}");
        assert_eq!(
            result["threads"].as_array().unwrap().len(),
            10,
            "a thread count per node"
        );
        assert!(result["machine_cpu_percent"].as_f64().is_some(), "{result}");
        // Every node's threads slept between its 100 Hz ticks: at least once each.
        assert!(
            result["voluntary_switches"].as_u64().unwrap() >= 10,
            "the nodes' context switches over the window: {result}"
        );
    }
    let markdown = std::fs::read_to_string(dir.path().join("topics.md")).unwrap();
    for row in [
        "| 1 | 10 | lane | ",
        "| 1 | 10 | iceoryx2 | ",
        "## Targets (topics sweep)",
    ] {
        assert!(markdown.contains(row), "{row} missing:\n{markdown}");
    }
    assert!(markdown.contains(" / 2040"), "delivered / expected:\n{markdown}");
    assert!(
        markdown.contains("| switches per message (vol. / invol.) |"),
        "the nodes' context switches per message:\n{markdown}"
    );
    assert!(
        markdown.contains("The cases' processes ran as `zshm-bench-node`"),
        "the nodes run in the program built from the library alone:\n{markdown}"
    );
    let csv = std::fs::read_to_string(dir.path().join("topics.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "header plus one line per case");
    for sweep in ["topics", "subscribers"] {
        for plot in ["p50", "p999", "cpu"] {
            let plot = format!("{sweep}_{plot}.svg");
            let svg = std::fs::read_to_string(dir.path().join(&plot)).unwrap();
            roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{plot}: {e}"));
        }
    }
    assert!(
        !dir.path().join("results.md").exists(),
        "only the topics and subscribers sweeps were asked for"
    );

    let results: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("subscribers.json")).unwrap()).unwrap();
    assert_eq!(results.len(), 2, "{results:?}");
    for result in &results {
        assert!(result["error"].is_null(), "a case failed: {result}");
        assert_eq!(result["case"]["axis"], "subscribers", "{result}");
        // 12 readers of 10 topics × 100 Hz and of the cloud × 10 Hz, over 1 s.
        assert_eq!(result["expected"].as_u64(), Some(12 * 1010), "{result}");
        assert!(result["delivered"].as_u64().unwrap() > 0, "{result}");
        assert_eq!(
            result["threads"].as_array().unwrap().len(),
            13,
            "a node per reader and one more"
        );
    }
    let markdown = std::fs::read_to_string(dir.path().join("subscribers.md")).unwrap();
    for row in [
        "| 1 | 12 | lane | ",
        "| 1 | 12 | iceoryx2 | ",
        "## Targets (subscribers sweep)",
    ] {
        assert!(markdown.contains(row), "{row} missing:\n{markdown}");
    }
}

/// `zshm bench --trace`: each node writes every measured message it published and received,
/// and the two sides agree: every received message was published once with the same stamp, no
/// message arrived before its stamp, and the received rows are exactly what the case counted as
/// delivered. One round of S = 1 (ten nodes) for 1 s, in the lane and in iceoryx2.
#[test]
fn a_traced_case_writes_every_measured_message_on_both_sides() {
    use std::collections::HashMap;

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let mut bench = Spawn::zshm(
        "bench-trace",
        &[
            "bench",
            "--sweeps",
            "subscribers",
            "--subscribers",
            "1",
            "--rounds",
            "1",
            "--seconds",
            "1",
            "--modes",
            "lane,iceoryx2",
            "--trace",
            "--out",
            out,
        ],
    )
    .start();
    assert_eq!(bench.wait_exit_for(BENCH_PATIENCE), 0, "{}", bench.dump());

    let results: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("subscribers.json")).unwrap()).unwrap();
    assert_eq!(results.len(), 2, "{results:?}");
    let rows = |path: std::path::PathBuf, header: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(header), "{}", path.display());
        lines.map(|l| l.split(',').map(str::to_owned).collect()).collect()
    };
    let int = |v: &str| v.parse::<i64>().unwrap_or_else(|e| panic!("{v}: {e}"));
    for result in &results {
        assert!(result["error"].is_null(), "a case failed: {result}");
        let mode = result["case"]["mode"].as_str().unwrap();
        let case = dir.path().join("trace").join(format!("round1-S1-{mode}"));
        let nodes = result["threads"].as_array().unwrap().len();
        // (topic, seq) -> (stamp, returned)
        let mut published = HashMap::new();
        let mut received = 0;
        for node in 0..nodes {
            for row in rows(
                case.join(format!("node-{node}-published.csv")),
                "topic,seq,stamp_ns,returned_ns",
            ) {
                let (stamp, returned) = (int(&row[2]), int(&row[3]));
                assert!(returned >= stamp, "{mode}: returned before its stamp: {row:?}");
                let key = (row[0].clone(), int(&row[1]));
                assert!(
                    published.insert(key, stamp).is_none(),
                    "{mode}: published twice: {row:?}"
                );
            }
        }
        for node in 0..nodes {
            for row in rows(
                case.join(format!("node-{node}-received.csv")),
                "topic,seq,stamp_ns,at_ns,tid",
            ) {
                let (stamp, at, tid) = (int(&row[2]), int(&row[3]), int(&row[4]));
                assert_eq!(
                    published.get(&(row[0].clone(), int(&row[1]))),
                    Some(&stamp),
                    "{mode}: a received message with no published twin: {row:?}"
                );
                assert!(at >= stamp && tid > 0, "{mode}: {row:?}");
                received += 1;
            }
        }
        assert_eq!(Some(received), result["delivered"].as_u64(), "{mode}: {result}");
        // S = 1: each measured message has one reader, so the published ones are the expected.
        assert_eq!(
            Some(published.len() as u64),
            result["expected"].as_u64(),
            "{mode}: {result}"
        );
    }
}

/// A `zshm` without its `zshm-bench-node` beside it, or with one from another build (as
/// `cargo run --bin zshm` leaves after a change), runs the cases itself and says so on its
/// terminal and in the report: a node's memory then includes the rest of the program's pages,
/// and another node program would measure other code. The one of the same build runs the cases
/// whatever its file time.
#[test]
fn the_bench_without_its_node_program_of_the_same_build_runs_the_cases_itself_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let zshm = dir.path().join("zshm");
    std::fs::copy(crate::support::ZSHM, &zshm).unwrap();
    let run = |name: &str| {
        let out = dir.path().join(name);
        let mut bench = Spawn::program(
            name,
            zshm.to_str().unwrap(),
            &[
                "bench",
                "--sweeps",
                "topics",
                "--topics",
                "10",
                "--rounds",
                "1",
                "--seconds",
                "1",
                "--modes",
                "lane",
                "--out",
                out.to_str().unwrap(),
            ],
        )
        .start();
        assert_eq!(bench.wait_exit_for(BENCH_PATIENCE), 0, "{}", bench.dump());
        let results: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(out.join("topics.json")).unwrap()).unwrap();
        assert_eq!(results.len(), 1, "{results:?}");
        assert!(results[0]["error"].is_null(), "the case failed: {}", results[0]);
        assert_eq!(results[0]["expected"].as_u64(), Some(2040), "{}", results[0]);
        (
            bench.stderr(),
            std::fs::read_to_string(out.join("topics.md")).unwrap(),
        )
    };

    let (stderr, markdown) = run("bench-alone");
    assert!(
        stderr.contains("zshm bench: zshm-bench-node is not beside it"),
        "{stderr}"
    );
    assert!(
        markdown.contains("The cases' processes ran as `zshm` (zshm-bench-node is not beside it)"),
        "{markdown}"
    );

    // A node program of another build: one whose `--version` names other sources.
    let node = dir.path().join("zshm-bench-node");
    let other = "zshm-bench-node 0.1.0 (build 0123456789abcdef)";
    std::fs::write(&node, format!("#!/bin/sh\necho '{other}'\n")).unwrap();
    std::fs::set_permissions(&node, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (stderr, markdown) = run("bench-other");
    assert!(
        stderr.contains(&format!(
            "zshm bench: zshm-bench-node beside it is from another build (it says `{other}`, this is `zshm "
        )),
        "{stderr}"
    );
    assert!(
        markdown
            .contains("The cases' processes ran as `zshm` (zshm-bench-node beside it is from another build"),
        "{markdown}"
    );

    // The node program of this build, even with a file time far from `zshm`'s (an optimised
    // build links the two minutes apart).
    std::fs::remove_file(&node).unwrap();
    std::fs::copy(crate::support::ZSHM_BENCH_NODE, &node).unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&node)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let (stderr, markdown) = run("bench-same");
    assert!(!stderr.contains("zshm-bench-node"), "{stderr}");
    assert!(
        markdown.contains("The cases' processes ran as `zshm-bench-node`."),
        "{markdown}"
    );
}

/// `zshm bench --sweeps service` at its smallest: one round of 5 calls per case. Every mode and
/// size must have its answered calls and its percentiles, and the report its ratios; what the
/// ratios are on a loaded machine is a result, not asserted.
#[test]
fn service_sweep_reports_every_mode_and_size_with_its_ratios() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let mut bench = Spawn::zshm(
        "bench-service",
        &[
            "bench", "--sweeps", "service", "--rounds", "1", "--count", "5", "--out", out,
        ],
    )
    .start();
    assert_eq!(bench.wait_exit_for(BENCH_PATIENCE), 0, "{}", bench.dump());

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("service.json")).unwrap()).unwrap();
    let results = report["results"].as_array().unwrap();
    let mut cases: Vec<(String, u64)> = results
        .iter()
        .map(|r| {
            (
                r["case"]["mode"].as_str().unwrap().to_owned(),
                r["case"]["payload"].as_u64().unwrap(),
            )
        })
        .collect();
    cases.sort();
    let mut expected = Vec::new();
    for mode in ["shm-copy", "shm-loan", "tcp", "zenoh-shm", "zenoh-tcp"] {
        for payload in [64, 4 << 20] {
            expected.push((mode.to_owned(), payload));
        }
    }
    expected.sort();
    assert_eq!(
        cases, expected,
        "zshm (copied and loaned) and plain zenoh, SHM and TCP, both sizes"
    );
    for result in results {
        assert!(result["error"].is_null(), "a case failed: {result}");
        assert_eq!(result["answered"], 5, "{result}");
        // Every reply of an SHM mode came through shared memory (the bench asks for SHM at every
        // size), none of a TCP mode.
        let mode = result["case"]["mode"].as_str().unwrap();
        let expected_shm = if mode.contains("shm") { 5 } else { 0 };
        assert_eq!(result["through_shm"], expected_shm, "{result}");
        let rtt = &result["rtt_us"];
        let (p50, p99, max) = (
            rtt["p50"].as_f64().unwrap(),
            rtt["p99"].as_f64().unwrap(),
            rtt["max"].as_f64().unwrap(),
        );
        assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{rtt}");
    }
    let ratios = report["ratios"].as_array().unwrap();
    assert_eq!(ratios.len(), 5, "{report}");
    for ratio in ratios {
        assert!(ratio["spread"]["median"].as_f64().unwrap() > 0.0, "{ratio}");
    }
    let markdown = std::fs::read_to_string(dir.path().join("service.md")).unwrap();
    assert!(markdown.contains("zshm / zenoh, SHM, 64 B"), "{markdown}");
    assert!(
        markdown.contains("zshm TCP / SHM loaned, read in place, 4 MiB"),
        "{markdown}"
    );
}

/// A benchmark process that fails says why: the bench hides its processes' logs (a measurement
/// must not pay for them) but keeps their errors, and a router that refuses its environment is
/// reported with the router's own words, not only "exited first".
#[test]
fn a_benchmark_process_that_fails_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let mut bench = Spawn::zshm(
        "bench-refused",
        &[
            "bench",
            "--sweeps",
            "topics",
            "--topics",
            "10",
            "--modes",
            "tcp",
            "--seconds",
            "1",
            "--rounds",
            "1",
            "--out",
            out,
        ],
    )
    .env("ZSHM_LANE", "bogus")
    .start();
    assert_ne!(bench.wait_exit_for(BENCH_PATIENCE), 0, "{}", bench.dump());
    let stderr = bench.stderr();
    assert!(
        stderr.contains("it said: zshm: error: cannot start the router: ZSHM_LANE=\"bogus\" is not valid"),
        "{stderr}"
    );
}
