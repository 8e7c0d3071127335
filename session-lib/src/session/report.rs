//! [`NodeReport`]: what every zshm session tells the exporter about itself, on the key
//! `@zshm/<zid>/report` (JSON), so one scrape target covers every zshm process on the robot.
//!
//! zenoh's own statistics (bytes through SHM or the network, per link) come from its admin space
//! (`@/<zid>/<whatami>/metrics`); what only zshm knows comes from here: the SHM status and pool,
//! loan fallbacks, rejected samples, and the probes' latency histograms.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};

use super::lane::LaneSlot;
use crate::shm::ShmPool;
use crate::stats::histogram::{HistogramSnapshot, LatencyHistogram};
use crate::stats::{SessionStats, StatsSnapshot};

/// The key prefix of node reports.
pub const REPORT_PREFIX: &str = "@zshm";

/// A session's self-description.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NodeReport {
    /// zenoh id.
    pub zid: String,
    /// `router` or `peer`.
    pub role: String,
    /// The program, e.g. `zshm cam-latency`.
    pub program: String,
    /// The host name of the machine (or UTS namespace) it runs on: tells hosts apart when one
    /// exporter sees a robot and its control station.
    #[serde(default)]
    pub host: String,
    /// Whether SHM is active.
    pub shm_active: bool,
    /// Why not, when it is not (a [`crate::ShmUnavailable`] label).
    pub shm_reason: Option<String>,
    /// Pool size in bytes (0 when SHM is off or no message needed a pool yet).
    pub shm_pool_bytes: u64,
    /// Whether the same-host lane is on.
    #[serde(default)]
    pub lane_on: bool,
    /// Why not, when it is not (a [`crate::lane::LaneUnavailable`] label).
    #[serde(default)]
    pub lane_reason: Option<String>,
    /// The session's counters.
    pub stats: StatsSnapshot,
    /// Latency histograms by topic.
    pub latency: Vec<TopicLatency>,
    /// What the process forwards between networks, route by route (`zshm bridge`; empty
    /// elsewhere).
    #[serde(default)]
    pub routes: Vec<RouteReport>,
}

/// One route of a process that forwards between networks (`zshm bridge`): counters since the
/// process started, kept when the route goes and added to when it comes back, so they only grow.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RouteReport {
    /// The ROS topic or service.
    pub topic: String,
    /// Which way, e.g. `dds_to_zenoh`.
    pub direction: String,
    /// Whether the route exists now.
    pub up: bool,
    /// Messages forwarded.
    pub messages: u64,
    /// Payload bytes forwarded.
    pub bytes: u64,
    /// Messages dropped, by reason label.
    pub drops: BTreeMap<String, u64>,
}

/// Where a session's [`RouteReport`]s come from: set by the forwarding component, read at each
/// report. Held weakly: the component's routes go with it.
pub type RouteSource = dyn Fn() -> Vec<RouteReport> + Send + Sync;

/// The session's slot for its [`RouteSource`].
#[derive(Default)]
pub(crate) struct RouteSlot(Mutex<Option<Weak<RouteSource>>>);

impl RouteSlot {
    pub(crate) fn set(&self, source: &Arc<RouteSource>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::downgrade(source));
    }

    fn routes(&self) -> Vec<RouteReport> {
        let source = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        source.and_then(|s| s.upgrade()).map(|s| s()).unwrap_or_default()
    }
}

impl std::fmt::Debug for RouteSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RouteSlot")
    }
}

/// One probe histogram.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TopicLatency {
    /// The topic measured.
    pub topic: String,
    /// The histogram.
    pub histogram: HistogramSnapshot,
}

/// Histograms registered on a session.
#[derive(Debug, Default)]
pub(crate) struct Histograms(Mutex<Vec<(String, Arc<LatencyHistogram>)>>);

impl Histograms {
    pub(crate) fn for_topic(&self, topic: &str) -> Arc<LatencyHistogram> {
        let mut all = self.0.lock().expect("no panics while holding the histogram list");
        if let Some((_, histogram)) = all.iter().find(|(t, _)| t == topic) {
            return histogram.clone();
        }
        let histogram = Arc::new(LatencyHistogram::default());
        all.push((topic.to_owned(), histogram.clone()));
        histogram
    }

    fn snapshot(&self) -> Vec<TopicLatency> {
        let all = self.0.lock().expect("no panics while holding the histogram list");
        all.iter()
            .map(|(topic, h)| TopicLatency {
                topic: topic.clone(),
                histogram: h.snapshot(),
            })
            .collect()
    }
}

/// What the report queryable needs, held weakly so it does not keep the session alive.
pub(crate) struct ReportSource {
    pub(crate) zid: String,
    pub(crate) role: String,
    pub(crate) shm_active: bool,
    pub(crate) shm_reason: Option<String>,
    pub(crate) pool: Option<Weak<ShmPool>>,
    pub(crate) lane: Weak<LaneSlot>,
    pub(crate) stats: Weak<SessionStats>,
    pub(crate) histograms: Weak<Histograms>,
    pub(crate) routes: Weak<RouteSlot>,
}

impl ReportSource {
    fn report(&self) -> Option<NodeReport> {
        let lane = self.lane.upgrade()?.status();
        Some(NodeReport {
            zid: self.zid.clone(),
            role: self.role.clone(),
            program: program_name(),
            host: host_name(),
            shm_active: self.shm_active,
            shm_reason: self.shm_reason.clone(),
            shm_pool_bytes: self
                .pool
                .as_ref()
                .and_then(Weak::upgrade)
                .map_or(0, |pool| pool.size() as u64),
            lane_on: lane.is_on(),
            lane_reason: lane.unavailable_reason().map(|r| r.label().to_owned()),
            stats: self.stats.upgrade()?.snapshot(),
            latency: self.histograms.upgrade()?.snapshot(),
            routes: self.routes.upgrade().map(|r| r.routes()).unwrap_or_default(),
        })
    }
}

/// This machine's host name, empty when it cannot be read.
pub fn host_name() -> String {
    nix::unistd::gethostname()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `zshm <subcommand>` or the executable's name.
fn program_name() -> String {
    let args: Vec<String> = std::env::args().take(2).collect();
    let exe = args
        .first()
        .and_then(|a| a.rsplit('/').next())
        .unwrap_or("unknown")
        .to_owned();
    match args.get(1) {
        Some(sub) if exe == "zshm" && !sub.starts_with('-') => format!("zshm {sub}"),
        _ => exe,
    }
}

/// Declares the report queryable for the session's lifetime.
pub(crate) async fn declare(session: &zenoh::Session, source: ReportSource) -> Result<(), zenoh::Error> {
    let key = format!("{REPORT_PREFIX}/{}/report", source.zid);
    session
        .declare_queryable(key)
        .callback(move |query| {
            let Some(report) = source.report() else { return };
            match serde_json::to_vec(&report) {
                Ok(json) => {
                    if let Err(err) = zenoh::Wait::wait(query.reply(query.key_expr().clone(), json)) {
                        tracing::debug!("node report not sent: {err}");
                    }
                }
                Err(err) => tracing::debug!("node report not serialized: {err}"),
            }
        })
        .background()
        .await
}
