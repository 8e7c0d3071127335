//! [`Timer`]: a callback an executor runs every period, as rclcpp's wall timers.
//!
//! The executor wakes for the earliest timer it serves (epoll's timeout, rounded up to the next
//! millisecond), so a timer costs no thread. A callback that runs longer than the period, or an
//! executor busy elsewhere, makes it miss ticks: the missed ones are skipped, not bunched, and
//! the next tick stays on the timer's original grid.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{Registration, Waitable};

/// Runs a callback every period on its executor until dropped.
#[derive(Debug)]
pub struct Timer {
    period: Duration,
    state: Arc<TimerEntity>,
    _registration: Registration,
}

impl Timer {
    pub(crate) fn new(period: Duration, state: Arc<TimerEntity>, registration: Registration) -> Self {
        Self {
            period,
            state,
            _registration: registration,
        }
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// Ticks the callback ran for so far.
    pub fn ticks(&self) -> u64 {
        self.state.ticks.load(Ordering::Relaxed)
    }

    /// Ticks skipped because the callback or the executor was late.
    pub fn missed(&self) -> u64 {
        self.state.missed.load(Ordering::Relaxed)
    }
}

/// A timer as its executor sees it.
pub(crate) struct TimerEntity {
    period: Duration,
    next: Mutex<Instant>,
    callback: Mutex<Box<dyn FnMut() + Send>>,
    ticks: AtomicU64,
    missed: AtomicU64,
}

impl std::fmt::Debug for TimerEntity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimerEntity")
            .field("period", &self.period)
            .finish_non_exhaustive()
    }
}

impl TimerEntity {
    /// A timer whose first tick is one period from now. `period` must not be zero (the node
    /// checks it).
    pub(crate) fn new(period: Duration, callback: impl FnMut() + Send + 'static) -> Self {
        Self {
            period,
            next: Mutex::new(Instant::now() + period),
            callback: Mutex::new(Box::new(callback)),
            ticks: AtomicU64::new(0),
            missed: AtomicU64::new(0),
        }
    }

    fn next(&self) -> Instant {
        *self.next.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Waitable for TimerEntity {
    fn is_ready(&self, now: Instant) -> bool {
        self.next() <= now
    }

    fn execute(&self, now: Instant) {
        {
            let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
            if *next > now {
                return;
            }
            // The next tick on the original grid after `now`; the ones in between are missed.
            let behind = now.duration_since(*next).as_nanos() / self.period.as_nanos().max(1);
            let skipped = u32::try_from(behind).unwrap_or(u32::MAX);
            *next += self.period * (skipped + 1);
            self.missed.fetch_add(u64::from(skipped), Ordering::Relaxed);
        }
        self.ticks.fetch_add(1, Ordering::Relaxed);
        let mut callback = self.callback.lock().unwrap_or_else(PoisonError::into_inner);
        callback();
    }

    fn deadline(&self) -> Option<Instant> {
        Some(self.next())
    }

    fn name(&self) -> String {
        format!("timer every {:?}", self.period)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ros::executor::{CallbackGroup, CallbackGroupKind, Executor};

    #[test]
    fn a_timer_runs_on_the_thread_that_spins_and_skips_what_it_missed() {
        let executor = Executor::single_threaded().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let group = CallbackGroup::new(CallbackGroupKind::MutuallyExclusive);
        let period = Duration::from_millis(5);
        let (state, registration) = executor.add(group, None, |_| {
            TimerEntity::new(period, move || {
                let _ = tx.send(std::thread::current().id());
            })
        });
        let timer = Timer::new(period, state, registration);
        let me = std::thread::current().id();
        for _ in 0..3 {
            assert!(executor.spin_once(Duration::from_secs(10)).unwrap());
            assert_eq!(rx.try_recv(), Ok(me), "the callback ran on the spinning thread");
        }
        assert_eq!(timer.ticks(), 3);
        // Not spun for a while: the ticks in between are skipped, one callback runs.
        let next = timer.state.next();
        let late = next + period * 4 + period / 2;
        timer.state.execute(late);
        assert_eq!(timer.missed(), 4);
        assert_eq!(timer.state.next(), next + period * 5);
    }
}
