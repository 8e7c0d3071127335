//! Stalls: a subscriber whose callback is slower than its publisher (4 MiB clouds at 30 Hz), and
//! a metrics endpoint that accepts connections and never answers.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use super::{json_lines, wait_for_windows, windowed_probe, windows};
use crate::support::procfs::rss_bytes;
use crate::support::{DEADLINE, Router, Spawn, http_get};

/// 1024 x 171 points: 4 MiB clouds.
const CLOUD_4_MIB: [&str; 4] = ["--width", "1024", "--height", "171"];

/// The highest `zshm_subscription_dropped_total{qos="keep_last_reliable"}` of the probes in the
/// router's scrape: the slow probe's count is there only if the slow process answered the
/// scrape's query over its zenoh link.
fn slow_drops(metrics: &str) -> Option<f64> {
    let text = http_get(metrics);
    text.lines()
        .filter(|l| l.starts_with("zshm_subscription_dropped_total{") && l.contains("keep_last_reliable"))
        .filter(|l| l.contains("node=\"/cam_latency\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .fold(None, |max: Option<f64>, v| Some(max.map_or(v, |m| m.max(v))))
}

/// Regression test for issue 11 ("a slow consumer stalls zenoh"), between processes: a probe
/// whose callback sleeps 250 ms per 4 MiB cloud at 30 Hz. Its queue drops the oldest clouds,
/// counted under its QoS in the metrics it keeps answering; the other probe gets every cloud
/// through shared memory; no process's memory grows.
#[test]
fn a_slow_subscriber_at_4_mib_and_30_hz_drops_counted_and_stalls_nothing_else() {
    let router = Router::start(&[]);
    let e = router.locator.as_str();
    let probe = windowed_probe(e);
    let mut slow = Spawn::zshm("slow", &[&probe[..], &["--callback-delay", "0.25"]].concat()).start();
    let mut fast = Spawn::zshm("fast", &probe).start();
    let camera_args = [&["cam-pub", "-e", e, "--rate", "30", "--json"][..], &CLOUD_4_MIB].concat();
    let mut camera = Spawn::zshm("camera", &camera_args).start();

    wait_for_windows(&fast, "three windows of clouds", |w| w.len() >= 3);
    let pids = [router.proc.pid(), camera.pid(), slow.pid(), fast.pid()];
    let warm = pids.map(rss_bytes);
    // The slow process reports its drops through its zenoh link, twice, growing.
    let metrics = router.metrics.as_str();
    let deadline = Instant::now() + DEADLINE;
    let first = loop {
        match slow_drops(metrics) {
            Some(drops) if drops > 0.0 => break drops,
            _ => assert!(
                Instant::now() < deadline,
                "no drop reported:\n{}",
                http_get(metrics)
            ),
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let count = windows(&fast).len();
    wait_for_windows(&fast, "ten more windows", |w| w.len() >= count + 10);
    let later = slow_drops(metrics).expect("the slow process still answers");
    assert!(later > first, "drops keep being counted: {first} then {later}");
    let settled = pids.map(rss_bytes);
    for (pid, (before, after)) in pids.iter().zip(warm.iter().zip(settled)) {
        assert!(after > 0, "process {pid} is gone");
        assert!(
            after <= before + (32 << 20),
            "process {pid} grew from {before} to {after} bytes"
        );
    }

    camera.signal(Signal::SIGINT);
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    assert_eq!(camera.json()["counts"]["failures"], 0);
    for (name, probe) in [("fast", &mut fast), ("slow", &mut slow)] {
        probe.signal(Signal::SIGINT);
        assert_eq!(probe.wait_exit(), 0, "{name}\n{}", probe.dump());
    }
    let fast_total = json_lines(&fast).pop().unwrap();
    assert_eq!(fast_total["lost"], 0, "{fast_total}");
    assert_eq!(fast_total["shm_share"], 1.0, "{fast_total}");
    let slow_total = json_lines(&slow).pop().unwrap();
    assert!(
        slow_total["lost"].as_u64().unwrap() > 0,
        "the gaps show: {slow_total}"
    );
    assert!(
        slow.stderr().contains("does not keep up") && slow.stderr().contains("keep_last_reliable"),
        "the first drop is logged with its QoS:\n{}",
        slow.stderr()
    );
}

/// Regression test for issue 11 ("zshm traffic scrapes with no timeout"): an endpoint that
/// accepts and never answers ends `zshm traffic` with exit 1 and a message, not a hang.
#[test]
fn traffic_gives_up_on_an_endpoint_that_never_answers() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/metrics", silent.local_addr().unwrap());
    let mut traffic = Spawn::zshm("traffic", &["traffic", "--url", &url, "-n", "1"]).start();
    let (code, _) = traffic.wait_exit_within(Duration::from_secs(60));
    assert_eq!(code, 1, "{}", traffic.dump());
    assert!(traffic.stderr().contains("within 10 s"), "{}", traffic.stderr());
    drop(silent);
}
