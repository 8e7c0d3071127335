//! Memory running out: the publisher's pool held by a slow reader, /dev/shm filling up while
//! nodes run, and the segments crashed processes leave behind.

use std::time::Duration;

use nix::sys::signal::Signal;

use super::crash::{SMALL_CLOUD, slow_reader_holds_the_pool_then_goes};
use super::{json_lines, received, router_in, wait_for_windows, windowed_probe, windows};
use zshm::stats::LaneFallback;

use crate::support::namespace::PrivateShm;
use crate::support::{DEADLINE, LaneRoot};

/// The pool exhausted by a reader that holds its buffers: loans fall back to the heap (counted,
/// logged once, still delivered), and shared memory comes back when the reader leaves.
#[test]
fn an_exhausted_pool_falls_back_counted_and_recovers_when_the_reader_leaves() {
    slow_reader_holds_the_pool_then_goes(Signal::SIGINT);
}

/// Writes zeros to `path` until the filesystem is full.
fn fill(path: &str) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![0u8; 4 << 20];
    while file.write_all(&chunk).is_ok() {}
    // The last chunk may have been written in part: what is left is less than a chunk, and
    // the remainder goes in smaller writes.
    let mut small = 4096;
    while small > 0 {
        if file.write_all(&chunk[..small]).is_err() {
            small /= 2;
        }
    }
}

/// Writes zeros to `path` until the filesystem has at most `left` bytes free.
fn fill_leaving(ns: &PrivateShm, path: &str, left: u64) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![0u8; 1 << 20];
    while ns.free_bytes() > left + chunk.len() as u64 {
        file.write_all(&chunk).unwrap();
    }
}

/// Regression test for issue 12 ("a lane running when /dev/shm fills can crash its process"):
/// the lane's segment is a sparse file, so a buffer used for the first time after /dev/shm filled
/// up used to kill the camera with SIGBUS (exit 135). A slow subscriber that joins then makes the
/// camera use fresh buffers: those messages go through zenoh instead (counted, said once), and
/// the fast subscriber still gets every cloud.
#[test]
fn a_lane_publisher_short_of_dev_shm_sends_through_zenoh_instead_of_dying() {
    let ns = PrivateShm::new("300m");
    let root = LaneRoot::new("fill", 0);
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.as_str();
    let mut fast = ns.zshm_on_lane("fast", &root, &windowed_probe(e)).start();
    let mut camera = ns
        .zshm_on_lane("camera", &root, &["cam-pub", "-e", e, "--json", "-n", "240"])
        .start();
    wait_for_windows(&fast, "clouds through the lane", |w| {
        w.last().is_some_and(|w| w["lane_share"] == 1.0)
    });

    // Room for the slow subscriber to join the lane (it needs 16 MiB), not for its backlog.
    let filler = format!("{}/filler", ns.dir());
    fill_leaving(&ns, &filler, 20 << 20);
    let mut slow = ns
        .zshm_on_lane(
            "slow",
            &root,
            &[&windowed_probe(e)[..], &["--callback-delay", "0.3"]].concat(),
        )
        .start();
    camera.wait_for_stderr("the fallback warning", |l| l.contains("no room in /dev/shm"));
    let count = windows(&fast).len();
    wait_for_windows(&fast, "two more windows", |w| w.len() > count + 2);
    std::fs::remove_file(&filler).unwrap();

    slow.signal(Signal::SIGINT);
    assert_eq!(slow.wait_exit(), 0, "{}", slow.dump());
    // Ends by its count: it stays until its subscribers have every cloud.
    assert_eq!(camera.wait_exit(), 0, "the camera lives on:\n{}", camera.dump());
    let summary = camera.json();
    let fallbacks = &summary["stats"]["lane"]["fallbacks"];
    let full = LaneFallback::ALL
        .iter()
        .position(|r| *r == LaneFallback::DevShmFull)
        .unwrap();
    assert!(fallbacks[full].as_u64().unwrap() > 0, "{summary}");
    let warnings = camera.stderr().matches("no room in /dev/shm").count();
    assert_eq!(warnings, 1, "said once:\n{}", camera.stderr());
    fast.signal(Signal::SIGINT);
    assert_eq!(fast.wait_exit(), 0, "{}", fast.dump());
    let total = json_lines(&fast).pop().unwrap();
    let published = summary["counts"]["published"].as_u64().unwrap();
    assert_eq!(published, 240, "{summary}");
    let got = total["received"].as_u64().unwrap() + total["before_first"].as_u64().unwrap();
    // The clouds that went through zenoh crossed TCP while four processes shared two cores: a
    // KEEP_LAST publisher (as rmw_zenoh maps it) lets zenoh drop a message whose queue stays
    // full. Each such drop must be one the camera counted on its link to this probe, none other.
    let zid = total["zid"].as_str().unwrap();
    let dropped = summary["zenoh_dropped"][zid].as_u64().unwrap_or(0);
    let lost = total["lost"].as_u64();
    assert_eq!(
        (got + dropped, lost.is_some_and(|lost| lost <= dropped)),
        (published, true),
        "every cloud, through the lane or zenoh, or counted as dropped by zenoh on the way: \
         {total}\n{}",
        fast.dump()
    );
    if dropped > 0 {
        assert!(
            camera.stderr().contains("zenoh dropped clouds because the queue"),
            "said:\n{}",
            camera.stderr()
        );
    }
}

/// /dev/shm fills up while a camera and a probe run: they go on through shared memory (the
/// camera's pool was created by its first cloud and is locked); a camera started while it is full falls back to TCP,
/// says why once and delivers everything; once space returns, a new camera uses shared memory
/// again.
#[test]
fn dev_shm_filling_up_mid_run_falls_back_counted_and_recovers_when_space_returns() {
    let ns = PrivateShm::new("400m");
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.as_str();
    let probe = windowed_probe(e);
    let mut points = ns.zshm("points", &probe).start();
    let mut camera = ns.zshm("camera", &["cam-pub", "-e", e]).start();
    wait_for_windows(&points, "clouds", |w| received(w) >= 15);

    let filler = format!("{}/filler", ns.dir());
    fill(&filler);
    assert_eq!(ns.free_bytes(), 0, "/dev/shm is full");
    let full_from = windows(&points).len();

    let mut other = ns
        .zshm("other", &[&probe[..], &["--topic", "/other"]].concat())
        .start();
    other.wait_for_stderr("the probe's status", |l| l.contains("measuring /other"));
    let second = [
        &[
            "cam-pub", "-e", e, "--topic", "/other", "-n", "30", "--wait", "60", "--json",
        ][..],
        &SMALL_CLOUD,
    ]
    .concat();
    let mut while_full = ns.zshm("camera-full", &second).start();
    assert_eq!(while_full.wait_exit(), 0, "{}", while_full.dump());
    let summary = while_full.json();
    let full_summary = summary.clone();
    assert_eq!(
        (
            summary["counts"]["published"].as_u64(),
            summary["counts"]["shm"].as_u64()
        ),
        (Some(30), Some(0)),
        "{summary}"
    );
    let status = summary["shm_status"].as_str().unwrap();
    assert!(
        status.contains("falling back to TCP") && status.contains("/dev/shm has"),
        "{status}"
    );
    let warnings = while_full.stderr().matches("falling back to TCP").count();
    assert_eq!(warnings, 1, "said once:\n{}", while_full.stderr());

    // The running camera never noticed.
    let during = windows(&points);
    assert!(during.len() > full_from, "{}", points.dump());
    for w in &during[full_from..] {
        assert_eq!(
            (w["shm_share"].as_f64(), w["lost"].as_u64()),
            (Some(1.0), Some(0)),
            "{w}"
        );
    }

    std::fs::remove_file(&filler).unwrap();
    let mut after = ns.zshm("camera-after", &second).start();
    assert_eq!(after.wait_exit(), 0, "{}", after.dump());
    let summary = after.json();
    assert_eq!(summary["counts"]["shm"], 30, "shared memory again: {summary}");

    camera.signal(Signal::SIGINT);
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    for probe in [&mut points, &mut other] {
        probe.signal(Signal::SIGINT);
        assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    }
    assert_eq!(json_lines(&points).pop().unwrap()["lost"], 0);
    let other_total = json_lines(&other).pop().unwrap();
    // The clouds sent while /dev/shm was full crossed TCP: a KEEP_LAST camera (as rmw_zenoh maps
    // it) lets zenoh drop one whose queue stays full, on a loaded machine. Any cloud missing
    // must be one a camera counted as dropped on its link to this probe.
    let zid = other_total["zid"].as_str().unwrap();
    let dropped: u64 = [&full_summary, &summary]
        .iter()
        .map(|s| s["zenoh_dropped"][zid].as_u64().unwrap_or(0))
        .sum();
    let (received, lost) = (other_total["received"].as_u64(), other_total["lost"].as_u64());
    assert_eq!(
        (received, lost.is_some_and(|lost| lost <= dropped)),
        (Some(60 - dropped), true),
        "both cameras' clouds, all of them but those zenoh counted as dropped: {other_total}\n\
         {full_summary}\n{summary}"
    );
}

/// Segments of a crashed process stay in /dev/shm until a zenoh process starts: `zshm router`
/// removes them at start.
#[test]
fn segments_left_by_a_crash_are_removed_when_the_router_starts() {
    let ns = PrivateShm::new("512m");
    let mut camera = ns
        .zshm("camera", &["cam-pub", "-e", "tcp/127.0.0.1:9", "-n", "0"])
        .start();
    camera.wait_for_stdout("a rate line", |l| l.starts_with("cam-pub: "));
    // Created by the first cloud: eight 7 MiB clouds.
    ns.wait_for_segments("the camera's pool", DEADLINE, |s| {
        s.iter().any(|s| s.bytes >= 56 << 20)
    });
    camera.signal(Signal::SIGKILL);
    camera.wait_exit();
    let stale = ns.segments();
    assert!(
        stale.iter().map(|s| s.bytes).sum::<u64>() >= 56 << 20,
        "{stale:?}"
    );

    let _router = router_in(&ns, "tcp/127.0.0.1:0");
    let left = ns.segments();
    assert!(
        stale.iter().all(|s| !left.contains(s)),
        "the crash's segments {stale:?} are gone; now {left:?}"
    );
}

/// The `*.zenoh` files of /dev/shm that `pid` maps.
fn mapped_segments(pid: u32) -> std::collections::BTreeSet<String> {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|path| path.starts_with("/dev/shm/") && path.ends_with(".zenoh"))
        .map(str::to_owned)
        .collect()
}

/// Regression test for the leak the churn soak found (docs/RELIABILITY.md, eclipse-zenoh/zenoh#2787):
/// a subscriber kept every segment of every publisher it ever received shared memory from mapped
/// and locked, 48 MiB more at each restart of an rmw_zenoh camera. With the patched zenoh-shm
/// (third_party/zenoh-shm/PATCHES.md) the segments of a publisher that left, unused for 30 s,
/// are unmapped when the next publisher's segments are mapped.
#[test]
fn a_subscriber_unmaps_the_segments_of_a_publisher_gone_for_30_seconds() {
    let ns = PrivateShm::new("512m");
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.as_str();
    let probe = ns.zshm("probe", &windowed_probe(e)).start();
    let camera_args = [&["cam-pub", "-e", e, "--wait", "60"][..], &SMALL_CLOUD].concat();

    let mut first = ns.zshm("first camera", &camera_args).start();
    wait_for_windows(&probe, "the first camera's clouds", |w| received(w) >= 5);
    // The camera's segments as the probe maps them (each process also maps a small segment of
    // its own).
    let first_segments: std::collections::BTreeSet<String> = mapped_segments(probe.pid())
        .intersection(&mapped_segments(first.pid()))
        .cloned()
        .collect();
    assert!(
        !first_segments.is_empty(),
        "the probe maps the first camera's segments\n{}",
        probe.dump()
    );
    first.signal(Signal::SIGKILL);
    first.wait_exit();
    // Past the 30 s a segment no buffer uses stays mapped (a poll would not be shorter: nothing
    // changes before the next publisher's segments are mapped).
    std::thread::sleep(Duration::from_secs(32));

    let before = received(&windows(&probe));
    let mut second = ns.zshm("second camera", &camera_args).start();
    wait_for_windows(&probe, "the second camera's clouds", |w| {
        received(w) >= before + 5
    });
    let now = mapped_segments(probe.pid());
    assert!(
        now.is_disjoint(&first_segments),
        "the first camera's segments {first_segments:?} are unmapped; the probe maps {now:?}; \
         /dev/shm holds {:?}",
        ns.segments()
    );
    assert!(
        !now.is_disjoint(&mapped_segments(second.pid())),
        "the probe maps the second camera's segments"
    );
    second.stop();
}

/// A publisher's segment files removed from /dev/shm after it created them (what another zenoh
/// process's start-up cleanup does when it wins a race with the creator, see `shm::pool`): the
/// publisher still writes its messages there, and no receiver can read them. zenoh drops each
/// such message with a debug line only; zshm's copy of zenoh-shm counts them
/// (third_party/zenoh-shm/PATCHES.md, 4), the receiver says why once, and its summary counts
/// them.
#[test]
fn messages_whose_shared_memory_cannot_be_read_are_counted_and_said_once() {
    let ns = PrivateShm::new("512m");
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.as_str();
    let mut camera = ns
        .zshm("camera", &[&["cam-pub", "-e", e][..], &SMALL_CLOUD].concat())
        .start();
    camera.wait_for_stdout("a rate line", |l| l.starts_with("cam-pub: "));
    // The camera's pool, created by its first cloud: its largest segment. (Its other segments
    // stay: a receiver reads one of them when its link is set up, to agree on shared memory.)
    let deadline = std::time::Instant::now() + DEADLINE;
    let pool = loop {
        let mapped = mapped_segments(camera.pid());
        let pool = ns
            .segments()
            .into_iter()
            .filter(|s| s.bytes >= 4 << 20 && mapped.contains(&format!("/dev/shm/{}", s.name)))
            .max_by_key(|s| s.bytes);
        if let Some(pool) = pool {
            break pool;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the camera maps {mapped:?}; /dev/shm holds {:?}\n{}",
            ns.segments(),
            camera.dump()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::fs::remove_file(format!("{}/{}", ns.dir(), pool.name)).unwrap();

    let mut probe = ns.zshm("probe", &windowed_probe(e)).start();
    let said = probe.wait_for_stderr("the warning", |l| l.contains("could not be read"));
    assert!(said.contains("could not be read (segment:"), "{said}");
    // More clouds arrive and are dropped the same way, without another warning.
    let rate_lines = || {
        camera
            .stdout()
            .iter()
            .filter(|l| l.starts_with("cam-pub: "))
            .count()
    };
    let (before, deadline) = (rate_lines(), std::time::Instant::now() + DEADLINE);
    while rate_lines() < before + 2 {
        assert!(std::time::Instant::now() < deadline, "{}", camera.dump());
        std::thread::sleep(Duration::from_millis(100));
    }
    probe.signal(Signal::SIGINT);
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    let summary = json_lines(&probe)
        .into_iter()
        .find(|l| l["final"] == true)
        .unwrap_or_else(|| panic!("a final summary\n{}", probe.dump()));
    let unreadable = summary["shm_unreadable"].as_u64().unwrap();
    assert!(unreadable >= 2, "{summary}");
    assert_eq!(summary["shm_share"].as_f64(), Some(0.0), "{summary}");
    assert_eq!(
        probe.stderr().matches("could not be read").count(),
        1,
        "said once\n{}",
        probe.dump()
    );
    camera.stop();
}

/// Regression test for eclipse-zenoh/zenoh#2628: a receiver whose threads do not run for a few
/// hundred milliseconds (a loaded machine, a debugger, a page-in) lost the clouds sent
/// meanwhile. The publisher's zenoh invalidated each buffer nobody confirmed within one of its
/// 100 ms watchdog checks, and a buffer in transit is confirmed by nobody: its sender let it go,
/// its receiver has not read it yet. The topics sweep saw this at S = 32 (`invalidated` in a
/// lossy case's report). zshm's zenoh-shm waits for ten missed checks
/// (third_party/zenoh-shm/PATCHES.md, 5): a receiver stopped for 400 ms loses nothing.
#[test]
fn a_receiver_stalled_for_400_ms_loses_no_cloud() {
    let ns = PrivateShm::new("512m");
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.as_str();
    let mut probe = ns.zshm("probe", &windowed_probe(e)).start();
    let mut camera = ns
        .zshm(
            "camera",
            &[&["cam-pub", "-e", e, "--wait", "60"][..], &SMALL_CLOUD].concat(),
        )
        .start();
    wait_for_windows(&probe, "clouds through shared memory", |w| {
        w.iter().any(|w| w["shm_share"] == 1.0)
    });
    for _ in 0..3 {
        probe.signal_process(Signal::SIGSTOP);
        std::thread::sleep(Duration::from_millis(400));
        probe.signal_process(Signal::SIGCONT);
        let seen = received(&windows(&probe));
        wait_for_windows(&probe, "clouds after the stall", |w| received(w) >= seen + 5);
    }
    probe.signal(Signal::SIGINT);
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    let summary = json_lines(&probe)
        .into_iter()
        .find(|l| l["final"] == true)
        .unwrap_or_else(|| panic!("a final summary\n{}", probe.dump()));
    assert_eq!(summary["shm_unreadable"], 0, "{summary}\n{}", probe.dump());
    assert_eq!(summary["lost"], 0, "{summary}");
    assert!(summary["shm_share"].as_f64().unwrap() > 0.9, "{summary}");
    camera.stop();
}

/// A process's handshake segment (the small /dev/shm file through which zenoh agrees on shared
/// memory when a link opens) removed while it runs: every link opened afterwards carries
/// copies. Both sides say the true cause, each once (zshm's copy of zenoh-shm records it,
/// third_party/zenoh-shm/PATCHES.md, 6); before, both blamed the other side's config ("that
/// process has shared memory off").
#[test]
fn a_removed_handshake_segment_is_named_on_both_sides_of_a_new_link() {
    let ns = PrivateShm::new("512m");
    let router = router_in(&ns, "tcp/127.0.0.1:0");
    let e = router.locator.as_str();
    // The router's handshake segment: the only zenoh file it maps, a few bytes long.
    let deadline = std::time::Instant::now() + DEADLINE;
    let handshake = loop {
        let mapped = mapped_segments(router.proc.pid());
        let small: Vec<String> = ns
            .segments()
            .into_iter()
            .map(|s| s.name)
            .filter(|name| {
                name.ends_with(".zenoh")
                    && mapped.contains(&format!("/dev/shm/{name}"))
                    && std::fs::metadata(format!("{}/{name}", ns.dir())).is_ok_and(|m| m.len() <= 64)
            })
            .collect();
        if let [one] = &small[..] {
            break one.clone();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the router maps {mapped:?}; /dev/shm holds {:?}\n{}",
            ns.segments(),
            router.proc.dump()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::fs::remove_file(format!("{}/{handshake}", ns.dir())).unwrap();

    let mut camera = ns
        .zshm("camera", &[&["cam-pub", "-e", e][..], &SMALL_CLOUD].concat())
        .start();
    let theirs = camera.wait_for_stderr("the camera's word on its link", |l| l.contains("carries copies"));
    assert!(
        theirs.contains(&format!(
            "could not open that process's shared-memory handshake segment /dev/shm/{handshake} (it is not in /dev/shm)"
        )),
        "{theirs}"
    );
    let ours = router
        .proc
        .wait_for_stderr("the router's word on the link", |l| l.contains("carries copies"));
    assert!(
        ours.contains(&format!(
            "this process's shared-memory handshake segment /dev/shm/{handshake} was removed"
        )),
        "{ours}"
    );
    // A second link: counted, not said again, and still not blamed on the other side's config.
    let mut probe = ns.zshm("probe", &windowed_probe(e)).start();
    probe.wait_for_stderr("the probe's word on its link", |l| l.contains("carries copies"));
    probe.signal(Signal::SIGINT);
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    camera.stop();
    for (who, stderr) in [("router", router.proc.stderr()), ("camera", camera.stderr())] {
        assert_eq!(
            stderr.matches("carries copies").count(),
            1,
            "{who} said it once\n{stderr}"
        );
        assert!(
            !stderr.contains("has shared memory off"),
            "{who} blamed the other side\n{stderr}"
        );
    }
}
