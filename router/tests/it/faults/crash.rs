//! Crashes: a subscriber SIGKILLed while it holds the publisher's buffers, a publisher SIGKILLed
//! and restarted, the router SIGKILLed and restarted under traffic, and a node started while
//! the router is down.

use nix::sys::signal::Signal;

use super::{free_port, json_lines, received, router_in, wait_for_windows, windows};
use crate::support::namespace::PrivateShm;
use crate::support::{Router, Spawn};

/// 320 x 240 points: 1.8 MB clouds, so the heap fallback stays light on a loaded machine.
pub(super) const SMALL_CLOUD: [&str; 4] = ["--width", "320", "--height", "240"];

/// A pool of four small clouds (plus zenoh's overhead): a slow subscriber holding up to eleven
/// of them exhausts it.
fn small_pool() -> String {
    (4 * 320 * 240 * 24 + (1 << 20)).to_string()
}

/// A camera with a 4-cloud pool, a fast probe and a slow probe (which holds up to 11 clouds:
/// its depth of 10 plus the one in its callback). The slow probe ends with `end`; then the
/// camera must be back on shared memory, having lost nothing and failed nothing.
pub(super) fn slow_reader_holds_the_pool_then_goes(end: Signal) {
    let ns = PrivateShm::new("1g");
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.as_str();
    let probe = ["cam-latency", "-e", e, "--json", "--window", "1"];
    let mut slow = ns
        .zshm("slow", &[&probe[..], &["--callback-delay", "0.5"]].concat())
        .start();
    let mut fast = ns
        .zshm("fast", &[&probe[..], &["--duration", "600"]].concat())
        .start();
    let camera_args = [&["cam-pub", "-e", e, "--json", "--wait", "60"][..], &SMALL_CLOUD].concat();
    let mut camera = ns
        .zshm("camera", &camera_args)
        .env("ZENOH_SHM_ALLOC_SIZE", &small_pool())
        .start();

    camera.wait_for_stderr("the pool-exhausted warning", |l| {
        l.contains("fell back to the heap") && l.contains("pool_exhausted")
    });
    wait_for_windows(&slow, "the slow probe receives", |w| received(w) >= 2);
    let at_end = windows(&fast).len();
    match end {
        Signal::SIGKILL => slow.signal(Signal::SIGKILL),
        other => slow.signal_process(other),
    }
    slow.wait_exit();
    // Its buffers are reclaimed (zenoh's watchdog sees a dead reader): the camera's clouds go
    // through shared memory again.
    wait_for_windows(&fast, "clouds through shared memory again", |w| {
        w.len() > at_end + 1 && w[at_end + 1..].iter().any(|w| w["shm_share"] == 1.0)
    });

    camera.signal(Signal::SIGINT);
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    let summary = camera.json();
    assert_eq!(summary["counts"]["failures"], 0, "{summary}");
    let exhausted = summary["stats"]["fallback_pool_exhausted"].as_u64().unwrap();
    assert!(exhausted > 0, "the fallback is counted: {summary}");
    // Whether the camera had to reclaim the dead reader's buffers depends on how many it held
    // when it died: its queue drops its oldest samples (releasing their buffers) and takes heap
    // ones while the pool is short, so it may hold fewer than the pool has, and the fast reader
    // needs only one at a time. So the reclaim counter is not asserted (it was 0 in a loaded
    // run); that the clouds went back to shared memory, above, is the outcome.
    let stderr = camera.stderr();
    let warnings = stderr.matches("fell back to the heap").count();
    assert_eq!(warnings, 1, "logged once:\n{stderr}");

    fast.signal(Signal::SIGINT);
    assert_eq!(fast.wait_exit(), 0, "{}", fast.dump());
    let total = json_lines(&fast).pop().unwrap();
    assert_eq!(total["final"], true);
    assert_eq!(
        total["lost"], 0,
        "heap or SHM, every cloud reached the fast probe: {total}"
    );
    assert!(
        total["shm_share"].as_f64().unwrap() < 1.0,
        "some went through the heap: {total}"
    );
}

#[test]
fn a_subscriber_killed_while_holding_loans_leaves_the_publisher_on_shm_with_nothing_lost() {
    slow_reader_holds_the_pool_then_goes(Signal::SIGKILL);
}

/// A publisher SIGKILLed mid-stream and started again: the probe says the stream went silent and
/// came back, loses nothing within each publisher, and /dev/shm grows by at most the dead
/// publisher's pool (which the processes that received from it keep mapped, zenoh #2787) and does
/// not keep growing.
#[test]
fn a_publisher_killed_and_restarted_is_reported_resumes_and_leaks_at_most_its_pool() {
    let ns = PrivateShm::new("1g");
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.clone();
    let e = e.as_str();
    let mut probe = ns
        .zshm(
            "probe",
            &[
                "cam-latency",
                "-e",
                e,
                "--json",
                "--window",
                "1",
                "--timeout",
                "2",
                "--duration",
                "600",
            ],
        )
        .start();
    probe.wait_for_stderr("the probe's status", |l| l.contains("measuring"));
    // Router and probe publish nothing large, so they have no pool (issue 12).
    let idle = ns.used_bytes();
    let mut first = ns.zshm("camera-1", &["cam-pub", "-e", e]).start();
    let before = wait_for_windows(&probe, "clouds from the first camera", |w| received(w) >= 15);
    let used_with_first = ns.used_bytes();
    // The camera's pool, created by its first cloud, and its metadata.
    let one_pool = used_with_first - idle;
    assert!(one_pool >= 56 << 20, "eight 7 MiB clouds: {one_pool}");

    first.signal(Signal::SIGKILL);
    first.wait_exit();
    probe.wait_for_stderr("the silence report", |l| {
        l.contains("no message on /camera/points for 2 s")
    });
    let mut second = ns.zshm("camera-2", &["cam-pub", "-e", e, "--json"]).start();
    probe.wait_for_stderr("the resumption report", |l| l.contains("again, after"));

    // Steady state with the second camera: nothing grows from one second to the next.
    let count = windows(&probe).len();
    wait_for_windows(&probe, "a window with the second camera", |w| w.len() > count + 1);
    let (segments, used) = (ns.segments(), ns.used_bytes());
    wait_for_windows(&probe, "two more windows", |w| w.len() > count + 3);
    assert_eq!(ns.segments(), segments, "no segment appears or grows");
    assert_eq!(ns.used_bytes(), used, "/dev/shm stays the same");
    assert!(
        used <= used_with_first + one_pool + (1 << 20),
        "at most the dead camera's pool stays: {used_with_first} then {used}"
    );

    second.signal(Signal::SIGINT);
    assert_eq!(second.wait_exit(), 0, "{}", second.dump());
    let published = second.json()["counts"]["published"].as_u64().unwrap();
    probe.signal(Signal::SIGINT);
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    let total = json_lines(&probe).pop().unwrap();
    assert_eq!(total["lost"], 0, "{total}");
    let got = total["received"].as_u64().unwrap();
    assert!(
        got >= received(&before) + published,
        "all {published} of the second camera: {total}"
    );

    // The router received from both cameras and keeps both pools mapped while it runs (zenoh
    // #2787), and nothing else. Once the router stops, everything is freed.
    assert!(
        ns.used_bytes() <= idle + 2 * one_pool + (1 << 20),
        "{idle} idle, {one_pool} per camera, then {}",
        ns.used_bytes()
    );
    drop(router);
    assert!(ns.used_bytes() < 16 << 20, "{}", ns.used_bytes());
}

/// The router SIGKILLed while a camera and a probe talk, then started again on its port: the
/// peers keep their direct link, nothing is lost.
#[test]
fn the_router_killed_and_restarted_under_traffic_loses_nothing() {
    let listen = format!("tcp/127.0.0.1:{}", free_port());
    let router_args = ["router", "-l", listen.as_str(), "--no-metrics"];
    let mut router = Router::started(Spawn::zshm("router", &router_args).start());
    let mut probe = Spawn::zshm(
        "probe",
        &[
            "cam-latency",
            "-e",
            &listen,
            "-n",
            "150",
            "--json",
            "--window",
            "1",
            "--timeout",
            "60",
        ],
    )
    .start();
    let mut camera = Spawn::zshm(
        "camera",
        &["cam-pub", "-e", &listen, "-n", "150", "--wait", "60", "--json"],
    )
    .start();
    wait_for_windows(&probe, "clouds before the crash", |w| received(w) >= 30);
    router.proc.signal(Signal::SIGKILL);
    router.proc.wait_exit();
    let _router = Router::started(Spawn::zshm("router", &router_args).start());

    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    let total = json_lines(&probe).pop().unwrap();
    assert_eq!(
        (total["received"].as_u64(), total["lost"].as_u64()),
        (Some(150), Some(0)),
        "{total}"
    );
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    assert_eq!(camera.json()["counts"]["published"], 150);
}

/// A node started while no router runs warns, keeps trying, and talks once the router is up.
#[test]
fn a_node_started_while_the_router_is_down_connects_once_it_is_back() {
    let listen = format!("tcp/127.0.0.1:{}", free_port());
    let mut listener = Spawn::zshm(
        "listener",
        &["listener", "-e", &listen, "-n", "3", "--timeout", "110"],
    )
    .start();
    listener.wait_for_stderr("the no-router warning", |l| l.contains("no zenoh router found"));
    let _router = Router::started(Spawn::zshm("router", &["router", "-l", &listen, "--no-metrics"]).start());
    let _talker = Spawn::zshm("talker", &["talker", "-e", &listen, "--rate", "5"]).start();
    assert_eq!(listener.wait_exit(), 0, "{}", listener.dump());
    let heard = listener
        .stdout()
        .iter()
        .filter(|l| l.starts_with("I heard: [Hello World: "))
        .count();
    assert_eq!(heard, 3, "{}", listener.dump());
}
