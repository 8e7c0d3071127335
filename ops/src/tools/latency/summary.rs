//! [`Summary`]: the statistics of a set of latency samples.

/// Statistics of a set of samples (any unit; zshm uses milliseconds for printing).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Population standard deviation (numpy's `np.std`, ddof = 0), as the workshop script.
    pub std: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// 99.9th percentile (nearest rank).
    pub p999: f64,
}

impl Summary {
    /// Summarises `samples`; `None` when there are none.
    ///
    /// ```
    /// let s = zshm_ops::tools::latency::Summary::of(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!((s.mean, s.min, s.max, s.p50), (2.5, 1.0, 4.0, 2.0));
    /// assert!((s.std - 1.118).abs() < 1e-3);
    /// ```
    pub fn of(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let count = sorted.len();
        let mean = sorted.iter().sum::<f64>() / count as f64;
        let variance = sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / count as f64;
        Some(Self {
            count,
            mean,
            std: variance.sqrt(),
            min: sorted[0],
            max: sorted[count - 1],
            p50: percentile(&sorted, 0.50),
            p99: percentile(&sorted, 0.99),
            p999: percentile(&sorted, 0.999),
        })
    }

    /// The workshop's line: `Mean : 9.40 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms`
    /// (samples in milliseconds).
    pub fn workshop_line(&self) -> String {
        format!(
            "Mean : {:.2} ms | Std : {:.2} ms | Min : {:.2} ms | Max : {:.2} ms",
            self.mean, self.std, self.min, self.max
        )
    }
}

/// Nearest-rank percentile of sorted samples: the smallest sample with at least `p` of the
/// samples at or below it.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let samples: Vec<f64> = (1..=1000).map(f64::from).collect();
        let s = Summary::of(&samples).unwrap();
        assert_eq!((s.p50, s.p99, s.p999, s.max), (500.0, 990.0, 999.0, 1000.0));
        let few = Summary::of(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!((few.p50, few.p99, few.p999), (3.0, 5.0, 5.0));
    }

    #[test]
    fn std_is_the_population_std_like_numpy() {
        // np.std([2, 4, 4, 4, 5, 5, 7, 9]) == 2.0
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!((s.mean, s.std), (5.0, 2.0));
        assert_eq!(Summary::of(&[3.0]).unwrap().std, 0.0);
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn the_workshop_line_has_the_original_format() {
        let s = Summary {
            count: 3,
            mean: 9.4,
            std: 0.8245,
            min: 7.906,
            max: 12.154,
            p50: 0.0,
            p99: 0.0,
            p999: 0.0,
        };
        assert_eq!(
            s.workshop_line(),
            "Mean : 9.40 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms"
        );
    }
}
