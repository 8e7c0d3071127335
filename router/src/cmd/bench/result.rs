//! [`CaseResult`]: what one case of the latency, subscriber and throughput sweeps measured, over
//! all its subscribers. Its own module so that the report writer and the targets both read it
//! without importing each other.

use zshm_ops::tools::latency::Summary;

use super::plan::Case;
use super::shared::{PubReport, SubReport};

/// What one case measured, over all its subscribers.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// Measured messages received, over all subscribers.
    pub received: u64,
    /// Measured messages missing, over all subscribers.
    pub lost: u64,
    /// Messages the publisher's zenoh dropped during the case (warm-up included) because a
    /// link's queue stayed full, as its KEEP_LAST QoS allows: what explains a loss over zenoh.
    #[serde(default)]
    pub zenoh_dropped: u64,
    /// Latency statistics in microseconds.
    pub latency_us: Option<Summary>,
    /// Messages per second at one subscriber.
    pub msgs_per_s: f64,
    /// Payload bytes per second at one subscriber.
    pub bytes_per_s: f64,
    /// Publisher CPU time per message, µs.
    pub pub_cpu_us_per_msg: f64,
    /// Subscriber CPU time per message, µs (mean over subscribers).
    pub sub_cpu_us_per_msg: f64,
    /// Publisher peak RSS, MiB.
    pub pub_peak_rss_mib: f64,
    /// Largest subscriber peak RSS, MiB.
    pub sub_peak_rss_mib: f64,
    /// Share of messages received through shared memory (zenoh's or the lane).
    pub shm_share: f64,
    /// Share of messages received through the same-host lane.
    #[serde(default)]
    pub lane_share: f64,
    /// Why the case failed, if it did.
    pub error: Option<String>,
}

impl CaseResult {
    /// A case that did not run to the end, with why.
    pub fn failed(case: Case, error: String) -> Self {
        Self {
            case,
            received: 0,
            lost: 0,
            zenoh_dropped: 0,
            latency_us: None,
            msgs_per_s: 0.0,
            bytes_per_s: 0.0,
            pub_cpu_us_per_msg: 0.0,
            sub_cpu_us_per_msg: 0.0,
            pub_peak_rss_mib: 0.0,
            sub_peak_rss_mib: 0.0,
            shm_share: 0.0,
            lane_share: 0.0,
            error: Some(error),
        }
    }

    /// Pools the reports of the case's publisher and subscribers.
    pub fn from_reports(case: Case, publisher: &PubReport, subs: &[SubReport]) -> Self {
        let latencies: Vec<f64> = subs
            .iter()
            .flat_map(|s| s.latencies_ns.iter().map(|ns| *ns as f64 / 1e3))
            .collect();
        let received: u64 = subs.iter().map(|s| s.received).sum();
        let rates: Vec<f64> = subs
            .iter()
            .filter(|s| s.received > 1 && s.last_ns > s.first_ns)
            .map(|s| (s.received - 1) as f64 / ((s.last_ns - s.first_ns) as f64 / 1e9))
            .collect();
        let msgs_per_s = mean(&rates);
        let mib = |bytes: u64| bytes as f64 / (1 << 20) as f64;
        Self {
            latency_us: Summary::of(&latencies),
            received,
            lost: subs.iter().map(|s| s.lost).sum(),
            zenoh_dropped: publisher.zenoh_dropped,
            msgs_per_s,
            bytes_per_s: msgs_per_s * case.payload as f64,
            pub_cpu_us_per_msg: 1e6 * publisher.cpu_seconds / publisher.published.max(1) as f64,
            sub_cpu_us_per_msg: mean(
                &subs
                    .iter()
                    .map(|s| 1e6 * s.cpu_seconds / s.received.max(1) as f64)
                    .collect::<Vec<_>>(),
            ),
            pub_peak_rss_mib: mib(publisher.peak_rss_bytes),
            sub_peak_rss_mib: subs.iter().map(|s| mib(s.peak_rss_bytes)).fold(0.0, f64::max),
            shm_share: share(subs.iter().map(|s| s.shm).sum(), received),
            lane_share: share(subs.iter().map(|s| s.lane).sum(), received),
            error: None,
            case,
        }
    }

    /// p50 latency in µs.
    pub fn p50(&self) -> Option<f64> {
        self.latency_us.map(|l| l.p50)
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}
