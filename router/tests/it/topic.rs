//! `zshm topic list / info / hz / bw` against a real router, talker and listener. The rate and
//! bandwidth tests check what is printed and how many messages were counted, never timings.

use nix::sys::signal::Signal;

use crate::support::{Proc, Router, Spawn};

/// Runs `zshm <args>` to its end, expects exit code `code` and returns stdout.
fn run(args: &[&str], code: i32) -> (Vec<String>, String) {
    let mut proc = Spawn::zshm("topic", args).start();
    assert_eq!(proc.wait_exit(), code, "{args:?}\n{}", proc.dump());
    (proc.stdout(), proc.stderr())
}

/// A talker at 20 Hz that waits for a subscriber before its first message.
fn talker(router: &Router) -> Proc {
    Spawn::zshm(
        "talker",
        &["talker", "-e", &router.locator, "-r", "20", "--wait", "60"],
    )
    .start()
}

#[test]
fn list_and_info_show_the_talker_and_the_listener_with_their_qos() {
    let router = Router::start(&[]);
    let listener = Spawn::zshm(
        "listener",
        &[
            "listener",
            "-e",
            &router.locator,
            "--namespace",
            "/robot1",
            "-t",
            "/chatter",
        ],
    )
    .start();
    listener.wait_for_stderr("subscription", |l| l.contains("listening"));
    let _talker = talker(&router);
    listener.wait_for_stdout("a message", |l| l == "I heard: [Hello World: 1]");
    let at = &router.locator;

    let (names, _) = run(&["topic", "list", "-e", at], 0);
    assert!(names.contains(&"/chatter".to_owned()), "{names:?}");
    let (typed, _) = run(&["topic", "list", "-t", "-e", at], 0);
    assert!(
        typed.contains(&"/chatter [std_msgs/msg/String]".to_owned()),
        "{typed:?}"
    );
    let (count, _) = run(&["topic", "list", "--count-topics", "-e", at], 0);
    assert_eq!(count, [names.len().to_string()]);
    // The older form stays.
    let (old, _) = run(&["topics", "-e", at], 0);
    assert!(old.contains(&"/chatter [std_msgs/msg/String] (1 publishers, 1 subscribers)".to_owned()));

    let (info, _) = run(&["topic", "info", "/chatter", "-e", at], 0);
    assert_eq!(
        info,
        [
            "Type: std_msgs/msg/String",
            "Publisher count: 1",
            "Subscription count: 1"
        ]
    );

    let (verbose, _) = run(&["topic", "info", "chatter", "-v", "-e", at], 0);
    let text = verbose.join("\n");
    for expected in [
        "Type: std_msgs/msg/String\n\nPublisher count: 1\n\nNode name: talker\nNode namespace: /\n",
        "Topic type: std_msgs/msg/String\nTopic type hash: RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18\nEndpoint type: PUBLISHER\nGID: ",
        "Subscription count: 1\n\nNode name: listener\nNode namespace: /robot1\n",
        "Endpoint type: SUBSCRIPTION\n",
        "QoS profile:\n  Reliability: RELIABLE\n  History (Depth): KEEP_LAST (10)\n  Durability: VOLATILE\n  Lifespan: Infinite\n  Deadline: Infinite\n  Liveliness: AUTOMATIC\n  Liveliness lease duration: Infinite\n",
    ] {
        assert!(text.contains(expected), "`{expected}` missing from:\n{text}");
    }
    let gids: Vec<&String> = verbose.iter().filter(|l| l.starts_with("GID: ")).collect();
    assert_eq!(gids.len(), 2, "{text}");
    for gid in gids {
        let bytes: Vec<&str> = gid["GID: ".len()..].split('.').collect();
        assert_eq!(bytes.len(), 16, "{gid}");
        assert!(
            bytes
                .iter()
                .all(|b| b.len() == 2 && u8::from_str_radix(b, 16).is_ok()),
            "{gid}"
        );
    }

    let (_, stderr) = run(&["topic", "info", "/nobody", "-e", at, "--timeout", "0.5"], 1);
    assert!(stderr.contains("unknown topic '/nobody'"), "{stderr}");
    let (_, stderr) = run(&["topic", "info", "/bad name", "-e", at], 2);
    assert!(stderr.contains("zshm: error:"), "{stderr}");
}

#[test]
fn hz_counts_every_interval_of_the_talker_and_stops_on_its_count() {
    let router = Router::start(&[]);
    let mut hz = Spawn::zshm(
        "hz",
        &[
            "topic",
            "hz",
            "/chatter",
            "-e",
            &router.locator,
            "-n",
            "40",
            "-w",
            "100",
        ],
    )
    .start();
    let _talker = talker(&router);
    assert_eq!(hz.wait_exit(), 0, "{}", hz.dump());
    let lines = hz.stdout();
    // The last report covers all 40 messages: 39 intervals.
    let last = lines.last().unwrap_or_else(|| panic!("{}", hz.dump()));
    assert!(
        last.starts_with("\tmin: ") && last.ends_with(" window: 39"),
        "{}",
        hz.dump()
    );
    let rate_line = &lines[lines.len() - 2];
    let rate: f64 = rate_line
        .strip_prefix("average rate: ")
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("{}", hz.dump()));
    assert!(rate.is_finite() && rate > 0.0, "{rate_line}");
}

#[test]
fn bw_counts_every_message_of_the_talker_and_stops_on_its_count() {
    let router = Router::start(&[]);
    let mut bw = Spawn::zshm(
        "bw",
        &["topic", "bw", "/chatter", "-e", &router.locator, "-n", "40"],
    )
    .start();
    let _talker = talker(&router);
    assert_eq!(bw.wait_exit(), 0, "{}", bw.dump());
    let lines = bw.stdout();
    assert_eq!(lines[0], "Subscribed to [/chatter]", "{}", bw.dump());
    let n = lines.len();
    assert!(n >= 3, "{}", bw.dump());
    assert!(lines[n - 2].ends_with("/s from 40 messages"), "{}", bw.dump());
    // "Hello World: 1" to "Hello World: 40": 23 and 24 bytes of CDR. The unit follows the rate
    // (B below 1000 B/s), which a loaded machine may push up; the sizes do not change.
    let sizes = &lines[n - 1];
    assert!(
        sizes == "\tMessage size mean: 24 B min: 23 B max: 24 B"
            || sizes == "\tMessage size mean: 0.02 KB min: 0.02 KB max: 0.02 KB",
        "{}",
        bw.dump()
    );
}

#[test]
fn hz_waits_for_a_publisher_and_stops_cleanly_on_sigint() {
    let router = Router::start(&[]);
    let mut waiting = Spawn::zshm("hz", &["topic", "hz", "/nothing", "-e", &router.locator]).start();
    waiting.wait_for_stderr("the warning", |l| {
        l == "WARNING: topic [/nothing] does not appear to be published yet"
    });
    waiting.signal(Signal::SIGINT);
    assert_eq!(waiting.wait_exit(), 0, "{}", waiting.dump());

    let mut hz = Spawn::zshm("hz", &["topic", "hz", "/chatter", "-e", &router.locator]).start();
    let _talker = talker(&router);
    hz.wait_for_stdout("a rate", |l| l.starts_with("average rate: "));
    hz.signal(Signal::SIGINT);
    assert_eq!(hz.wait_exit(), 0, "{}", hz.dump());
}
