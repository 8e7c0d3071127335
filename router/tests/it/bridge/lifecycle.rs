//! Restarts and several bridges: nothing stays declared, routes come back, each message once.

use super::*;

#[test]
fn a_bridge_killed_with_sigkill_leaves_nothing_declared_and_its_restart_brings_the_route_back() {
    let net = Net::new();
    let router = net.router();
    let listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let _talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "20", "--no-wait"],
        )
        .start();
    let first = net.bridge(&router, &[]);
    listener.wait_for_stdout("a bridged message", |l| l.starts_with("I heard: "));
    first.signal(nix::sys::signal::Signal::SIGKILL);
    let mut first = first;
    first.wait_exit();
    // zenoh drops a dead session's declarations with its link: no publisher is left behind.
    let deadline = Instant::now() + DEADLINE;
    loop {
        let mut info = net
            .zshm(
                "topic info",
                &["topic", "info", "/chatter", "-e", &router.locator],
            )
            .start();
        info.wait_exit();
        if info.stdout().iter().any(|l| l == "Publisher count: 0") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the killed bridge's publisher stays\n{}",
            info.dump()
        );
    }
    let before = last_heard(&listener);
    let second = net.bridge(&router, &[]);
    second.wait_for_stdout("the route again", |l| l.starts_with("route up: /chatter"));
    listener.wait_for_stdout("messages through the new bridge", |l| {
        l.strip_prefix("I heard: [Hello World: ")
            .and_then(|l| l.strip_suffix(']'))
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n > before)
    });
    stop_bridge(second);
}

#[test]
fn two_bridges_on_one_dds_domain_and_zenoh_network_carry_each_message_once_and_the_second_takes_over() {
    let net = Net::new();
    let first_router = net.router();
    let second_router = net.router_connected_to(&first_router);
    let first = net.bridge(&first_router, &[]);
    let second = net.bridge(&second_router, &[]);
    // The second sees the first on both sides: it stands by instead of bridging it all again.
    let standby = second.wait_for_stdout("standby", |l| l.starts_with("standby: bridge "));
    let listener = net
        .zshm("listener", &["listener", "-e", &second_router.locator])
        .start();
    let _dds_talker = net
        .dds(
            "dds talker",
            &["talker", "--count", "100000", "--rate", "20", "--no-wait"],
        )
        .start();
    let mut reader = net
        .dds(
            "dds listener",
            &[
                "listener",
                "--topic",
                "rt/echo",
                "--count",
                "20",
                "--timeout",
                "100",
                // What the route holds until the reader knows its writer comes at once.
                "--keep-all",
            ],
        )
        .start();
    reader.wait_for_stdout("listening", |l| l == "listening");
    let _talker = net
        .zshm(
            "talker",
            &[
                "talker",
                "-e",
                &second_router.locator,
                "-t",
                "echo",
                "-n",
                "20",
                "-r",
                "20",
                "--wait",
                "100",
            ],
        )
        .start();

    // zenoh -> DDS: each of the 20 messages once, in order (a second route would interleave
    // copies, a loop would bring them back again and again).
    assert_eq!(reader.wait_exit(), 0, "{}", reader.dump());
    let heard: Vec<String> = reader
        .stdout()
        .iter()
        .filter_map(|l| l.strip_prefix("heard "))
        .filter_map(|l| l.split(' ').next())
        .filter(|hex| hex.starts_with("0001"))
        .map(str::to_owned)
        .collect();
    let expected: Vec<String> = (1..=20)
        .map(|i| string_cdr(&format!("Hello World: {i}")))
        .collect();
    assert_eq!(heard, expected, "every message once, in order\n{}", reader.dump());
    // DDS -> zenoh: 30 messages in a row, each once.
    let first_heard = number_heard(&listener.wait_for_stdout("a message", |l| number_heard(l).is_some()));
    listener.wait_for_stdout("30 messages", |l| number_heard(l) >= first_heard.map(|n| n + 29));
    assert_consecutive(&heard_numbers(&listener), "DDS -> zenoh with two bridges");
    assert!(
        !second.stdout().iter().any(|l| l.starts_with("route up: ")),
        "the standby bridge bridges nothing\n{}",
        second.dump()
    );

    // The first goes: the second takes the routes over.
    let first_lines = stop_bridge(first);
    assert!(
        first_lines.iter().any(|l| l.starts_with("route up: /chatter")),
        "{first_lines:?}"
    );
    let active = standby
        .strip_prefix("standby: bridge ")
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_owned();
    second.wait_for_stdout("taking over", |l| {
        l == format!("taking over: bridge {active} went")
    });
    second.wait_for_stdout("the route again", |l| l.starts_with("route up: /chatter"));
    let before = heard_numbers(&listener).len();
    let last = heard_numbers(&listener).last().copied().unwrap_or(0);
    listener.wait_for_stdout("20 more messages", |l| number_heard(l) >= Some(last + 20));
    let after_takeover = &heard_numbers(&listener)[before..];
    assert_consecutive(after_takeover, "DDS -> zenoh after the takeover");
    stop_bridge(second);
}

/// A DDS talker on a topic the bridge has bridged before gets every message through, from its
/// first. RustDDS used to replay to each new DDS participant the announcement and the dispose of
/// every reader the bridge had ever had on the topic, in order and about 100 ms apart
/// (third_party/rustdds/PATCHES.md, 5): the new talker matched those long-gone readers one after
/// the other, began writing at the first, and its own DDS dropped what it wrote while it was
/// matched with none (a reliable volatile writer owes nothing to a reader it never matched).
#[test]
fn a_dds_talker_on_a_topic_bridged_before_loses_none_of_its_first_messages() {
    const EARLIER: usize = 4;
    let net = Net::new();
    let router = net.router();
    let listener = net.zshm("listener", &["listener", "-e", &router.locator]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    // Earlier routes come and go, each with a DDS reader of its own.
    for earlier in 1..=EARLIER {
        let mut talker = net
            .dds("earlier dds talker", &["talker", "--count", "2", "--rate", "20"])
            .start();
        assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
        // (Before the fix, the second talker already matched the first route's reader, long
        // gone, wrote its two messages to nobody and left before its own route came up.)
        wait_until(
            "an earlier talker's two messages heard and its route down",
            || {
                heard_numbers(&listener).len() >= 2 * earlier
                    && lines_starting(&bridge, "route down: /chatter") == earlier
            },
        );
    }
    let heard_before = heard_numbers(&listener).len();
    // The talker starts writing the moment a reader matched, at 50 Hz.
    let mut talker = net
        .dds("dds talker", &["talker", "--count", "40", "--rate", "50"])
        .start();
    assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
    // It waited for every reader's acknowledgement before it left; its route goes 3 s later.
    wait_until("its route down", || {
        lines_starting(&bridge, "route down: /chatter") == EARLIER + 1
    });
    assert_eq!(
        heard_numbers(&listener)[heard_before..],
        (1..=40).collect::<Vec<u64>>(),
        "{}",
        bridge.dump()
    );
    stop_bridge(bridge);
}

#[test]
fn routes_come_back_after_the_dds_peer_restarts_and_outlive_a_router_restart_and_nothing_stays_declared() {
    let net = Net::new();
    // The namespace's ports are its own, so the router can come back on the same one.
    let listen = "tcp/127.0.0.1:7447";
    let router_args = ["router", "-l", listen, "--no-metrics"];
    let mut router = Router::started(net.zshm("router", &router_args).start());
    let listener = net.zshm("listener", &["listener", "-e", listen]).start();
    net.wait_for_subscriptions(&router, "/chatter", 1);
    let bridge = net.bridge(&router, &[]);
    // Each talker waits for the bridge's reader, so that none of its messages is published
    // before the route exists (a volatile reader would not get them).
    let talker_args = ["talker", "--count", "100000", "--rate", "20"];
    let mut talker = net.dds("dds talker", &talker_args).start();
    wait_until("messages through the bridge", || {
        heard_numbers(&listener).len() >= 5
    });

    // The DDS peer stops as a ROS node does (SIGINT): its writer goes, and so does the route and
    // the bridged publisher on zenoh.
    talker.stop();
    wait_until("the route down", || {
        lines_starting(&bridge, "route down: /chatter") == 1
    });
    let mut info = net
        .zshm("topic info", &["topic", "info", "/chatter", "-e", listen])
        .start();
    info.wait_exit();
    assert!(
        info.stdout().iter().any(|l| l == "Publisher count: 0"),
        "{}",
        info.dump()
    );
    let heard_before = heard_numbers(&listener).len();
    let _talker = net.dds("restarted dds talker", &talker_args).start();
    // The first talker is gone and its route is down, so past the listener's backlog (at most
    // its KEEP_LAST(10) queue) every message is the restarted talker's. (Not asserted: which
    // one comes first, since a loaded listener drops the oldest queued, counted. A listener once
    // heard "1..5" twice here: the new route's reader was handed the first talker's cached
    // samples, numbered from 1 as well, and published them; those are now dropped as stale,
    // asserted below.)
    wait_until("the restarted talker's messages", || {
        heard_numbers(&listener).len() >= heard_before + 15
    });
    assert_eq!(
        lines_starting(&bridge, "route up: /chatter"),
        2,
        "{}",
        bridge.dump()
    );

    // The router dies. rmw_zenoh's sessions are peers that the router introduced to each other,
    // so the bridge and the listener keep their own link and the route keeps carrying.
    router.proc.signal(nix::sys::signal::Signal::SIGKILL);
    router.proc.wait_exit();
    let heard_before = heard_numbers(&listener).len();
    wait_until("messages while the router is down", || {
        heard_numbers(&listener).len() >= heard_before + 5
    });
    // It comes back on its port: a node started now finds the bridge through it.
    let restarted = Router::started(net.zshm("restarted router", &router_args).start());
    let mut late = net
        .zshm(
            "late listener",
            &["listener", "-e", listen, "-n", "5", "--timeout", "100"],
        )
        .start();
    assert_eq!(late.wait_exit(), 0, "{}", late.dump());
    assert_eq!(heard_numbers(&late).len(), 5, "{}", late.dump());
    assert_eq!(
        lines_starting(&bridge, "route down: /chatter"),
        1,
        "the route stayed up through the router's restart\n{}",
        bridge.dump()
    );
    let lines = stop_bridge(bridge);
    // The restarted talker's route got a new DDS reader, which RustDDS handed the first talker's
    // cached messages: written before that route existed, by a writer that is gone, they are
    // dropped as stale rather than published to the listener as new.
    let second = lines
        .iter()
        .filter(|l| l.starts_with("route down: /chatter"))
        .nth(1)
        .expect("the restarted talker's route");
    assert!(count_in(second, "stale") > 0, "{second}");
    // Nothing the bridge declared stays behind on zenoh.
    wait_until("no bridged publisher left", || {
        let mut info = net
            .zshm(
                "topic info",
                &["topic", "info", "/chatter", "-e", &restarted.locator],
            )
            .start();
        info.wait_exit();
        info.stdout().iter().any(|l| l == "Publisher count: 0")
    });
}
