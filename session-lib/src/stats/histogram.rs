//! [`LatencyHistogram`]: a lock-free latency histogram in seconds with Prometheus-style
//! cumulative buckets, filled by probes and exported through the node report.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bucket upper bounds in seconds: 100 µs to 1 s, fine where SHM and TCP latencies fall.
pub const BUCKETS_SECONDS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
];

/// Counts observations per bucket.
#[derive(Debug, Default)]
pub struct LatencyHistogram {
    buckets: [AtomicU64; BUCKETS_SECONDS.len()],
    count: AtomicU64,
    sum_ns: AtomicU64,
}

/// A copy of a histogram, as Prometheus exposes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HistogramSnapshot {
    /// `(upper bound in seconds, cumulative count)`, without `+Inf`.
    pub buckets: Vec<(f64, u64)>,
    /// Number of observations (the `+Inf` bucket).
    pub count: u64,
    /// Sum of the observations, seconds.
    pub sum_seconds: f64,
}

impl LatencyHistogram {
    /// Records a latency in nanoseconds; negative values (a clock ahead) are not recorded.
    pub fn observe_ns(&self, latency_ns: i64) {
        let Ok(ns) = u64::try_from(latency_ns) else { return };
        let seconds = ns as f64 / 1e9;
        if let Some(bucket) = BUCKETS_SECONDS.iter().position(|upper| seconds <= *upper) {
            self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// The cumulative view.
    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut cumulative = 0;
        let buckets = BUCKETS_SECONDS
            .iter()
            .zip(&self.buckets)
            .map(|(upper, count)| {
                cumulative += count.load(Ordering::Relaxed);
                (*upper, cumulative)
            })
            .collect();
        HistogramSnapshot {
            buckets,
            count: self.count.load(Ordering::Relaxed),
            sum_seconds: self.sum_ns.load(Ordering::Relaxed) as f64 / 1e9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_in_seconds() {
        let h = LatencyHistogram::default();
        h.observe_ns(400_000); // 0.4 ms
        h.observe_ns(9_000_000); // 9 ms
        h.observe_ns(2_000_000_000); // 2 s: only in +Inf
        h.observe_ns(-5);
        let s = h.snapshot();
        assert_eq!(s.count, 3);
        assert!((s.sum_seconds - 2.0094).abs() < 1e-9);
        let at = |upper: f64| s.buckets.iter().find(|(u, _)| *u == upper).unwrap().1;
        assert_eq!((at(0.00025), at(0.0005), at(0.01), at(1.0)), (0, 1, 2, 2));
    }
}
