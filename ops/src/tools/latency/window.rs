//! [`Window`]: the tumbling window of the workshop's `camera_latency.py`, with the extras zshm
//! reports.
//!
//! The original appends each latency to a list; when a message arrives more than `window`
//! seconds after the window started, that message closes the window (it is included), the
//! statistics are printed, and a new window starts at its arrival. zshm does the same, and also
//! keeps what the original could not see: lost messages, the share received through shared
//! memory, the message size, and stamps that cannot be wall-clock time.

use std::time::{Duration, Instant};

use super::{Accumulator, Summary};
use zshm::raw::DataPath;

/// Latencies outside this range cannot come from a wall-clock stamp on a working system.
pub const MAX_PLAUSIBLE: Duration = Duration::from_secs(60);

/// What a sample's stamp says about the publisher's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StampVerdict {
    /// A plausible latency.
    Valid,
    /// The stamp is later than the receive time.
    InTheFuture,
    /// The stamp is more than [`MAX_PLAUSIBLE`] old: sim time, or a stamp never set.
    TooOld,
}

impl StampVerdict {
    /// Classifies a latency in nanoseconds.
    pub fn of(latency_ns: i64) -> Self {
        if latency_ns < 0 {
            StampVerdict::InTheFuture
        } else if latency_ns as u128 > MAX_PLAUSIBLE.as_nanos() {
            StampVerdict::TooOld
        } else {
            StampVerdict::Valid
        }
    }
}

/// What one closed window (or the whole run) saw.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WindowReport {
    /// Statistics of the valid latencies, in milliseconds; `None` when there were none.
    pub latency_ms: Option<Summary>,
    /// Samples received.
    pub received: u64,
    /// Samples whose stamp was in the future or implausibly old (not in `latency_ms`).
    pub invalid_stamps: u64,
    /// Messages lost (sequence gaps).
    pub lost: u64,
    /// Samples received through shared memory (zenoh's or the lane).
    pub shm: u64,
    /// Samples received through the same-host lane.
    pub lane: u64,
    /// Payload size of the last sample, in bytes.
    pub message_bytes: usize,
    /// Window length, seconds.
    pub seconds: f64,
}

impl WindowReport {
    /// Share of samples that came through shared memory, 0..1.
    pub fn shm_share(&self) -> f64 {
        if self.received == 0 {
            0.0
        } else {
            self.shm as f64 / self.received as f64
        }
    }

    /// Share of samples that came through the same-host lane, 0..1.
    pub fn lane_share(&self) -> f64 {
        if self.received == 0 {
            0.0
        } else {
            self.lane as f64 / self.received as f64
        }
    }
}

/// Accumulates samples and closes itself like the workshop script.
#[derive(Debug, Clone)]
pub struct Window {
    length: Duration,
    started: Instant,
    latencies_ms: Accumulator,
    received: u64,
    invalid: u64,
    lost: u64,
    shm: u64,
    lane: u64,
    message_bytes: usize,
}

impl Window {
    /// A window of `length` starting now.
    pub fn new(length: Duration, now: Instant) -> Self {
        Self {
            length,
            started: now,
            latencies_ms: Accumulator::default(),
            received: 0,
            invalid: 0,
            lost: 0,
            shm: 0,
            lane: 0,
            message_bytes: 0,
        }
    }

    /// Adds one sample; returns the report when this sample closed the window. Memory stays
    /// bounded however many samples a window gets (see [`Accumulator`]).
    pub fn add(
        &mut self,
        now: Instant,
        latency_ns: i64,
        lost_before: u64,
        path: DataPath,
        bytes: usize,
    ) -> Option<WindowReport> {
        self.received += 1;
        self.lost += lost_before;
        self.shm += u64::from(path != DataPath::Network);
        self.lane += u64::from(path == DataPath::Lane);
        self.message_bytes = bytes;
        match StampVerdict::of(latency_ns) {
            StampVerdict::Valid => self.latencies_ms.add(latency_ns as f64 / 1e6),
            _ => self.invalid += 1,
        }
        (now.duration_since(self.started) > self.length).then(|| self.close(now))
    }

    /// Closes the window now and starts the next one.
    pub fn close(&mut self, now: Instant) -> WindowReport {
        let report = WindowReport {
            latency_ms: self.latencies_ms.summary(),
            received: self.received,
            invalid_stamps: self.invalid,
            lost: self.lost,
            shm: self.shm,
            lane: self.lane,
            message_bytes: self.message_bytes,
            seconds: now.duration_since(self.started).as_secs_f64(),
        };
        *self = Self::new(self.length, now);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_sample_belongs_to_the_window_it_closes() {
        let t0 = Instant::now();
        let mut w = Window::new(Duration::from_secs(3), t0);
        assert!(
            w.add(t0 + Duration::from_secs(1), 5_000_000, 0, DataPath::Lane, 100)
                .is_none()
        );
        assert!(
            w.add(t0 + Duration::from_secs(3), 7_000_000, 0, DataPath::Lane, 100)
                .is_none(),
            "3.0 s is not more than 3 s"
        );
        let report = w
            .add(
                t0 + Duration::from_millis(3100),
                9_000_000,
                1,
                DataPath::Network,
                100,
            )
            .unwrap();
        let latency = report.latency_ms.unwrap();
        assert_eq!((latency.count, latency.mean, latency.max), (3, 7.0, 9.0));
        assert_eq!(
            (report.received, report.lost, report.shm, report.lane),
            (3, 1, 2, 2)
        );
        assert!(
            w.add(
                t0 + Duration::from_millis(3200),
                1_000_000,
                0,
                DataPath::Lane,
                100
            )
            .is_none(),
            "a new window started"
        );
    }

    #[test]
    fn implausible_stamps_are_counted_not_averaged() {
        let t0 = Instant::now();
        let mut w = Window::new(Duration::from_secs(1), t0);
        w.add(t0, -2_000_000, 0, DataPath::Shm, 1);
        w.add(t0, 1_700_000_000_000_000_000, 0, DataPath::Shm, 1);
        w.add(t0, 3_000_000, 0, DataPath::Shm, 1);
        let report = w.close(t0 + Duration::from_secs(1));
        assert_eq!(report.invalid_stamps, 2);
        assert_eq!(report.latency_ms.unwrap().mean, 3.0);
        assert_eq!(StampVerdict::of(-1), StampVerdict::InTheFuture);
        assert_eq!(StampVerdict::of(61_000_000_000), StampVerdict::TooOld);
    }
}
