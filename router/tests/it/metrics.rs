//! The Prometheus exporter: its output passes `promtool check metrics`, it covers every node
//! from one target, and every query of the Grafana dashboard returns data from a real
//! Prometheus server scraping it while 4 MiB point clouds flow through zenoh's shared memory and
//! strings through the same-host lane.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{DEADLINE, Proc, Router, Spawn, http_get, repo_path};

/// Scrapes until `ready` holds for the text (series appear as nodes report), with a deadline;
/// on failure, says what `procs` (the processes whose series are awaited) printed.
fn scrape_until(url: &str, what: &str, procs: &[&Proc], ready: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let text = http_get(url);
        if ready(&text) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "no {what} in the exporter's output:\n{text}\n{}",
            procs.iter().map(|p| p.dump()).collect::<Vec<_>>().join("\n")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A camera (1024 x 171 points: 4 MiB clouds at 20 Hz) and a latency probe on `router`,
/// through the lane, or through zenoh's shared memory with `lane` false.
fn camera_and_probe(router: &Router, lane: bool) -> (Proc, Proc) {
    let switch = if lane { "on" } else { "off" };
    let probe = Spawn::zshm(
        "cam-latency",
        &["cam-latency", "-e", &router.locator, "--duration", "300"],
    )
    .env("ZSHM_LANE", switch)
    .start();
    let camera = Spawn::zshm(
        "cam-pub",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "--width",
            "1024",
            "--height",
            "171",
            "--rate",
            "20",
            "--wait",
            "60",
        ],
    )
    .env("ZSHM_LANE", switch)
    .start();
    (probe, camera)
}

/// A talker and a listener on `router`, which talk through the lane.
fn talker_and_listener(router: &Router) -> (Proc, Proc) {
    let listener = Spawn::zshm("listener", &["listener", "-e", &router.locator]).start();
    let talker = Spawn::zshm("talker", &["talker", "-e", &router.locator, "-r", "20"]).start();
    (talker, listener)
}

fn has_payload_on(path: &str, text: &str) -> bool {
    text.lines().any(|l| {
        l.starts_with("zshm_payload_bytes_total{")
            && l.contains(&format!("path=\"{path}\""))
            && !l.ends_with(" 0")
    })
}

fn has_shm_payload(text: &str) -> bool {
    has_payload_on("shm", text) && text.contains("zshm_cam_latency_seconds_count{")
}

fn has_shm_and_lane_payload(text: &str) -> bool {
    has_shm_payload(text) && has_payload_on("lane", text)
}

#[test]
fn exporter_output_passes_promtool_and_covers_every_node() {
    let router = Router::start(&[]);
    let (probe, camera) = camera_and_probe(&router, false);
    let (talker, listener) = talker_and_listener(&router);
    let text = scrape_until(
        &router.metrics,
        "SHM and lane payload and latency",
        &[&probe, &camera, &talker, &listener],
        has_shm_and_lane_payload,
    );

    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (Debian package prometheus; tools/test.sh installs it)");
    promtool.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let output = promtool.wait_with_output().unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && report.trim().is_empty(),
        "promtool: {report}\n{text}"
    );

    for program in ["zshm router", "zshm cam-pub", "zshm cam-latency"] {
        assert!(
            text.contains(&format!(r#"program="{program}""#)),
            "{program} missing from one scrape:\n{text}"
        );
    }
    assert!(
        text.contains(r#"node="/sim_camera""#),
        "ROS node names label the series"
    );
    for family in [
        "zshm_loopback_bytes_total",
        "zshm_dev_shm_zenoh_bytes",
        "zshm_shm_pool_size_bytes",
        "zshm_lane_enabled",
        "zshm_lane_fallbacks_total",
        "zshm_dev_shm_lane_bytes",
        "zshm_transports",
        "zshm_build_info",
    ] {
        assert!(text.contains(&format!("\n{family}")), "{family} missing");
    }
}

#[test]
fn standalone_exporter_serves_a_robot_without_zshm_router_metrics() {
    let router = Router::start(&["--no-metrics"]);
    assert!(router.metrics.is_empty());
    let exporter = Spawn::zshm(
        "exporter",
        &["exporter", "-e", &router.locator, "--metrics", "127.0.0.1:0"],
    )
    .start();
    let line = exporter.wait_for_stdout("metrics URL", |l| l.starts_with("zshm exporter: metrics at "));
    let url = line.rsplit(' ').next().unwrap();
    let text = scrape_until(url, "the router", &[&exporter], |t| {
        t.contains(r#"program="zshm router""#)
    });
    assert!(text.contains(r#"role="router""#));
}

#[test]
fn traffic_shows_lane_bytes_per_second() {
    let router = Router::start(&[]);
    let (probe, camera) = camera_and_probe(&router, true);
    scrape_until(&router.metrics, "lane payload", &[&probe, &camera], |t| {
        has_payload_on("lane", t)
    });
    let mut traffic = Spawn::zshm(
        "traffic",
        &["traffic", "--url", &router.metrics, "-n", "3", "-i", "0.5"],
    )
    .start();
    assert_eq!(traffic.wait_exit(), 0, "{}", traffic.dump());
    let lines = traffic.stdout();
    assert_eq!(lines.len(), 3, "{}", traffic.dump());
    let lane_rates: Vec<f64> = lines
        .iter()
        .map(|l| {
            assert!(
                l.starts_with("loopback ")
                    && l.contains(" MB/s | lane ")
                    && l.contains(" | shm ")
                    && l.ends_with('%'),
                "{l}"
            );
            l.split(" | lane ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(
        lane_rates.iter().any(|r| *r > 1.0),
        "4 MiB at 20 Hz is about 80 MB/s through the lane: {lines:?}"
    );
}

fn dashboard_queries() -> Vec<String> {
    fn collect(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(expr)) = map.get("expr") {
                    out.push(expr.clone());
                }
                map.values().for_each(|v| collect(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(repo_path("grafana/dashboards/zshm.json")).unwrap();
    let dashboard: Value = serde_json::from_str(&text).unwrap();
    for panel in dashboard["panels"].as_array().unwrap() {
        assert_eq!(panel["datasource"]["uid"], "prometheus", "{}", panel["title"]);
    }
    let mut queries = Vec::new();
    collect(&dashboard, &mut queries);
    assert!(queries.len() >= 15, "{queries:?}");
    queries
}

/// Starts Prometheus scraping `target` every second, on a free port; returns it and its URL.
fn start_prometheus(dir: &std::path::Path, target: &str) -> (Proc, String) {
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: zshm\n    static_configs:\n      - targets: [\"{target}\"]\n"),
    )
    .unwrap();
    for _attempt in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen = format!("--web.listen-address=127.0.0.1:{port}");
        let storage = format!(
            "--storage.tsdb.path={}",
            dir.join(format!("data-{port}")).display()
        );
        let config_flag = format!("--config.file={}", config.display());
        let mut prometheus =
            Spawn::program("prometheus", "prometheus", &[&config_flag, &storage, &listen]).start();
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + DEADLINE;
        while Instant::now() < deadline {
            if ureq::get(&format!("{url}/-/ready")).call().is_ok() {
                return (prometheus, url);
            }
            if prometheus.exited() {
                break; // lost the port race: try another one
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        prometheus.stop();
    }
    panic!("Prometheus did not start");
}

fn prometheus_query(url: &str, expr: &str) -> Vec<Value> {
    let body = ureq::get(&format!("{url}/api/v1/query"))
        .query("query", expr)
        .call()
        .unwrap_or_else(|e| panic!("query {expr}: {e}"))
        .body_mut()
        .read_to_string()
        .unwrap();
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["status"], "success", "{expr}: {body}");
    answer["data"]["result"].as_array().cloned().unwrap_or_default()
}

#[test]
fn every_dashboard_query_returns_data_from_a_real_prometheus() {
    let router = Router::start(&[]);
    let (probe, camera) = camera_and_probe(&router, false);
    let (talker, listener) = talker_and_listener(&router);
    scrape_until(
        &router.metrics,
        "SHM and lane payload and latency",
        &[&probe, &camera, &talker, &listener],
        has_shm_and_lane_payload,
    );
    let dir = tempfile::tempdir().unwrap();
    let target = router
        .metrics
        .trim_start_matches("http://")
        .trim_end_matches("/metrics");
    let (_prometheus, url) = start_prometheus(dir.path(), target);

    // Rates need several scrapes inside the window: wait until the window is full.
    let deadline = Instant::now() + DEADLINE;
    while prometheus_query(&url, "count_over_time(zshm_build_info[15s]) >= 8").is_empty() {
        assert!(
            Instant::now() < deadline,
            "Prometheus is not scraping the exporter"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    for query in dashboard_queries() {
        let expr = query.replace("$__rate_interval", "15s");
        let result = prometheus_query(&url, &expr);
        assert!(!result.is_empty(), "no data for dashboard query `{query}`");
    }
    let share_query = dashboard_queries()
        .into_iter()
        .find(|q| q.contains(") / sum("))
        .expect("the shared-memory share panel");
    let share = prometheus_query(&url, &share_query.replace("$__rate_interval", "15s"));
    let share: f64 = share[0]["value"][1].as_str().unwrap().parse().unwrap();
    assert!(
        share > 0.99,
        "everything goes through shared memory (lane or zenoh's) here, the dashboard says {share}"
    );
}

#[test]
fn prometheus_config_is_valid() {
    let output = Command::new("promtool")
        .args(["check", "config", &repo_path("grafana/prometheus.yml")])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
