//! The ROS graph across the bridge with the Cyclone DDS peer, the doctor's DDS check, and the
//! bridge dashboard against a real Prometheus.

use super::*;

/// The `expr` of every panel of a dashboard in `grafana/dashboards/`.
fn dashboard_queries(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo_path(&format!("grafana/dashboards/{file}"))).unwrap();
    let dashboard: serde_json::Value = serde_json::from_str(&text).unwrap();
    let queries: Vec<String> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|panel| panel["targets"].as_array().cloned().unwrap_or_default())
        .filter_map(|target| target["expr"].as_str().map(str::to_owned))
        .collect();
    assert!(queries.len() >= 4, "{queries:?}");
    queries
}

#[test]
fn every_bridge_dashboard_query_returns_data_from_a_real_prometheus() {
    let net = Net::new();
    let router = net.router();
    let _listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    // Malformed samples, then good ones: messages, bytes and drops on one route.
    let _talker = net
        .dds("dds malformed", &["malformed", "--count", "3", "--linger", "100"])
        .start();
    let route = ["topic=\"/chatter\"", "direction=\"dds_to_zenoh\""];
    net.wait_for_metric(&router, "zshm_bridge_messages_total", &route, 3.0);

    // Prometheus runs in the namespace too, scraping the router every second.
    let dir = tempfile::tempdir().unwrap();
    let target = router
        .metrics
        .trim_start_matches("http://")
        .trim_end_matches("/metrics");
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: zshm\n    static_configs:\n      - targets: [\"{target}\"]\n"),
    )
    .unwrap();
    let config_flag = format!("--config.file={}", config.display());
    let storage = format!("--storage.tsdb.path={}", dir.path().join("data").display());
    let mut args = vec!["netns", "exec", &net.name, "prometheus"];
    args.extend([
        config_flag.as_str(),
        storage.as_str(),
        "--web.listen-address=127.0.0.1:9090",
    ]);
    let _prometheus = Spawn::program("prometheus", "ip", &args).start();
    let query = |expr: &str| -> Vec<serde_json::Value> {
        let out = Command::new("ip")
            .args(["netns", "exec", &net.name, &python(), "-c"])
            .arg(
                "import sys, urllib.parse, urllib.request\n\
                 url = 'http://127.0.0.1:9090/api/v1/query?' + urllib.parse.urlencode({'query': sys.argv[1]})\n\
                 try:\n    sys.stdout.write(urllib.request.urlopen(url, timeout=10).read().decode())\n\
                 except OSError as e:\n    sys.stdout.write('{\"status\": \"down\"}')",
            )
            .arg(expr)
            .output()
            .unwrap();
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{expr}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        answer["data"]["result"].as_array().cloned().unwrap_or_default()
    };
    // Rates need several scrapes inside the window.
    wait_until("Prometheus scraping the router", || {
        !query("count_over_time(zshm_build_info[15s]) >= 8").is_empty()
    });
    for expr in dashboard_queries("zshm-bridge.json") {
        let result = query(&expr.replace("$__rate_interval", "15s"));
        assert!(!result.is_empty(), "no data for the bridge dashboard's `{expr}`");
    }
    stop_bridge(bridge);
}

/// The `DDS discovery` finding of `zshm doctor --dds --json` in `net`.
fn doctor_dds_check(net: &Net) -> serde_json::Value {
    let mut doctor = net.zshm("doctor", &["doctor", "--dds", "--json"]).start();
    doctor.wait_exit();
    let report = doctor.json();
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "DDS discovery")
        .cloned()
        .unwrap_or_else(|| panic!("no DDS check\n{}", doctor.dump()))
}

#[test]
fn doctor_checks_dds_discovery_sees_a_dds_node_and_warns_without_multicast_on_lo() {
    let net = Net::new();
    let _talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "10", "--no-wait"],
        )
        .start();
    _talker.wait_for_stdout("the talker up", |l| l == "writer up");
    let check = doctor_dds_check(&net);
    assert_eq!(check["severity"], "ok", "{check}");
    let summary = check["summary"].as_str().unwrap();
    assert!(summary.contains("multicast works"), "{summary}");
    assert!(
        summary.contains("1 other DDS participant(s) seen"),
        "the Cyclone talker: {summary}"
    );

    let bare = Net::with_multicast(false);
    let check = doctor_dds_check(&bare);
    assert_eq!(check["severity"], "warn", "{check}");
    assert!(
        check["fix"]
            .as_str()
            .unwrap()
            .contains("ip link set lo multicast on"),
        "{check}"
    );
}

#[test]
fn a_dds_node_appears_under_its_own_name_from_ros_discovery_info_and_goes_with_its_writer() {
    let net = Net::new();
    let router = net.router();
    let listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    // The talker announces its node before the bridge starts, as a running robot would have.
    let mut talker = net
        .dds(
            "dds talker",
            &[
                "talker",
                "--count",
                "100000",
                "--rate",
                "20",
                "--no-wait",
                "--node-name",
                "camera_driver",
                "--namespace",
                "/robot",
            ],
        )
        .start();
    talker.wait_for_stdout("the talker up", |l| l == "writer up");
    let bridge = net.bridge(&router, &[]);
    listener.wait_for_stdout("a bridged message", |l| number_heard(l).is_some());
    let mut info = net
        .zshm(
            "topic info",
            &["topic", "info", "/chatter", "-v", "-e", &router.locator],
        )
        .start();
    info.wait_exit();
    let text = info.stdout().join("\n");
    assert!(
        text.contains("Node name: camera_driver\nNode namespace: /robot\nTopic type: std_msgs/msg/String"),
        "the bridged publisher is on the DDS node\n{text}"
    );
    let node_list = |net: &Net| {
        let mut list = net
            .zshm("node list", &["node", "list", "-e", &router.locator])
            .start();
        list.wait_exit();
        list.stdout()
    };
    assert!(
        node_list(&net).iter().any(|n| n == "/robot/camera_driver"),
        "{:?}",
        node_list(&net)
    );
    // The writer goes: its route, and the node with it.
    talker.stop();
    wait_until("the DDS node gone", || {
        !node_list(&net).iter().any(|n| n == "/robot/camera_driver")
    });
    stop_bridge(bridge);
}

/// A zshm talker bridged to a DDS listener, and a DDS `graph` reader of `ros_discovery_info`
/// (with `graph_args`, and `expected` node lines); `before` starts DDS processes first.
fn zshm_node_on_dds_graph(graph_args: &[&str], before: &[&[&str]], expected: &[&str]) {
    let net = Net::new();
    let router = net.router();
    let _before: Vec<Proc> = before
        .iter()
        .map(|args| {
            let proc = net.dds("dds node", args).start();
            proc.wait_for_stdout("writer up", |l| l == "writer up");
            proc
        })
        .collect();
    let bridge = net.bridge(&router, &[]);
    let count = expected.len().to_string();
    let mut args = vec!["graph", "--count", &count, "--timeout", "100"];
    args.extend_from_slice(graph_args);
    let mut graph = net.dds("dds graph", &args).start();
    graph.wait_for_stdout("listening", |l| l == "listening");
    let _reader = net
        .dds(
            "dds listener",
            &["listener", "--count", "100000", "--timeout", "100"],
        )
        .start();
    let _talker = net
        .zshm("talker", &["talker", "-e", &router.locator, "-r", "20"])
        .start();
    bridge.wait_for_stdout("route up", |l| l.starts_with("route up: /chatter"));
    assert_eq!(graph.wait_exit(), 0, "{}", graph.dump());
    let mut nodes: Vec<String> = graph
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with("node "))
        .collect();
    nodes.sort();
    assert_eq!(
        nodes,
        expected,
        "the zshm talker, behind the bridge's DDS writer\n{}",
        graph.dump()
    );
    stop_bridge(bridge);
}

#[test]
fn a_zshm_node_appears_to_dds_tools_on_ros_discovery_info_behind_the_bridges_writer() {
    zshm_node_on_dds_graph(&[], &[], &["node / talker readers=0 writers=1"]);
}

#[test]
fn on_a_humble_dds_domain_the_bridge_announces_zenoh_nodes_with_humbles_24_byte_gids() {
    // A Humble DDS node announces itself with 24-byte GIDs; the bridge then writes its own
    // `ros_discovery_info` that way, which a Humble reader decodes.
    let humble_node = [
        "talker",
        "--topic",
        "rt/status",
        "--count",
        "100000",
        "--rate",
        "2",
        "--no-wait",
        "--node-name",
        "camera_driver",
        "--namespace",
        "/robot",
        "--humble",
    ];
    zshm_node_on_dds_graph(
        &["--humble"],
        &[&humble_node],
        &[
            "node / talker readers=0 writers=1",
            "node /robot camera_driver readers=0 writers=1",
        ],
    );
}
