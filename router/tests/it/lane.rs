//! The same-host lane between `zshm` processes: it carries the messages, an ordinary user with
//! the default locked-memory limit gets it, killed processes leave nothing behind after the next
//! start, and `zshm doctor` and `zshm shm-clean` know it. Each test has its own lane root.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use crate::support::{DEADLINE, LaneRoot, Proc, Router, Spawn};

/// `zshm <args>` in the lane domain `root`.
fn zshm(name: &str, root: &LaneRoot, args: &[&str]) -> Spawn {
    Spawn::zshm(name, args).env("ZSHM_LANE_ROOT", &root.path)
}

/// The `heard N messages lane=.. shm=.. network=..` line of `zshm listener`, as (lane, total).
fn heard_by_path(listener: &Proc) -> (u64, u64) {
    let stderr = listener.stderr();
    let line = stderr
        .lines()
        .find(|l| l.contains("heard ") && l.contains(" lane="))
        .unwrap_or_else(|| panic!("no summary line:\n{stderr}"));
    let field = |name: &str| -> u64 {
        let at = line.find(&format!(" {name}=")).expect("the field") + name.len() + 2;
        line[at..].split(' ').next().unwrap().parse().unwrap()
    };
    (field("lane"), field("lane") + field("shm") + field("network"))
}

#[test]
fn talker_and_listener_in_two_processes_talk_through_the_lane() {
    let root = LaneRoot::new("talk", 0);
    let router = Router::start(&[]);
    let mut listener = zshm(
        "listener",
        &root,
        &["listener", "-e", &router.locator, "-n", "80"],
    )
    .start();
    listener.wait_for_stderr("subscription", |l| l.contains("listening"));
    let mut talker = zshm(
        "talker",
        &root,
        &[
            "talker",
            "-e",
            &router.locator,
            "-r",
            "40",
            "-n",
            "80",
            "--wait",
            "60",
        ],
    )
    .start();
    assert_eq!(listener.wait_exit(), 0, "{}", listener.dump());
    assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
    let expected: Vec<String> = (1..=80).map(|n| format!("I heard: [Hello World: {n}]")).collect();
    assert_eq!(listener.stdout(), expected, "every message once, in order");
    let (lane, total) = heard_by_path(&listener);
    assert_eq!(total, 80);
    // zenoh carries the first ones while the listener attaches (well under a second, unless the
    // machine is loaded).
    assert!(
        lane >= 20,
        "the lane carried {lane} of 80 (zenoh until it attached)"
    );
}

/// A probe (`cam-latency --json`, a report every 0.5 s), stopping after `count` clouds if given.
fn probe(root: &LaneRoot, router: &Router, count: Option<&str>, wrapper: Option<&[String]>) -> Proc {
    let mut args = vec![
        "cam-latency",
        "-e",
        &router.locator,
        "--json",
        "--window",
        "0.5",
        "--timeout",
        "60",
    ];
    if let Some(count) = count {
        args.extend(["-n", count]);
    }
    match wrapper {
        Some(wrapper) => Spawn::wrapped("cam-latency", wrapper, &args),
        None => Spawn::zshm("cam-latency", &args),
    }
    .env("ZSHM_LANE_ROOT", &root.path)
    .start()
}

fn camera(root: &LaneRoot, router: &Router, extra: &[&str], wrapper: Option<&[String]>) -> Proc {
    let mut args = vec!["cam-pub", "-e", &router.locator, "--rate", "20", "--json"];
    args.extend_from_slice(extra);
    match wrapper {
        Some(wrapper) => Spawn::wrapped("cam-pub", wrapper, &args),
        None => Spawn::zshm("cam-pub", &args),
    }
    .env("ZSHM_LANE_ROOT", &root.path)
    .start()
}

#[test]
fn an_ordinary_user_with_the_default_memlock_limit_gets_the_lane_where_zenoh_shm_fails() {
    let root = LaneRoot::new("nobody", 65534);
    let router = Router::start(&[]);
    let nobody: Vec<String> = [
        "setpriv",
        "--reuid",
        "65534",
        "--regid",
        "65534",
        "--clear-groups",
        "--inh-caps=-all",
        "prlimit",
        "--memlock=8388608",
    ]
    .map(String::from)
    .to_vec();
    let mut probe = probe(&root, &router, Some("60"), Some(&nobody));
    let mut camera = camera(&root, &router, &["-n", "60", "--wait", "60"], Some(&nobody));
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    let report = probe.json();
    assert_eq!(
        (report["received"].as_u64(), report["lost"].as_u64()),
        (Some(60), Some(0)),
        "{report}"
    );
    // Over TCP until the probe attached to the camera's lane (zenoh's SHM is off for this user).
    assert!(report["lane_share"].as_f64().unwrap() >= 0.5, "{report}");
    assert!(
        probe.stderr().contains("locked-memory limit is 8.0 MiB"),
        "zenoh's SHM is off for this user:\n{}",
        probe.stderr()
    );
}

#[test]
fn killed_lane_processes_leave_nothing_once_the_next_one_starts() {
    let root = LaneRoot::new("kill", 0);
    let router = Router::start(&[]);
    let camera_args = ["-n", "0", "--width", "64", "--height", "64"];
    let mut first_camera = camera(&root, &router, &camera_args, None);
    let mut doomed = probe(&root, &router, None, None);
    doomed.wait_for_stdout("a report", |l| l.contains("\"received\""));
    doomed.signal(Signal::SIGKILL);
    doomed.wait_exit();
    first_camera.signal(Signal::SIGKILL);
    first_camera.wait_exit();
    let left = root.dev_shm_files();
    assert!(
        left.iter().any(|f| f.ends_with(".data")),
        "a killed publisher leaves its segment: {left:?}"
    );

    // The next processes of the domain clean up after the dead ones, and work.
    let mut camera = camera(&root, &router, &camera_args, None);
    let mut probe = probe(&root, &router, Some("10"), None);
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    assert_eq!(probe.json()["lost"], 0);
    // Nothing was left to clean.
    shm_clean_removes_the_files_of(&root, 0);
    camera.stop();
    let deadline = Instant::now() + DEADLINE;
    while root.dev_shm_files().iter().any(|f| !f.ends_with("global_mgmt")) {
        assert!(
            Instant::now() < deadline,
            "left in /dev/shm: {:?}",
            root.dev_shm_files()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `zshm shm-clean` in `root` and checks it says it removed the files of `dead` processes.
fn shm_clean_removes_the_files_of(root: &LaneRoot, dead: usize) {
    let mut clean = zshm("shm-clean", root, &["shm-clean"]).start();
    assert_eq!(clean.wait_exit(), 0, "{}", clean.dump());
    let said = format!("removed the files of {dead} dead processes");
    assert!(
        clean.stdout().iter().any(|l| l.contains(&said)),
        "{said}:\n{}",
        clean.dump()
    );
}

#[test]
fn shm_clean_removes_what_killed_lane_processes_left() {
    let root = LaneRoot::new("clean", 0);
    let router = Router::start(&[]);
    let mut listener = zshm("listener", &root, &["listener", "-e", &router.locator]).start();
    let mut talker = zshm("talker", &root, &["talker", "-e", &router.locator, "-r", "50"]).start();
    // Killed in mid-stream, once the lane is set up (not half-way through creating a port).
    listener.wait_for_stdout("ten messages", |l| l == "I heard: [Hello World: 10]");
    let deadline = Instant::now() + DEADLINE;
    while root.doorbells().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the listener's executor made no doorbell"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    listener.signal(Signal::SIGKILL);
    talker.signal(Signal::SIGKILL);
    listener.wait_exit();
    talker.wait_exit();
    assert_eq!(root.doorbells().len(), 1, "a killed process leaves its doorbell");
    shm_clean_removes_the_files_of(&root, 2);
    let left = root.dev_shm_files();
    assert!(left.iter().all(|f| f.ends_with("global_mgmt")), "{left:?}");
    assert_eq!(
        root.doorbells(),
        Vec::<String>::new(),
        "a dead process's doorbell is removed"
    );
}

#[test]
fn doctor_checks_the_lane_and_says_when_it_is_off() {
    let root = LaneRoot::new("doctor", 0);
    for (lane, severity) in [("on", "ok"), ("off", "warn")] {
        let mut doctor = zshm("doctor", &root, &["doctor", "--json"])
            .env("ZSHM_LANE", lane)
            .start();
        doctor.wait_exit();
        let checks = doctor.json()["checks"].clone();
        let check = checks
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "local lane")
            .unwrap_or_else(|| panic!("no lane check: {checks}"))
            .clone();
        assert_eq!(check["severity"], severity, "ZSHM_LANE={lane}: {check}");
    }
}
