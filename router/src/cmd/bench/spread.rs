//! [`Spread`]: a ratio measured once per round, summarised as its median with the range it
//! moved in. A target is judged on the median: one slow round of a shared machine moves the
//! range, not the verdict.

use std::fmt;

/// The median of values measured once per round, and their range.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Spread {
    /// The median (the mean of the two middle values for an even count).
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// How many rounds gave a value.
    pub rounds: usize,
}

impl Spread {
    /// The spread of `values`, `None` when there are none. NaNs (a ratio of nothing) are skipped.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Self> {
        let mut values: Vec<f64> = values.into_iter().filter(|v| !v.is_nan()).collect();
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        Some(Self {
            median,
            min: values[0],
            max: values[n - 1],
            rounds: n,
        })
    }
}

impl fmt::Display for Spread {
    /// `1.23× (1.10–1.40, 3 rounds)`, or `1.23× (1 round)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rounds == 1 {
            write!(f, "{:.2}× (1 round)", self.median)
        } else {
            write!(
                f,
                "{:.2}× ({:.2}–{:.2}, {} rounds)",
                self.median, self.min, self.max, self.rounds
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_odd_count_is_the_middle_value() {
        let s = Spread::of([1.4, 1.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.rounds), (1.4, 1.0, 3.0, 3));
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        let s = Spread::of([4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.rounds), (2.5, 1.0, 4.0, 4));
    }

    #[test]
    fn nothing_measured_gives_no_spread_and_nans_are_skipped() {
        assert_eq!(Spread::of([]), None);
        assert_eq!(Spread::of([f64::NAN]), None);
        assert_eq!(Spread::of([f64::NAN, 2.0]).unwrap().median, 2.0);
    }

    #[test]
    fn it_prints_the_median_and_the_range() {
        assert_eq!(
            Spread::of([1.0, 1.2, 1.5]).unwrap().to_string(),
            "1.20× (1.00–1.50, 3 rounds)"
        );
        assert_eq!(Spread::of([1.5]).unwrap().to_string(), "1.50× (1 round)");
    }
}
