//! What a router's routing tree still holds of the sessions that have left it, read from zenoh's
//! own resource log: with `zenoh::net::routing::dispatcher::resource=debug` the router prints
//! `Register resource <key>` when a key enters its tree and `Unregister resource <key>` when one
//! leaves it. A key enters as the leaf of a declaration; its prefixes enter with it and must
//! leave with it, so a prefix that stays is a resource kept for good (docs/RELIABILITY.md, "What
//! a router keeps of a closed session").

use std::collections::BTreeSet;
use std::time::Instant;

use super::{DEADLINE, Proc};

/// The `RUST_LOG` of a router whose routing tree a test reads: the usual filter, and zenoh's
/// resource log.
pub const RESOURCE_LOG: &str = "zshm=info,zshm_cli=info,zenoh=warn,zenoh_config=error,\
                                zenoh::net::routing::dispatcher::resource=debug";

/// The keys, and the prefixes of keys, named after a session other than the router's that the
/// router has registered and not unregistered, in `log` (its stderr). A session is named by its
/// admin space, `@/<zid>/…`; a key is named after it when one of its chunks is its zid (its admin
/// space, its liveliness tokens `@ros2_lv/<domain>/<zid>/…`, zshm's `@zshm/<zid>/…`).
pub fn kept_of_other_sessions(log: &str, router_zid: &str) -> BTreeSet<String> {
    let mut registered = Vec::new();
    let mut unregistered = BTreeSet::new();
    for line in log.lines().map(without_colours) {
        if let Some(key) = word_after(&line, "Unregister resource ") {
            unregistered.insert(key);
        } else if let Some(key) = word_after(&line, "Register resource ") {
            registered.push(key);
        }
    }
    let sessions: BTreeSet<&str> = registered
        .iter()
        .filter_map(|key| key.strip_prefix("@/")?.split('/').next())
        .filter(|zid| *zid != router_zid)
        .collect();
    let mut kept = BTreeSet::new();
    for key in &registered {
        let chunks: Vec<&str> = key.split('/').collect();
        let Some(named) = chunks.iter().position(|c| sessions.contains(c)) else {
            continue;
        };
        // The key and every prefix of it that holds the zid.
        for end in named + 1..=chunks.len() {
            let prefix = chunks[..end].join("/");
            if !unregistered.contains(&prefix) {
                kept.insert(prefix);
            }
        }
    }
    kept
}

/// Waits until `router` (started with [`RESOURCE_LOG`]) holds nothing of the sessions that have
/// left it; panics with what it still holds at the deadline.
pub fn wait_until_forgotten(router: &Proc, router_zid: &str) {
    let start = Instant::now();
    loop {
        let kept = kept_of_other_sessions(&router.stderr(), router_zid);
        if kept.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "after {DEADLINE:?} the router still holds {} resources of closed sessions: {kept:#?}",
            kept.len()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The router's zid, from its first line (`Started Zenoh router with id <zid>`).
pub fn router_zid(router: &Proc) -> String {
    let first = router.stdout().first().cloned().unwrap_or_default();
    first
        .strip_prefix("Started Zenoh router with id ")
        .unwrap_or_else(|| panic!("no start line: `{first}`"))
        .to_owned()
}

fn word_after(line: &str, marker: &str) -> Option<String> {
    let rest = &line[line.find(marker)? + marker.len()..];
    rest.split_whitespace().next().map(str::to_owned)
}

/// `line` without the terminal colour codes a logger may add.
fn without_colours(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::kept_of_other_sessions;

    const ROUTER: &str = "aa11";

    #[test]
    fn a_prefix_left_behind_is_reported_and_the_routers_own_keys_are_not() {
        let log = "\
DEBUG make_resource{from= suffix=\"@/aa11/router/**\"}: zenoh: Register resource @/aa11/router/**
DEBUG make_resource{from= suffix=\"@/bb22/peer/config\"}: zenoh: Register resource @/bb22/peer/config
DEBUG declare_queryable{id=2}:make_resource{from=@/bb22/peer suffix=\"/**\"}: zenoh: Register resource @/bb22/peer/**
DEBUG make_resource{from= suffix=\"@ros2_lv/0/bb22/0/0/NN\"}: zenoh: Register resource @ros2_lv/0/bb22/0/0/NN
DEBUG send_close: zenoh: Unregister resource @/bb22/peer/config
DEBUG send_close: zenoh: Unregister resource @/bb22/peer/**
DEBUG send_close: zenoh: Unregister resource @ros2_lv/0/bb22/0/0/NN
DEBUG send_close: zenoh: Unregister resource @ros2_lv/0/bb22/0/0
DEBUG send_close: zenoh: Unregister resource @ros2_lv/0/bb22/0
DEBUG send_close: zenoh: Unregister resource @ros2_lv/0/bb22
";
        let kept: Vec<String> = kept_of_other_sessions(log, ROUTER).into_iter().collect();
        assert_eq!(kept, ["@/bb22", "@/bb22/peer"]);
        let all = format!(
            "{log}\u{1b}[2mDEBUG\u{1b}[0m x: Unregister resource @/bb22/peer\nDEBUG x: Unregister resource @/bb22\n"
        );
        assert!(kept_of_other_sessions(&all, ROUTER).is_empty());
    }
}
