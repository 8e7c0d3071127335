//! [`Probe`]: what `zshm cam-latency` keeps while it runs: the current window, the whole run,
//! lost messages per publisher, and whether an implausible stamp was already reported. All of it
//! in bounded memory (see [`Accumulator`](super::Accumulator) and [`LossTracker`]).

use std::time::{Duration, Instant};

use super::{LossTracker, StampVerdict, Window, WindowReport};
use zshm::raw::DataPath;
use zshm::ros::gid::Gid;

/// One received sample, measured in the subscriber's callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    /// When it was received (monotonic).
    pub at: Instant,
    /// Receive wall clock minus `header.stamp`, in nanoseconds.
    pub latency_ns: i64,
    /// Publisher GID from the attachment.
    pub publisher: Gid,
    /// Publisher sequence number from the attachment.
    pub sequence_number: i64,
    /// The path it came through.
    pub path: DataPath,
    /// Payload size in bytes.
    pub bytes: usize,
}

/// What one observation produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// The window this observation closed, if any.
    pub closed_window: Option<WindowReport>,
    /// The first implausible stamp of the run (reported once), with its latency in ns.
    pub first_implausible: Option<(StampVerdict, i64)>,
}

/// Accumulates observations into windows and a whole-run summary.
#[derive(Debug, Clone)]
pub struct Probe {
    window: Window,
    run: Window,
    loss: LossTracker,
    started: Instant,
    received: u64,
    implausible_reported: bool,
    /// Samples that came over the network before the first one through shared memory, and
    /// whether one has come through it yet.
    network_before_shm: u64,
    shm_seen: bool,
}

impl Probe {
    /// A probe with windows of `window` length, starting at `now`.
    pub fn new(window: Duration, now: Instant) -> Self {
        Self {
            window: Window::new(window, now),
            // The whole run is one window that is never closed by a sample.
            run: Window::new(Duration::MAX, now),
            loss: LossTracker::default(),
            started: now,
            received: 0,
            implausible_reported: false,
            network_before_shm: 0,
            shm_seen: false,
        }
    }

    /// Adds one observation.
    pub fn observe(&mut self, obs: Observation) -> Outcome {
        self.received += 1;
        if obs.path == DataPath::Network && !self.shm_seen {
            self.network_before_shm += 1;
        }
        self.shm_seen |= obs.path != DataPath::Network;
        let lost = self.loss.record(obs.publisher, obs.sequence_number);
        self.run.add(obs.at, obs.latency_ns, lost, obs.path, obs.bytes);
        let verdict = StampVerdict::of(obs.latency_ns);
        let first_implausible = (verdict != StampVerdict::Valid && !self.implausible_reported).then(|| {
            self.implausible_reported = true;
            (verdict, obs.latency_ns)
        });
        Outcome {
            closed_window: self.window.add(obs.at, obs.latency_ns, lost, obs.path, obs.bytes),
            first_implausible,
        }
    }

    /// Samples received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Samples that came over the network before the first one through shared memory: with
    /// every later one through it, the publisher's shared memory was not ready for its first
    /// messages (zenoh, and so rmw_zenoh, creates its pool lazily, on first use).
    pub fn network_before_shm(&self) -> u64 {
        if self.shm_seen { self.network_before_shm } else { 0 }
    }

    /// Messages the publishers sent before the first one received from each
    /// ([`LossTracker::before_first`]).
    pub fn before_first(&self) -> u64 {
        self.loss.before_first()
    }

    /// The whole run so far.
    pub fn total(&self, now: Instant) -> WindowReport {
        let mut run = self.run.clone();
        let mut report = run.close(now);
        report.seconds = now.duration_since(self.started).as_secs_f64();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(at: Instant, ms: i64, seq: i64) -> Observation {
        Observation {
            at,
            latency_ns: ms * 1_000_000,
            publisher: Gid([1; 16]),
            sequence_number: seq,
            path: DataPath::Shm,
            bytes: 10,
        }
    }

    #[test]
    fn windows_totals_losses_and_one_report_of_implausible_stamps() {
        let t0 = Instant::now();
        let mut probe = Probe::new(Duration::from_secs(1), t0);
        assert_eq!(probe.observe(obs(t0, 5, 1)), Outcome::default());
        let outcome = probe.observe(obs(t0 + Duration::from_millis(100), -3, 2));
        assert_eq!(
            outcome.first_implausible,
            Some((StampVerdict::InTheFuture, -3_000_000))
        );
        assert_eq!(
            probe
                .observe(obs(t0 + Duration::from_millis(200), -4, 3))
                .first_implausible,
            None,
            "once"
        );
        let closed = probe
            .observe(obs(t0 + Duration::from_millis(1100), 7, 6))
            .closed_window
            .unwrap();
        assert_eq!((closed.received, closed.lost, closed.invalid_stamps), (4, 2, 2));
        probe.observe(obs(t0 + Duration::from_millis(1200), 9, 7));
        let total = probe.total(t0 + Duration::from_secs(2));
        assert_eq!((total.received, total.lost, total.invalid_stamps), (5, 2, 2));
        assert_eq!(total.latency_ms.unwrap().mean, 7.0);
        assert_eq!(total.seconds, 2.0);
    }
}
