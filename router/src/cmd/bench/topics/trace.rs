//! `zshm bench --trace`: every measured message's timestamps, written by each node of the
//! topics and subscribers sweeps, so that a latency's tail can be split into its parts.
//!
//! A latency is `at - stamp`: from the moment the publisher wrote the time into the message to
//! the moment the subscriber's callback had it. The trace adds what the latency alone hides:
//! when the publish call returned (for the lane and iceoryx2, after the subscribers were
//! woken), and which thread ran the callback. Joined with a scheduler trace of the same
//! window taken on the same clock (`perf sched record -k mono`), each slow message then shows
//! whether its time went to publishing, to the receiving thread's wait for a CPU once woken,
//! or to that thread's run (`docs/bench/decompose.py`).
//!
//! Per node `<index>`, in the case's directory:
//! - `node-<index>-published.csv`: `topic,seq,stamp_ns,returned_ns`;
//! - `node-<index>-received.csv`: `topic,seq,stamp_ns,at_ns,tid`.
//!
//! Times are CLOCK_MONOTONIC nanoseconds, one clock for every process of the host; a message is
//! one `(topic, seq)`, and its `stamp_ns` is the same in both files.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;

use super::layout::Topic;

/// A measured message a node published.
#[derive(Debug, Clone, Copy)]
pub struct Published {
    /// The topic: its position in the node's published topics.
    pub slot: usize,
    /// Its sequence number, from 1.
    pub seq: u64,
    /// The time written into the message (CLOCK_MONOTONIC ns).
    pub stamp_ns: i64,
    /// When the publish call returned.
    pub returned_ns: i64,
}

/// A measured message a node received.
#[derive(Debug, Clone, Copy)]
pub struct Received {
    /// The topic: its position in the node's subscribed topics.
    pub slot: usize,
    /// Its sequence number, from 1.
    pub seq: u64,
    /// The time the publisher wrote into it.
    pub stamp_ns: i64,
    /// When the callback had it.
    pub at_ns: i64,
    /// The thread that ran the callback (Linux's thread id, as a scheduler trace names it).
    pub tid: i32,
}

/// The calling thread's id.
pub fn thread_id() -> i32 {
    nix::unistd::gettid().as_raw()
}

/// Writes node `index`'s two files into `dir` (created if missing).
pub fn write(
    dir: &Path,
    index: usize,
    (published_topics, published): (&[Topic], &[Published]),
    (read_topics, received): (&[Topic], &[Received]),
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = |topics: &[Topic], slot: usize| topics.get(slot).map_or_else(|| "?".into(), Topic::name);
    let mut out = String::from("topic,seq,stamp_ns,returned_ns\n");
    for p in published {
        let _ = writeln!(
            out,
            "{},{},{},{}",
            name(published_topics, p.slot),
            p.seq,
            p.stamp_ns,
            p.returned_ns
        );
    }
    let path = dir.join(format!("node-{index}-published.csv"));
    std::fs::write(&path, out).with_context(|| format!("cannot write {}", path.display()))?;
    let mut out = String::from("topic,seq,stamp_ns,at_ns,tid\n");
    for r in received {
        let _ = writeln!(
            out,
            "{},{},{},{},{}",
            name(read_topics, r.slot),
            r.seq,
            r.stamp_ns,
            r.at_ns,
            r.tid
        );
    }
    let path = dir.join(format!("node-{index}-received.csv"));
    std::fs::write(&path, out).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
