//! [`Accumulator`]: the latencies of a window or of a whole run in bounded memory. A probe may
//! run for days at any rate a publisher chooses; keeping every sample would grow without end.
//!
//! Count, mean, population standard deviation, min and max are exact (Welford's online
//! algorithm). Percentiles come from a uniform random sample of at most [`RESERVOIR`] latencies
//! (Vitter's algorithm R): exact while fewer have arrived, an estimate after that.

use super::Summary;
use super::summary::percentile;

/// Latencies kept for percentiles: about 28 minutes at 60 Hz, 800 KB.
pub const RESERVOIR: usize = 100_000;

/// Running statistics of latencies (any unit).
#[derive(Debug, Clone)]
pub struct Accumulator {
    count: u64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
    reservoir: Vec<f64>,
    rng: u64,
}

impl Default for Accumulator {
    fn default() -> Self {
        Self {
            count: 0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            reservoir: Vec::new(),
            // Any odd constant: the sample only has to be uniform, not unpredictable.
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }
}

impl Accumulator {
    /// Adds one latency.
    pub fn add(&mut self, value: f64) {
        self.count += 1;
        let delta = value - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (value - self.mean);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        if self.reservoir.len() < RESERVOIR {
            self.reservoir.push(value);
        } else {
            let slot = self.next_random() % self.count;
            if let Some(kept) = self.reservoir.get_mut(slot as usize) {
                *kept = value;
            }
        }
    }

    /// xorshift64*: cheap and good enough to pick reservoir slots.
    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Latencies added so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Latencies held in memory for percentiles (at most [`RESERVOIR`]).
    pub fn retained(&self) -> usize {
        self.reservoir.len()
    }

    /// The statistics; `None` when nothing was added.
    pub fn summary(&self) -> Option<Summary> {
        if self.count == 0 {
            return None;
        }
        let mut sorted = self.reservoir.clone();
        sorted.sort_by(f64::total_cmp);
        Some(Summary {
            count: self.count as usize,
            mean: self.mean,
            std: (self.m2 / self.count as f64).max(0.0).sqrt(),
            min: self.min,
            max: self.max,
            p50: percentile(&sorted, 0.50),
            p99: percentile(&sorted, 0.99),
            p999: percentile(&sorted, 0.999),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_exact_summary_while_everything_fits() {
        let values: Vec<f64> = (0..1000).map(|i| f64::from(i % 37) * 0.25 + 1.0).collect();
        let mut acc = Accumulator::default();
        values.iter().for_each(|v| acc.add(*v));
        let (got, exact) = (acc.summary().unwrap(), Summary::of(&values).unwrap());
        assert_eq!((got.count, got.min, got.max), (exact.count, exact.min, exact.max));
        assert_eq!((got.p50, got.p99, got.p999), (exact.p50, exact.p99, exact.p999));
        assert!((got.mean - exact.mean).abs() < 1e-9 && (got.std - exact.std).abs() < 1e-9);
        assert!(Accumulator::default().summary().is_none());
    }

    /// Regression test for issue 11: the whole run kept every sample.
    #[test]
    fn memory_stays_bounded_and_the_moments_stay_exact() {
        let mut acc = Accumulator::default();
        let n = 3 * RESERVOIR as u64;
        for i in 0..n {
            acc.add((i % 1000) as f64);
        }
        assert_eq!(acc.retained(), RESERVOIR);
        let s = acc.summary().unwrap();
        assert_eq!((s.count as u64, s.min, s.max), (n, 0.0, 999.0));
        assert!((s.mean - 499.5).abs() < 1e-6, "{}", s.mean);
        assert!(
            (s.p50 - 500.0).abs() < 25.0,
            "a uniform sample keeps the median: {}",
            s.p50
        );
    }
}
