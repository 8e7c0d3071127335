//! [`Paths`]: where a subscription's two receive paths meet. zenoh's callback and the lane
//! receiver (on the executor thread that woke up for it) both hand their samples here; each
//! one's attachment is checked, the two are merged by publisher and sequence number ([`Merge`])
//! when the subscription uses the lane, and handed on in order through one function: the typed
//! subscription's bounded queue ([`crate::ros::delivery`]), which never blocks, so holding the
//! merge while handing on costs neither path a wait for the callback (or, for an inline
//! subscription, the callback itself, which the user promised never blocks).
//!
//! A subscription without the lane hands on straight from zenoh's callback.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::merge::{Merge, Outcome, Via};
use crate::raw::RawSample;
use crate::ros::gid::Gid;
use crate::stats::SessionStats;

/// Checks a sample (or drops it, counted) and tells its publisher and sequence number.
type Admit<S> = Box<dyn Fn(RawSample) -> Option<(S, Gid, i64)> + Send + Sync>;

/// What a subscription does with a received sample: `admit` checks it, `deliver` hands it on.
pub(crate) struct Paths<S> {
    admit: Admit<S>,
    deliver: Box<dyn Fn(S) + Send + Sync>,
    merge: Option<Mutex<Merge<S>>>,
    /// The merge's deadline, kept beside it so that the executor, which asks a waiting
    /// subscription for its deadline each time it looks, does not take the merge's lock: nanoseconds
    /// after `epoch`, plus one; 0 when nothing waits. Written under the merge's lock after each
    /// change.
    deadline: AtomicU64,
    /// Told when the deadline comes earlier (a wait began): the executor asks only the entities
    /// that said so for their deadline (see `Notifier::deadline_moved`).
    deadline_moved: Box<dyn Fn() + Send + Sync>,
    epoch: Instant,
    stats: Arc<SessionStats>,
    /// Whether a switch gap was logged already (once per subscription; each is counted).
    gap_said: AtomicBool,
}

impl<S: Send> Paths<S> {
    /// A meeting point; `lane` says whether the lane may deliver too (then both paths merge),
    /// and `deadline_moved` is called when a wait of the merge begins earlier than any before.
    pub(crate) fn new(
        admit: impl Fn(RawSample) -> Option<(S, Gid, i64)> + Send + Sync + 'static,
        deliver: impl Fn(S) + Send + Sync + 'static,
        lane: bool,
        stats: Arc<SessionStats>,
        deadline_moved: impl Fn() + Send + Sync + 'static,
    ) -> Self {
        Self {
            admit: Box::new(admit),
            deliver: Box::new(deliver),
            merge: lane.then(|| Mutex::new(Merge::default())),
            deadline: AtomicU64::new(0),
            deadline_moved: Box::new(deadline_moved),
            epoch: Instant::now(),
            stats,
            gap_said: AtomicBool::new(false),
        }
    }

    /// A sample from zenoh.
    pub(crate) fn zenoh(&self, sample: RawSample) {
        let Some((sample, gid, sequence)) = (self.admit)(sample) else {
            return;
        };
        match &self.merge {
            None => (self.deliver)(sample),
            Some(merge) => {
                let mut merge = merge.lock().expect("no panics while merging");
                let outcome = merge.offer(gid, sequence, Via::Zenoh, sample, Instant::now());
                self.note_deadline(&merge);
                self.hand_on(outcome);
            }
        }
    }

    /// A sample from the lane.
    pub(crate) fn lane(&self, sample: RawSample) {
        let zenoh_until = sample.lane_zenoh_until().unwrap_or(0);
        let Some(merge) = self.merge.as_ref() else {
            return;
        };
        let Some((sample, gid, sequence)) = (self.admit)(sample) else {
            return;
        };
        let mut merge = merge.lock().expect("no panics while merging");
        let outcome = merge.offer(gid, sequence, Via::Lane { zenoh_until }, sample, Instant::now());
        self.note_deadline(&merge);
        self.hand_on(outcome);
    }

    /// Ends the waits that are over.
    pub(crate) fn tick(&self, now: Instant) {
        if let Some(merge) = &self.merge {
            let mut merge = merge.lock().expect("no panics while merging");
            let outcome = merge.tick(now);
            self.note_deadline(&merge);
            self.hand_on(outcome);
        }
    }

    /// When the earliest wait of the merge ends, if a message waits.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        match self.deadline.load(Ordering::SeqCst) {
            0 => None,
            ns => Some(self.epoch + Duration::from_nanos(ns - 1)),
        }
    }

    /// Keeps [`deadline`](Self::deadline) in step with `merge`, whose lock the caller holds.
    fn note_deadline(&self, merge: &Merge<S>) {
        let ns = merge.deadline().map_or(0, |at| {
            let after = at.saturating_duration_since(self.epoch).as_nanos();
            u64::try_from(after).unwrap_or(u64::MAX - 1) + 1
        });
        let before = self.deadline.swap(ns, Ordering::SeqCst);
        if ns != 0 && (before == 0 || ns < before) {
            (self.deadline_moved)();
        }
    }

    /// The publisher `gid` is now received through the lane too.
    pub(crate) fn attached(&self, gid: Gid) {
        if let Some(merge) = &self.merge {
            let mut merge = merge.lock().expect("no panics while merging");
            merge.attached(gid);
            self.note_deadline(&merge);
        }
    }

    /// The publisher `gid` left.
    pub(crate) fn gone(&self, gid: Gid) {
        if let Some(merge) = &self.merge {
            let mut merge = merge.lock().expect("no panics while merging");
            merge.gone(gid, Instant::now());
            self.note_deadline(&merge);
        }
    }

    /// Delivers in order while the merge is held, so the two paths never interleave.
    fn hand_on(&self, outcome: Outcome<S>) {
        let lane = self.stats.lane();
        for _ in 0..outcome.duplicates {
            lane.duplicate_dropped();
        }
        for _ in 0..outcome.gaps {
            lane.switch_gap();
        }
        if outcome.gaps > 0 && !self.gap_said.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "a message the publisher sent through zenoh before switching to the same-host \
                 lane did not come within {:?} of the lane's next one: it is counted lost \
                 (zshm_lane_switch_gaps_total), and said once per subscription",
                super::merge::SWITCH_WAIT
            );
        }
        for sample in outcome.deliver {
            (self.deliver)(sample);
        }
    }
}
