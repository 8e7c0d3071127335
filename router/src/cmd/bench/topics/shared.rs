//! What the topics sweep's node processes share, whatever their transport: their flags
//! ([`NodeArgs`]), the report each prints and the bench reads back ([`NodeReport`]), the
//! publishing loop ([`publish_ticks`]) and the count of what arrived ([`Tally`], [`Recorder`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::super::plan::Mode;
use super::layout::{CLOUD_HZ, MAX_SUBSCRIBERS, RATE_HZ, Topic, WARMUP_SECONDS, Workload};
use super::trace::{self, Published, Received};
use crate::cli;
use crate::support::out::outln;
use crate::support::shutdown;
use crate::support::ticker::{MissedTickBehavior, Ticker};

/// After its own last message, how long a node still waits for the others' (their clocks
/// started within a discovery round of its own).
pub const GRACE: Duration = Duration::from_secs(3);

/// `zshm bench-node`: one node process of the topics sweep, started by `zshm bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct NodeArgs {
    /// Transport mode.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// Case id, shared by the case's processes.
    #[arg(long)]
    pub case: String,
    /// This node's index, from 0 (below the workload's node count).
    #[arg(long)]
    pub index: u64,
    /// Small topics of the case.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub topics: u64,
    /// Subscribers of each small topic.
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u64).range(1..=MAX_SUBSCRIBERS as u64))]
    pub subscribers: u64,
    /// Subscribers of the cloud.
    #[arg(long, default_value = "4", value_parser = clap::value_parser!(u64).range(1..=MAX_SUBSCRIBERS as u64))]
    pub cloud_subscribers: u64,
    /// Measured seconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub seconds: u64,
    /// The router.
    #[arg(short = 'e', long)]
    pub connect: String,
    /// Seconds before giving up on the other nodes.
    #[arg(long, value_parser = cli::seconds)]
    pub timeout: Duration,
    /// Write every measured message's timestamps into this directory ([`super::trace`]).
    #[arg(long)]
    pub trace_dir: Option<PathBuf>,
}

impl NodeArgs {
    /// This node's index.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// The case's workload.
    pub fn workload(&self) -> Workload {
        Workload {
            topics: self.topics as usize,
            subscribers: self.subscribers as usize,
            cloud_subscribers: self.cloud_subscribers as usize,
        }
    }

    /// Refuses an index outside the workload's nodes.
    pub fn check(&self) -> anyhow::Result<()> {
        let nodes = self.workload().nodes();
        anyhow::ensure!(
            self.index() < nodes,
            "--index {} is not a node of this workload (0 to {})",
            self.index,
            nodes - 1
        );
        Ok(())
    }

    /// The topics this node publishes.
    pub fn published(&self) -> Vec<Topic> {
        self.workload()
            .layout()
            .into_iter()
            .filter(|t| t.publisher == self.index())
            .collect()
    }

    /// The topics this node subscribes to.
    pub fn read(&self) -> Vec<Topic> {
        self.workload()
            .layout()
            .into_iter()
            .filter(|t| t.subscribers.contains(&self.index()))
            .collect()
    }

    /// The prefix of the case's names (keys, topics, services).
    pub fn prefix(&self) -> String {
        format!("zshm-bench/{}", self.case)
    }
}

/// What a node reports.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct NodeReport {
    /// The node.
    pub index: usize,
    /// Measured messages it received, over its subscriptions.
    pub received: u64,
    /// Measured messages it should have received.
    pub expected: u64,
    /// Latency of each received measured message, ns.
    pub latencies_ns: Vec<i64>,
    /// Its threads at the end of the measured window (`/proc/self/status`).
    pub threads: u64,
    /// Its resident memory then, bytes.
    pub rss_bytes: u64,
    /// Its proportional share of that memory then, bytes (`/proc/self/smaps_rollup`): pages it
    /// shares with other processes, the program's code above all, count divided among them.
    #[serde(default)]
    pub pss_bytes: u64,
    /// Its CPU seconds over the measured window.
    pub cpu_seconds: f64,
    /// How long that window was: from when its measured publishing began to its last message in
    /// or out (0 in reports from before 8 December: the case's seconds then). A node goes on
    /// counting while late messages still come ([`LATE_PUBLISHERS`]), so this is not the case's
    /// seconds: dividing by those counted a late node's tail as more cores.
    #[serde(default)]
    pub active_seconds: f64,
    /// Its threads' voluntary context switches over the measured window: how often they went
    /// to sleep, which for a receiving thread is how often a message had to wake it.
    #[serde(default)]
    pub voluntary_switches: u64,
    /// Its threads' involuntary context switches then: taken off a CPU while they could run.
    #[serde(default)]
    pub involuntary_switches: u64,
    /// When its measured publishing began and ended (CLOCK_MONOTONIC ns).
    pub window_start_ns: i64,
    /// See `window_start_ns`.
    pub window_end_ns: i64,
    /// A zshm node's session counters at the end of the window: which path its messages took,
    /// what its queues dropped (what the bench shows for a node of a lossy case).
    #[serde(default)]
    pub session: Option<zshm::stats::StatsSnapshot>,
}

impl NodeReport {
    /// One line on where a node's messages went, for a lossy case.
    pub fn explain(&self) -> String {
        let mut line = format!(
            "node {}: received {} of {} measured messages",
            self.index, self.received, self.expected
        );
        if let Some(s) = &self.session {
            let overflows = s.overflow_keep_last_reliable
                + s.overflow_keep_last_best_effort
                + s.overflow_keep_all_reliable
                + s.overflow_keep_all_best_effort;
            line += &format!(
                "; lane: published {}, received {}, queue drops {}, fallbacks {}, borrow stalls {}, \
                 doorbell rings {}, direct wake-ups {}; zenoh: published {}, received {}; queue overflows {overflows}",
                s.lane.published_messages,
                s.lane.received_messages,
                s.lane.queue_drops,
                s.lane.fallbacks.iter().sum::<u64>(),
                s.lane.borrow_stalls,
                s.lane.doorbell_rings,
                s.lane.direct_wakeups,
                s.published_shm_messages + s.published_heap_messages,
                s.received_shm_messages + s.received_net_messages,
            );
            // What zenoh or the subscriptions dropped before counting a message as received.
            let rejected: u64 = zshm::stats::DropReason::ALL.iter().map(|&r| s.dropped(r)).sum();
            if rejected > 0 {
                line += &format!("; rejected on receipt {rejected}");
            }
            let unreadable: Vec<String> = zshm::stats::ShmUnreadable::ALL
                .iter()
                .filter(|&&c| s.shm_unreadable(c) > 0)
                .map(|&c| format!("{} {}", s.shm_unreadable(c), c.label()))
                .collect();
            if !unreadable.is_empty() {
                line += &format!("; SHM buffers not readable: {}", unreadable.join(", "));
            }
        }
        line
    }
}

/// One message a subscription of the node received.
#[derive(Debug, Clone, Copy)]
pub struct Delivery {
    /// The subscription: its position in [`NodeArgs::read`].
    pub slot: usize,
    /// The message's sequence number, from 1.
    pub seq: u64,
    /// When it was published (CLOCK_MONOTONIC ns).
    pub sent_ns: i64,
    /// When its callback had it (CLOCK_MONOTONIC ns).
    pub at_ns: i64,
}

/// The measured messages of each subscription, each counted once.
#[derive(Debug)]
pub struct Tally {
    subscriptions: Vec<Window>,
    latencies_ns: Vec<i64>,
    received: u64,
    expected: u64,
    /// When the last delivery arrived, measured or warm-up (CLOCK_MONOTONIC ns; 0 before the
    /// first): [`collect`] goes on past its deadline while deliveries still come.
    last_delivery_ns: i64,
    /// Each counted delivery, when the node traces (`--trace-dir`).
    trace: Option<Vec<Received>>,
}

#[derive(Debug)]
struct Window {
    warmup: u64,
    seen: Vec<bool>,
}

impl Tally {
    /// A tally for `read`, measured over `seconds`; `trace` keeps each counted delivery.
    pub fn new(read: &[Topic], seconds: u64, trace: bool) -> Self {
        let subscriptions: Vec<Window> = read
            .iter()
            .map(|t| Window {
                warmup: t.warmup(),
                seen: vec![false; t.count(seconds) as usize],
            })
            .collect();
        let expected = subscriptions.iter().map(|w| w.seen.len() as u64).sum();
        Self {
            subscriptions,
            latencies_ns: Vec::new(),
            received: 0,
            expected,
            last_delivery_ns: 0,
            trace: trace.then(Vec::new),
        }
    }

    /// Counts a delivery once if it is measured; true once every measured message arrived.
    pub fn record(&mut self, d: Delivery) -> bool {
        self.last_delivery_ns = self.last_delivery_ns.max(d.at_ns);
        if let Some(window) = self.subscriptions.get_mut(d.slot)
            && d.seq > window.warmup
            && let Some(seen) = window.seen.get_mut((d.seq - window.warmup - 1) as usize)
            && !*seen
        {
            *seen = true;
            self.received += 1;
            self.latencies_ns.push(d.at_ns - d.sent_ns);
            if let Some(trace) = &mut self.trace {
                trace.push(Received {
                    slot: d.slot,
                    seq: d.seq,
                    stamp_ns: d.sent_ns,
                    at_ns: d.at_ns,
                    tid: trace::thread_id(),
                });
            }
        }
        self.is_complete()
    }

    /// Whether every measured message arrived.
    pub fn is_complete(&self) -> bool {
        self.received >= self.expected
    }
}

/// Where a node's receiving side counts its deliveries: on the thread that received them, under
/// a lock the publishing task takes only once the window ends.
///
/// A channel to the publishing task (the first version) woke that task's thread for each
/// delivery: in a lane node at T = 100, 1,500 wake-ups and 2,200 futex calls a second (strace),
/// a cost of the benchmark rather than of the path it measures, and not the same in every mode
/// (iceoryx2's receiving thread drains a burst per wake-up, zshm's executor hands on one message
/// per callback). Every mode records the same way here.
#[derive(Debug)]
pub struct Recorder {
    tally: Mutex<Tally>,
    complete: tokio::sync::Notify,
}

impl Recorder {
    /// A recorder for the subscriptions `read`, measured over `seconds`; `trace` keeps each
    /// counted delivery ([`super::trace`]).
    pub fn new(read: &[Topic], seconds: u64, trace: bool) -> Arc<Self> {
        Arc::new(Self {
            tally: Mutex::new(Tally::new(read, seconds, trace)),
            complete: tokio::sync::Notify::new(),
        })
    }

    /// Counts a delivery (see [`Tally::record`]); the last measured one wakes [`collect`].
    pub fn record(&self, delivery: Delivery) {
        let mut tally = self.tally.lock().unwrap_or_else(PoisonError::into_inner);
        let was_complete = tally.is_complete();
        if tally.record(delivery) && !was_complete {
            self.complete.notify_one();
        }
    }
}

/// How long after its own deadline a node goes on counting while messages still come.
///
/// Why: each node's deadline runs from its own start, and the publishers of a case start later
/// than its subscribers (a lane publisher first waits for every subscriber to attach, which at
/// S = 32 on a loaded machine took over 2 s) and may run behind. Without this, a subscriber
/// stopped counting while the last messages were still being published, and the case read as
/// lossy with nothing dropped anywhere (7 December: 109-189 of each subscriber's last messages at
/// S = 32, all stamped after its last arrival, no queue drop or fallback counted).
pub const LATE_PUBLISHERS: Duration = Duration::from_secs(20);

/// Waits until every measured delivery arrived, or a signal, or `deadline` once no delivery
/// came in the last [`GRACE`] (up to [`LATE_PUBLISHERS`] past it); then takes the
/// count (what arrives later is not counted).
pub async fn collect(recorder: &Recorder, deadline: Instant) -> Tally {
    let last_call = deadline + LATE_PUBLISHERS;
    let mut deadline = deadline;
    loop {
        // A completion before this wait left a permit: it returns at once.
        let read_all = tokio::time::timeout_at(deadline.into(), recorder.complete.notified());
        tokio::select! {
            outcome = read_all => {
                if outcome.is_ok() {
                    break;
                }
            }
            () = shutdown::first_signal() => break,
        }
        let last_ns = recorder
            .tally
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .last_delivery_ns;
        let since_last = Duration::from_nanos(mono_ns().saturating_sub(last_ns).max(0) as u64);
        if last_ns == 0 || since_last >= GRACE || Instant::now() >= last_call {
            break;
        }
        deadline = (Instant::now() + (GRACE - since_last)).min(last_call);
    }
    let mut tally = recorder.tally.lock().unwrap_or_else(PoisonError::into_inner);
    Tally {
        subscriptions: Vec::new(),
        latencies_ns: std::mem::take(&mut tally.latencies_ns),
        received: tally.received,
        expected: tally.expected,
        last_delivery_ns: tally.last_delivery_ns,
        trace: tally.trace.take(),
    }
}

/// What this process had used when a measured window began: CPU seconds and context switches
/// (voluntary, involuntary), so that a report counts the window alone, not the warm-up.
#[derive(Debug, Clone, Copy, Default)]
pub struct UsageMark {
    cpu_seconds: f64,
    switches: (u64, u64),
}

impl UsageMark {
    /// The process's usage now.
    pub fn now() -> Self {
        Self {
            cpu_seconds: zshm_ops::tools::usage::cpu_seconds(),
            switches: zshm_ops::tools::usage::context_switches(),
        }
    }

    /// What the process used from this mark to `later`: (CPU seconds, voluntary switches,
    /// involuntary switches).
    pub fn until(self, later: Self) -> (f64, u64, u64) {
        (
            (later.cpu_seconds - self.cpu_seconds).max(0.0),
            later.switches.0.saturating_sub(self.switches.0),
            later.switches.1.saturating_sub(self.switches.1),
        )
    }
}

/// Publishes the node's topics, each at its rate, for the warm-up and `seconds`: on tick `k` of
/// the 100 Hz clock every small topic sends message `k + 1`, the cloud every tenth tick.
/// `publish(slot, seq)` sends message `seq` of topic `published[slot]` and returns the time it
/// wrote into it; `start` gets the beginning of the measured window (CLOCK_MONOTONIC ns), and
/// `usage` the process's usage then; `trace`, when given, gets each measured message.
pub async fn publish_ticks(
    published: &[Topic],
    seconds: u64,
    start: &AtomicI64,
    usage: &Mutex<UsageMark>,
    mut trace: Option<&mut Vec<Published>>,
    mut publish: impl AsyncFnMut(usize, u64) -> anyhow::Result<i64>,
) -> anyhow::Result<()> {
    // Burst keeps the average rate when a tick was late: the sweep compares rates.
    let mut ticker = Ticker::new(RATE_HZ as f64, MissedTickBehavior::Burst);
    let warmup_ticks = RATE_HZ * WARMUP_SECONDS;
    let cloud_every = RATE_HZ / CLOUD_HZ;
    start.store(mono_ns(), Ordering::Relaxed);
    for k in 0..RATE_HZ * (WARMUP_SECONDS + seconds) {
        if shutdown::unless_signalled(ticker.tick()).await.is_none() {
            break;
        }
        if k == warmup_ticks {
            start.store(mono_ns(), Ordering::Relaxed);
            *usage.lock().unwrap_or_else(PoisonError::into_inner) = UsageMark::now();
        }
        for (slot, topic) in published.iter().enumerate() {
            let seq = if !topic.is_cloud() {
                k + 1
            } else if k % cloud_every == 0 {
                k / cloud_every + 1
            } else {
                continue;
            };
            let stamp_ns = publish(slot, seq).await?;
            if k >= warmup_ticks
                && let Some(trace) = trace.as_deref_mut()
            {
                trace.push(Published {
                    slot,
                    seq,
                    stamp_ns,
                    returned_ns: mono_ns(),
                });
            }
        }
    }
    Ok(())
}

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the host.
pub fn mono_ns() -> i64 {
    super::super::shared::mono_ns()
}

/// Threads, resident bytes and proportional resident bytes of this process now, from
/// `/proc/self/status` and `/proc/self/smaps_rollup` (0 if unknown).
pub fn threads_rss_pss() -> (u64, u64, u64) {
    let kib = |file: &str, name: &str| {
        std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    (
        kib("/proc/self/status", "Threads:"),
        kib("/proc/self/status", "VmRSS:") * 1024,
        kib("/proc/self/smaps_rollup", "Pss:") * 1024,
    )
}

/// Runs the node's measured part once its subscriptions and publishers are in place: prints
/// `ready`, publishes and collects at once, then prints the report and waits for the bench to
/// stop it (so its publishers stay until every node has its messages).
pub async fn measure(
    args: &NodeArgs,
    recorder: &Recorder,
    session: Option<&zshm::Session>,
    publish: impl AsyncFnMut(usize, u64) -> anyhow::Result<i64>,
) -> anyhow::Result<()> {
    let published = args.published();
    let mut published_trace = args.trace_dir.as_ref().map(|_| Vec::new());
    let deadline = Instant::now() + Duration::from_secs(WARMUP_SECONDS + args.seconds) + GRACE;
    // Replaced when the measured window begins: the warm-up's CPU is not the workload's.
    let usage_start = Mutex::new(UsageMark::now());
    let (start, end) = (AtomicI64::new(0), AtomicI64::new(0));
    // A publisher that cannot keep up blocks in its loan or its put (a full pool, a full
    // queue); the node then stops publishing at the deadline, or on a signal, and reports what
    // arrived: a lossy case is a result.
    let publishing = async {
        let ticks = tokio::time::timeout_at(
            deadline.into(),
            publish_ticks(
                &published,
                args.seconds,
                &start,
                &usage_start,
                published_trace.as_mut(),
                publish,
            ),
        );
        let outcome = shutdown::unless_signalled(ticks).await;
        end.store(mono_ns(), Ordering::Relaxed);
        match outcome {
            Some(Ok(published)) => published,
            Some(Err(_)) => {
                tracing::warn!(
                    "node {}: publishing did not keep up; stopped at the deadline",
                    args.index()
                );
                Ok(())
            }
            None => Ok(()),
        }
    };
    let (published_ok, tally) = tokio::join!(publishing, collect(recorder, deadline));
    // Before the trace is written: that is the bench's work, not the node's.
    let usage_end = UsageMark::now();
    published_ok?;
    if let Some(dir) = &args.trace_dir {
        trace::write(
            dir,
            args.index(),
            (&published, published_trace.as_deref().unwrap_or_default()),
            (&args.read(), tally.trace.as_deref().unwrap_or_default()),
        )?;
    }
    let (window_start_ns, window_end_ns) = (start.load(Ordering::Relaxed), end.load(Ordering::Relaxed));
    let (threads, rss_bytes, pss_bytes) = threads_rss_pss();
    let usage_start = *usage_start.lock().unwrap_or_else(PoisonError::into_inner);
    let (cpu_seconds, voluntary_switches, involuntary_switches) = usage_start.until(usage_end);
    // From the window's start to the last message in or out: a wait for messages that never
    // came (a lossy case) is not the node's work, and costs no CPU.
    let last_ns = window_end_ns.max(tally.last_delivery_ns);
    let active_seconds = (last_ns - window_start_ns).max(0) as f64 / 1e9;
    let report = NodeReport {
        index: args.index(),
        received: tally.received,
        expected: tally.expected,
        latencies_ns: tally.latencies_ns,
        threads,
        rss_bytes,
        pss_bytes,
        cpu_seconds,
        active_seconds,
        voluntary_switches,
        involuntary_switches,
        window_start_ns,
        window_end_ns,
        session: session.map(|s| s.stats().snapshot()),
    };
    outln!("{}", serde_json::to_string(&report)?);
    let _ = tokio::time::timeout(args.timeout, shutdown::signal()).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_counts_measured_messages_once() {
        let topics = Workload::topics_sweep(10).layout();
        let read = vec![topics[0].clone()];
        let mut tally = Tally::new(&read, 1, false);
        let warmup = topics[0].warmup();
        let d = |seq| Delivery {
            slot: 0,
            seq,
            sent_ns: 0,
            at_ns: 5,
        };
        assert!(!tally.record(d(warmup))); // warm-up: not counted
        assert!(!tally.record(d(warmup + 1)));
        assert!(!tally.record(d(warmup + 1))); // a duplicate
        assert!(!tally.record(d(warmup + 101))); // past the window
        assert_eq!((tally.received, tally.expected), (1, 100));
        for seq in warmup + 2..=warmup + 100 {
            tally.record(d(seq));
        }
        assert!(tally.is_complete());
        assert_eq!(tally.latencies_ns.len(), 100);
    }

    #[tokio::test]
    async fn a_recorder_counts_on_the_receiving_thread_and_wakes_collect_once_complete() {
        let topics = Workload::topics_sweep(10).layout();
        let read = vec![topics[0].clone()];
        let warmup = topics[0].warmup();
        let recorder = Recorder::new(&read, 1, false);
        let receiving = {
            let recorder = recorder.clone();
            std::thread::spawn(move || {
                for seq in warmup - 5..=warmup + 100 {
                    recorder.record(Delivery {
                        slot: 0,
                        seq,
                        sent_ns: 10,
                        at_ns: 15,
                    });
                }
            })
        };
        let far = Instant::now() + Duration::from_secs(60);
        let tally = collect(&recorder, far).await;
        receiving.join().unwrap();
        assert_eq!((tally.received, tally.expected), (100, 100));
        assert_eq!(tally.latencies_ns, vec![5; 100]);
    }

    #[tokio::test]
    async fn collect_goes_on_past_its_deadline_while_measured_messages_still_come() {
        let topics = Workload::topics_sweep(10).layout();
        let read = vec![topics[0].clone()];
        let recorder = Recorder::new(&read, 1, false);
        let expected = topics[0].count(1);
        let late = {
            let recorder = recorder.clone();
            let warmup = topics[0].warmup();
            tokio::spawn(async move {
                // A publisher that started after this node: its messages come well past the
                // node's deadline, a few milliseconds apart.
                for seq in warmup + 1..=warmup + expected {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    let now = mono_ns();
                    recorder.record(Delivery {
                        slot: 0,
                        seq,
                        sent_ns: now,
                        at_ns: now,
                    });
                }
            })
        };
        let tally = collect(&recorder, Instant::now() + Duration::from_millis(20)).await;
        late.await.unwrap();
        assert_eq!(
            (tally.received, tally.expected),
            (expected, expected),
            "every message that came counted, though most came after the deadline"
        );
    }

    #[tokio::test]
    async fn collect_ends_at_the_deadline_with_what_arrived() {
        let topics = Workload::topics_sweep(10).layout();
        let read = vec![topics[0].clone()];
        let recorder = Recorder::new(&read, 1, false);
        recorder.record(Delivery {
            slot: 0,
            seq: topics[0].warmup() + 1,
            sent_ns: 0,
            at_ns: 7,
        });
        let tally = collect(&recorder, Instant::now() + Duration::from_millis(50)).await;
        assert_eq!((tally.received, tally.expected), (1, 100));
        assert_eq!(tally.latencies_ns, [7]);
    }
}
