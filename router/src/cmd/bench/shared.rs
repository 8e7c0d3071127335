//! What the benchmark's processes share: the flags `zshm bench` starts each role with
//! ([`RoleArgs`]), the reports the roles print and `zshm bench` reads back, the message they
//! send ([`cloud_shape`]), the paced publishing loop every publisher runs, and the collection
//! every subscriber runs.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use zshm::msgs::LoanableMessage;
use zshm::msgs::sensor_msgs::msg::{PointCloud2, PointField};

use super::plan::Mode;
use crate::cli;
use crate::support::out::outln;
use crate::support::shutdown;
use crate::support::ticker::{MissedTickBehavior, Ticker};

/// `zshm bench-role`: one process of a case, started by `zshm bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct RoleArgs {
    /// Publish (default: subscribe).
    #[arg(long)]
    pub publisher: bool,
    /// Transport mode.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// Case id, shared by the case's processes.
    #[arg(long)]
    pub case: String,
    /// Serialized message size.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=(1 << 30)))]
    pub payload: u64,
    /// Measured messages (`zshm bench --count`, times 3 for the throughput sweep).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub count: u64,
    /// Unmeasured messages first.
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub warmup: u64,
    /// Messages per second (0: as fast as possible).
    #[arg(long, value_parser = cli::rate_or_unpaced)]
    pub rate: f64,
    /// Subscribers the publisher waits for.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub subscribers: u64,
    /// The router.
    #[arg(short = 'e', long)]
    pub connect: String,
    /// Seconds before giving up.
    #[arg(long, value_parser = cli::seconds)]
    pub timeout: Duration,
}

impl RoleArgs {
    /// The payload size in bytes.
    pub fn payload(&self) -> usize {
        // The parser caps it at 1 GiB.
        self.payload as usize
    }
}

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the host.
pub fn mono_ns() -> i64 {
    let now = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .expect("CLOCK_MONOTONIC exists on Linux");
    now.tv_sec() * 1_000_000_000 + now.tv_nsec()
}

/// What a subscriber reports.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SubReport {
    /// Measured messages received.
    pub received: u64,
    /// Measured messages missing.
    pub lost: u64,
    /// Of which received through shared memory (zenoh's or the lane).
    pub shm: u64,
    /// Of which received through the same-host lane.
    #[serde(default)]
    pub lane: u64,
    /// Latency of each received message, ns.
    pub latencies_ns: Vec<i64>,
    /// First and last receive time (CLOCK_MONOTONIC ns), for throughput.
    pub first_ns: i64,
    /// See `first_ns`.
    pub last_ns: i64,
    /// CPU seconds spent while measuring.
    pub cpu_seconds: f64,
    /// Peak resident set size.
    pub peak_rss_bytes: u64,
}

/// What a publisher reports.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PubReport {
    /// Measured messages published.
    pub published: u64,
    /// Messages this publisher's zenoh dropped during the case, warm-up included, because the
    /// queue of a link to a subscriber stayed full: the bench publishes KEEP_LAST, which zshm
    /// maps to zenoh's congestion control DROP as rmw_zenoh does, so `put` succeeded for each
    /// and only zenoh's own count says they never left.
    #[serde(default)]
    pub zenoh_dropped: u64,
    /// CPU seconds spent while measuring.
    pub cpu_seconds: f64,
    /// Peak resident set size.
    pub peak_rss_bytes: u64,
}

/// Messages `session`'s zenoh dropped so far on all its links because a link's queue stayed full
/// (zenoh's per-transport statistics; see [`PubReport::zenoh_dropped`]).
pub async fn zenoh_drops(session: &zenoh::Session) -> u64 {
    zshm_ops::telemetry::zenoh_stats::own_link_traffic(session, Duration::from_secs(2))
        .await
        .iter()
        .map(|link| link.tx_congestion_drops)
        .sum()
}

/// Prints a report as the one JSON line `zshm bench` reads.
pub fn print_report(report: &impl serde::Serialize) -> anyhow::Result<()> {
    outln!("{}", serde_json::to_string(report)?);
    Ok(())
}

/// Publishes `warmup + count` messages at the case's rate, calling `publish(i)` for each, and
/// reports the measured part (the CPU time of the last `count` messages). Stops early on a
/// signal.
pub async fn publish_paced(
    args: &RoleArgs,
    mut publish: impl AsyncFnMut(u64) -> anyhow::Result<()>,
) -> anyhow::Result<PubReport> {
    // Burst keeps the average rate when a message was late (a benchmark compares rates).
    let mut ticker = Ticker::new(args.rate, MissedTickBehavior::Burst);
    let mut cpu_start = zshm_ops::tools::usage::cpu_seconds();
    let mut published = 0;
    for i in 0..args.warmup + args.count {
        if i == args.warmup {
            cpu_start = zshm_ops::tools::usage::cpu_seconds();
        }
        // A signal ends the case early; the report says how many were measured.
        if shutdown::unless_signalled(ticker.tick()).await.is_none() {
            break;
        }
        publish(i).await?;
        published += u64::from(i >= args.warmup);
    }
    Ok(PubReport {
        published,
        zenoh_dropped: 0,
        cpu_seconds: zshm_ops::tools::usage::cpu_seconds() - cpu_start,
        peak_rss_bytes: zshm_ops::tools::usage::peak_rss_bytes(),
    })
}

/// One received message, as the subscriber's callback saw it.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    /// When it was readable (CLOCK_MONOTONIC ns).
    pub at_ns: i64,
    /// When it was published (CLOCK_MONOTONIC ns).
    pub sent_ns: i64,
    /// Its sequence number, from 1.
    pub seq: u64,
    /// Whether it came through shared memory.
    pub shm: bool,
    /// Whether it came through the same-host lane.
    pub lane: bool,
}

/// Turns arrivals into a [`SubReport`]: skips the warm-up, stops at the last measured message.
#[derive(Debug)]
pub struct Collector {
    warmup: u64,
    count: u64,
    report: SubReport,
    cpu_start: f64,
}

impl Collector {
    /// A collector for the case of `args`.
    pub fn new(args: &RoleArgs) -> Self {
        Self {
            warmup: args.warmup,
            count: args.count,
            report: SubReport::default(),
            cpu_start: 0.0,
        }
    }

    /// Records one arrival; returns true once the last measured message has arrived.
    pub fn record(&mut self, arrival: Arrival) -> bool {
        if arrival.seq <= self.warmup {
            return false;
        }
        let report = &mut self.report;
        if report.received == 0 {
            self.cpu_start = zshm_ops::tools::usage::cpu_seconds();
            report.first_ns = arrival.at_ns;
        }
        report.received += 1;
        report.shm += u64::from(arrival.shm);
        report.lane += u64::from(arrival.lane);
        report.last_ns = arrival.at_ns;
        report.latencies_ns.push(arrival.at_ns - arrival.sent_ns);
        arrival.seq >= self.warmup + self.count
    }

    /// The report, with losses, CPU time and peak memory filled in.
    pub fn finish(mut self) -> SubReport {
        self.report.lost = self.count.saturating_sub(self.report.received);
        self.report.cpu_seconds = if self.report.received > 0 {
            zshm_ops::tools::usage::cpu_seconds() - self.cpu_start
        } else {
            0.0
        };
        self.report.peak_rss_bytes = zshm_ops::tools::usage::peak_rss_bytes();
        self.report
    }
}

/// A [`Collector`] that a subscriber's callback records into on the thread that received the
/// message, so that measuring wakes no other thread. The first version sent each arrival through
/// a channel to the main task, which woke that task's thread for every message in the zshm and
/// plain zenoh subscribers but not in iceoryx2's, which records on its receiving thread: a cost
/// of the benchmark, charged to some modes only (BENCHMARKS.md, "The executor's looks and the
/// benchmark's own wake-ups").
#[derive(Debug)]
pub struct SharedCollector {
    collector: Mutex<Option<Collector>>,
    last: tokio::sync::Notify,
}

impl SharedCollector {
    /// A collector for the case of `args`.
    pub fn new(args: &RoleArgs) -> Arc<Self> {
        Arc::new(Self {
            collector: Mutex::new(Some(Collector::new(args))),
            last: tokio::sync::Notify::new(),
        })
    }

    /// Records one arrival (see [`Collector::record`]); the last measured one wakes
    /// [`finish`](Self::finish).
    pub fn record(&self, arrival: Arrival) {
        let mut collector = self.collector.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(collector) = collector.as_mut()
            && collector.record(arrival)
        {
            self.last.notify_one();
        }
    }

    /// Waits for the last measured message, `timeout` or a signal, then makes the report (what
    /// arrives later is not recorded).
    pub async fn finish(&self, timeout: Duration) -> SubReport {
        // An arrival before this wait left a permit: it returns at once.
        let last = self.last.notified();
        tokio::select! {
            _ = tokio::time::timeout(timeout, last) => {}
            () = shutdown::first_signal() => {}
        }
        let collector = self
            .collector
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        collector.map(Collector::finish).unwrap_or_default()
    }
}

/// A cloud of `payload` serialized bytes: one `uint8` field per point.
pub fn cloud_shape(payload: usize) -> (PointCloud2, usize) {
    let mut shape = PointCloud2 {
        header: zshm::msgs::std_msgs::msg::Header {
            frame_id: "b".into(),
            ..Default::default()
        },
        height: 1,
        fields: vec![PointField::new("v", 0, PointField::UINT8)],
        point_step: 1,
        is_dense: true,
        ..Default::default()
    };
    let data_len = payload.saturating_sub(shape.shape_len(0));
    shape.width = data_len as u32;
    shape.row_step = data_len as u32;
    (shape, data_len)
}

/// The plain zenoh session's own SHM provider, for the `zenoh-shm` baseline: `None` when the
/// session's shared memory is off or failed.
///
/// zenoh 1.9 creates it lazily and only reports its state (1.10 made it awaitable), so this waits
/// for it to leave `Initializing`, 10 s at most.
pub async fn implicit_shm_provider(
    session: &zenoh::Session,
) -> Option<std::sync::Arc<zenoh::shm::ShmProvider<zenoh::shm::PosixShmProviderBackend>>> {
    use zenoh::shm::ShmProviderState;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match session.get_shm_provider() {
            ShmProviderState::Initializing if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(10)).await
            }
            state => return state.into_option(),
        }
    }
}

/// Waits until `expected` liveliness tokens are alive under `key` (the bench's processes
/// announce themselves ready so), or fails after `timeout` saying how many came. It works on a
/// plain zenoh session too: the plain-zenoh modes run no zshm session.
pub async fn wait_for_tokens(
    session: &zenoh::Session,
    key: String,
    expected: usize,
    what: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    use crate::support::ZenohContext;
    let watch = zshm::ros::graph::GraphWatch::on_zenoh(session, key)
        .await
        .zenoh_context("cannot watch the liveliness tokens")?;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let count = watch.tokens().len();
        if count >= expected {
            return Ok(());
        }
        if tokio::time::timeout_at(deadline, watch.changed()).await.is_err() {
            anyhow::bail!("only {count} of {expected} {what} appeared");
        }
    }
}

/// Waits until `expected` subscribers attached to the publisher's lane and the publisher decided
/// that every subscriber is served by it, so it skips zenoh, or `deadline`. A subscriber
/// attaches only once it has seen the publisher's token (about 15 ms after the publisher
/// appears, measured), and the publisher looks again at most a second later; until then
/// messages go through zenoh too, which is right for a node but not what the lane mode
/// measures: a burst of 60 messages of 64 B is over in a millisecond, before the lane serves
/// anyone (BENCHMARKS.md, "The lane in a burst"), and a node of the topics sweep would start
/// zenoh's SHM (a pool and two watchdog threads) for those copies.
pub async fn wait_for_lane(
    publisher: &zshm::ros::Publisher<PointCloud2>,
    expected: usize,
    deadline: Instant,
) -> anyhow::Result<()> {
    loop {
        let attached = publisher.lane_subscribers();
        if attached >= expected && publisher.skips_zenoh() {
            return Ok(());
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "only {attached} of {expected} subscribers attached to the lane{}",
            if attached >= expected {
                ", and the publisher still sends through zenoh too"
            } else {
                ""
            }
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// The environment of a case's zshm and plain zenoh processes in `mode`, with `pool` bytes of
/// zenoh SHM pool.
///
/// zenoh's SHM modes send every size through SHM (the default threshold of 512 B would send
/// 64 B messages over the network) and run with the lane off, so they measure zenoh. `lane`
/// runs with zshm's defaults, as a user's node does: its messages ride the lane, and the small
/// ones it sends through zenoh (its `/parameter_events`) stay off zenoh's pool, which would cost
/// it a pool and zenoh SHM's two watchdog threads.
pub fn mode_env(mode: Mode, pool: &str) -> Vec<(&'static str, &str)> {
    match mode {
        Mode::ShmCopy | Mode::ShmLoan | Mode::ShmInline => vec![
            ("ZENOH_SHM_MESSAGE_SIZE_THRESHOLD", "1"),
            ("ZENOH_SHM_ALLOC_SIZE", pool),
            ("ZSHM_LANE", "off"),
        ],
        Mode::ZenohShm => vec![
            ("ZENOH_SHM_MESSAGE_SIZE_THRESHOLD", "1"),
            ("ZENOH_SHM_ALLOC_SIZE", pool),
        ],
        Mode::Lane | Mode::LaneInline | Mode::Iceoryx2 | Mode::Tcp | Mode::TcpInline | Mode::ZenohTcp => {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(warmup: u64, count: u64) -> RoleArgs {
        RoleArgs {
            publisher: false,
            mode: Mode::Lane,
            case: "c".into(),
            payload: 64,
            count,
            warmup,
            rate: 100.0,
            subscribers: 1,
            connect: "tcp/127.0.0.1:7447".into(),
            timeout: Duration::from_secs(60),
        }
    }

    fn arrival(seq: u64) -> Arrival {
        Arrival {
            at_ns: 30,
            sent_ns: 10,
            seq,
            shm: true,
            lane: true,
        }
    }

    #[tokio::test]
    async fn a_shared_collector_records_on_the_receiving_thread_and_finishes_at_the_last_message() {
        let collector = SharedCollector::new(&args(5, 100));
        let receiving = {
            let collector = collector.clone();
            std::thread::spawn(move || (1..=105).for_each(|seq| collector.record(arrival(seq))))
        };
        let report = collector.finish(Duration::from_secs(60)).await;
        receiving.join().unwrap();
        assert_eq!((report.received, report.lost, report.lane), (100, 0, 100));
        assert_eq!(report.latencies_ns, vec![20; 100]);
    }

    #[tokio::test]
    async fn a_shared_collector_reports_the_losses_at_the_timeout() {
        let collector = SharedCollector::new(&args(0, 10));
        (1..=4).for_each(|seq| collector.record(arrival(seq)));
        let report = collector.finish(Duration::from_millis(50)).await;
        assert_eq!((report.received, report.lost), (4, 6));
    }
}
