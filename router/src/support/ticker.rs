//! [`Ticker`]: the one pacing loop of every publishing command (`pub`, `talker`, `cam-pub`, the
//! benchmark's publishers). Rates come validated from [`crate::cli::rate`] or
//! [`crate::cli::rate_or_unpaced`], so the period is always finite and positive.

use std::time::Duration;

pub use tokio::time::MissedTickBehavior;

/// Ticks `rate` times per second, or as fast as possible when the rate is 0.
#[derive(Debug)]
pub struct Ticker {
    interval: Option<tokio::time::Interval>,
}

impl Ticker {
    /// A ticker at `rate` Hz (0: never waits). `missed` says what to do after a late tick: `Skip`
    /// for a camera (frames are dropped, not bunched), `Delay` for a steady stream, `Burst` to
    /// keep the average rate of a benchmark.
    pub fn new(rate: f64, missed: MissedTickBehavior) -> Self {
        let interval = (rate > 0.0).then(|| {
            let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
            interval.set_missed_tick_behavior(missed);
            interval
        });
        Self { interval }
    }

    /// Waits for the next tick (the first one is immediate).
    pub async fn tick(&mut self) {
        if let Some(interval) = &mut self.interval {
            interval.tick().await;
        }
    }
}
