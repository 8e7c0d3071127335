//! What the bridge does not bridge, and says so: denied topics, frequency caps, malformed
//! samples, DDS topics and types that are not ROS, keyed DDS topics.

use super::*;

#[test]
fn bridge_does_not_bridge_a_denied_topic() {
    let net = Net::new();
    let router = net.router();
    let denied = net
        .zshm(
            "denied listener",
            &["listener", "-e", &router.locator, "-t", "/secret"],
        )
        .start();
    let mut allowed = net
        .zshm(
            "allowed listener",
            &["listener", "-e", &router.locator, "-n", "5"],
        )
        .start();
    net.wait_for_subscriptions(&router, "/secret", 1);
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &["--deny", "publisher=^/secret$"]);
    let secret = net
        .dds(
            "dds secret talker",
            &[
                "talker",
                "--topic",
                "rt/secret",
                "--count",
                "40",
                "--rate",
                "20",
                "--no-wait",
                "--linger",
                "60",
            ],
        )
        .start();
    let _chatter = net
        .dds("dds talker", &["talker", "--count", "5", "--linger", "60"])
        .start();
    assert_eq!(allowed.wait_exit(), 0, "{}", allowed.dump());
    // The denied talker published all of its messages while the bridge ran.
    secret.wait_for_stdout("all sent", |l| l == "sent 40");
    bridge.wait_for_stderr("the denial", |l| l.contains("denied by the publisher filters"));
    let mut denied = denied;
    denied.signal_process(nix::sys::signal::Signal::SIGINT);
    denied.wait_exit();
    assert!(
        denied.stderr().contains("heard 0 messages"),
        "a denied topic is not bridged\n{}",
        denied.dump()
    );
    let lines = stop_bridge(bridge);
    assert!(
        lines.iter().all(|l| !l.contains("/secret")),
        "no route for the denied topic: {lines:?}"
    );
}

#[test]
fn bridge_caps_a_topic_at_its_max_frequency_and_counts_the_rest() {
    let net = Net::new();
    let router = net.router();
    let listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &["--max-frequency", "^/chatter$=2"]);
    let mut talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "50", "--rate", "25", "--linger", "1"],
        )
        .start();
    talker.wait_for_stdout("matched", |l| l == "matched");
    let started = Instant::now();
    assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
    // From the first message to the last, plus the linger: an upper bound of the time the cap
    // had to let messages through.
    let window = started.elapsed().as_secs_f64();
    let lines = stop_bridge(bridge);
    let down = lines
        .iter()
        .find(|l| l.starts_with("route down: "))
        .unwrap()
        .clone();
    let (forwarded, capped) = (count_in(&down, "messages"), count_in(&down, "max_frequency"));
    assert_eq!(
        forwarded + capped,
        50,
        "every message is forwarded or counted: {down}"
    );
    assert!(forwarded >= 1, "{down}");
    let bound = (window * 2.0).floor() as u64 + 1;
    assert!(
        forwarded <= bound,
        "{forwarded} forwarded in {window:.1} s at 2 Hz: {down}"
    );
    let mut listener = listener;
    listener.signal_process(nix::sys::signal::Signal::SIGINT);
    listener.wait_exit();
    let heard = listener
        .stdout()
        .iter()
        .filter(|l| l.starts_with("I heard: "))
        .count() as u64;
    assert_eq!(heard, forwarded, "{}", listener.dump());
}

#[test]
fn bridge_counts_and_logs_malformed_dds_samples_once_exports_the_counts_and_goes_on() {
    let net = Net::new();
    let router = net.router();
    let mut listener = net
        .zshm("listener", &["listener", "-e", &router.locator, "-n", "3"])
        .start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    let _talker = net
        .dds("dds malformed", &["malformed", "--count", "3", "--linger", "60"])
        .start();
    assert_eq!(
        listener.wait_exit(),
        0,
        "the good messages after the bad ones arrive\n{}",
        listener.dump()
    );
    let heard: Vec<String> = listener
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with("I heard: "))
        .collect();
    assert_eq!(
        heard,
        [
            "I heard: [Hello World: 1]",
            "I heard: [Hello World: 2]",
            "I heard: [Hello World: 3]"
        ]
    );
    // The exporter shows the route's counts, drops by reason; the route went with the listener
    // (it stopped after 3), and its counts stay.
    let route = ["topic=\"/chatter\"", "direction=\"dds_to_zenoh\""];
    net.wait_for_metric(&router, "zshm_bridge_route_up", &route, 0.0);
    net.wait_for_metric(&router, "zshm_bridge_messages_total", &route, 3.0);
    let malformed = [route[0], route[1], "reason=\"malformed_cdr\""];
    net.wait_for_metric(&router, "zshm_bridge_dropped_total", &malformed, 3.0);
    let stderr = bridge.stderr();
    let lines = stop_bridge(bridge);
    let down = lines.iter().find(|l| l.starts_with("route down: ")).unwrap();
    assert_eq!(count_in(down, "malformed_cdr"), 3, "{down}");
    assert_eq!(count_in(down, "messages"), 3, "{down}");
    assert_eq!(
        stderr.matches("reason=\"malformed_cdr\"").count(),
        1,
        "logged once:\n{stderr}"
    );
}

#[test]
fn a_dds_topic_that_is_not_ros_and_a_type_that_is_not_ros_are_logged_once_and_the_rest_goes_on() {
    let net = Net::new();
    let router = net.router();
    let listener = net
        .zshm("listener", &["listener", "-e", &router.locator, "-n", "10"])
        .start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    let _plain = net
        .dds(
            "plain dds talker",
            &[
                "talker",
                "--topic",
                "plain_topic",
                "--count",
                "100000",
                "--rate",
                "10",
                "--no-wait",
            ],
        )
        .start();
    let _odd = net
        .dds(
            "odd type talker",
            &[
                "talker",
                "--topic",
                "rt/chatter",
                "--type-name",
                "NotRos",
                "--count",
                "100000",
                "--rate",
                "10",
                "--no-wait",
            ],
        )
        .start();
    let _talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "20", "--no-wait"],
        )
        .start();
    let mut listener = listener;
    assert_eq!(
        listener.wait_exit(),
        0,
        "the ROS topic still flows\n{}",
        listener.dump()
    );
    // Each skip is said once, however many discovery rounds saw it (5 per second).
    let plain = "not a ROS topic (no rt/ prefix), not bridged";
    let odd = "type `NotRos` is not a ROS message type, not bridged";
    wait_until("both skips logged", || {
        let stderr = bridge.stderr();
        stderr.contains(plain) && stderr.contains(odd)
    });
    std::thread::sleep(std::time::Duration::from_secs(2)); // ten more rounds that must stay quiet
    let stderr = bridge.stderr();
    assert_eq!(stderr.matches(plain).count(), 1, "{stderr}");
    assert_eq!(stderr.matches(odd).count(), 1, "{stderr}");
    let lines = stop_bridge(bridge);
    assert!(
        lines
            .iter()
            .all(|l| !l.contains("NotRos") && !l.contains("plain_topic")),
        "{lines:?}"
    );
}

/// A DDS application's keyed topic (Cyclone DDS, a `@key` member): DDS matches keyed endpoints
/// only with keyed ones, so the bridge's unkeyed reader would never get a sample (Cyclone's
/// keyed writer never matched it). The bridge says so once, makes no route for it, and the
/// other topics go on.
#[test]
fn a_keyed_dds_topic_is_said_once_and_not_bridged_and_the_rest_goes_on() {
    let net = Net::new();
    let router = net.router();
    let mut listener = net
        .zshm(
            "listener",
            &["listener", "-e", &router.locator, "-t", "/other", "-n", "5"],
        )
        .start();
    let mut keyed_listener = net
        .zshm("keyed listener", &["listener", "-e", &router.locator])
        .start();
    net.wait_for_subscriptions(&router, "/other", 1);
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    let _keyed = net
        .dds(
            "keyed dds talker",
            &[
                "talker",
                "--keyed",
                "--count",
                "100000",
                "--rate",
                "10",
                "--no-wait",
            ],
        )
        .start();
    let _other = net
        .dds(
            "dds talker",
            &["talker", "--topic", "rt/other", "--count", "5", "--linger", "60"],
        )
        .start();
    assert_eq!(listener.wait_exit(), 0, "{}\n{}", listener.dump(), bridge.dump());
    let said = "keyed topic (its type has key members; ROS 2 topics never do): DDS matches it \
                only with keyed endpoints and the bridge's are unkeyed, so it is not bridged";
    wait_until("the keyed topic said", || bridge.stderr().contains(said));
    keyed_listener.signal_process(nix::sys::signal::Signal::SIGINT);
    keyed_listener.wait_exit();
    assert!(
        keyed_listener.stderr().contains("heard 0 messages"),
        "{}",
        keyed_listener.dump()
    );
    let stderr = bridge.stderr();
    let lines = stop_bridge(bridge);
    assert_eq!(stderr.matches(said).count(), 1, "said once:\n{stderr}");
    assert!(
        lines.iter().all(|l| !l.contains("/chatter")),
        "no route for the keyed topic: {lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("route down: /other ")),
        "{lines:?}"
    );
}
