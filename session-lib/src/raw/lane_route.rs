//! [`LaneRoute`]: a publisher's choice, message by message, between its lane and zenoh.
//!
//! Whoever knows the subscribers (the typed layer, from the liveliness tokens and zenoh's admin
//! space) records with [`LaneRoute::set`] whether zenoh still has subscribers the lane does not
//! serve, together with the number of lane subscribers it counted. Each message then reads the
//! lane's subscriber count (a load from shared memory): while it is unchanged the recorded
//! decision holds; when it changed, the message also goes through zenoh and the evaluator is
//! asked to look again. Sending through zenoh when unsure is always safe: subscribers drop the
//! copy they already have.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use crate::lane::LaneSender;

/// Bit of the state word set when zenoh has subscribers the lane does not serve.
const ZENOH_NEEDED: u64 = 1 << 63;

/// How one message travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Through the lane (it has subscribers).
    pub lane: bool,
    /// Through zenoh.
    pub zenoh: bool,
}

/// A publisher's lane and the current decision about zenoh.
#[derive(Debug)]
pub struct LaneRoute {
    sender: Arc<LaneSender>,
    /// The lane keeps history for late joiners: every message goes through it, subscribers or not.
    keeps_history: bool,
    state: AtomicU64,
    /// Bumped by [`force_zenoh`](Self::force_zenoh): an evaluation that began before it is stale.
    forced: AtomicU64,
    last_zenoh_sequence: AtomicI64,
    changed: tokio::sync::Notify,
}

impl LaneRoute {
    /// A route that sends through zenoh until told otherwise. With `keeps_history`
    /// (TRANSIENT_LOCAL), every message also goes through the lane, so that its history is
    /// there for subscribers that arrive later.
    pub fn new(sender: Arc<LaneSender>, keeps_history: bool) -> Self {
        Self {
            sender,
            keeps_history,
            state: AtomicU64::new(ZENOH_NEEDED),
            forced: AtomicU64::new(0),
            last_zenoh_sequence: AtomicI64::new(0),
            changed: tokio::sync::Notify::new(),
        }
    }

    /// The lane.
    pub fn sender(&self) -> &Arc<LaneSender> {
        &self.sender
    }

    /// Records an evaluation: whether zenoh has subscribers the lane does not serve, given
    /// `lane_subscribers` lane subscribers at the time. `begun` is [`epoch`](Self::epoch) read
    /// before the evaluation looked at anything: an evaluation that [`force_zenoh`](Self::force_zenoh)
    /// overtook is dropped (the caller looks again), so it cannot turn zenoh off for a subscriber
    /// it did not know.
    pub fn set(&self, begun: u64, zenoh_needed: bool, lane_subscribers: usize) {
        let flag = if zenoh_needed { ZENOH_NEEDED } else { 0 };
        let new = flag | (lane_subscribers as u64 & !ZENOH_NEEDED);
        let mut current = self.state.load(Ordering::Acquire);
        loop {
            if self.forced.load(Ordering::Acquire) != begun {
                return;
            }
            match self
                .state
                .compare_exchange_weak(current, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
        // A force between the check and the store: put its flag back.
        if self.forced.load(Ordering::Acquire) != begun {
            self.state.fetch_or(ZENOH_NEEDED, Ordering::AcqRel);
        }
    }

    /// Sends through zenoh from the next message on, until an evaluation that began after this
    /// call says otherwise: called when a subscriber announces itself, before zenoh routes any
    /// message to it, so that one it receives through zenoh is never followed by one that
    /// skipped zenoh while the evaluator did not know it yet.
    pub fn force_zenoh(&self) {
        self.forced.fetch_add(1, Ordering::AcqRel);
        self.state.fetch_or(ZENOH_NEEDED, Ordering::AcqRel);
    }

    /// The count of [`force_zenoh`](Self::force_zenoh) calls so far, for [`set`](Self::set).
    pub fn epoch(&self) -> u64 {
        self.forced.load(Ordering::Acquire)
    }

    /// Whether the last evaluation let messages skip zenoh.
    pub fn skips_zenoh(&self) -> bool {
        self.state.load(Ordering::Acquire) & ZENOH_NEEDED == 0
    }

    /// Completes when a message saw the lane's subscribers change since the last evaluation.
    pub async fn changed(&self) {
        self.changed.notified().await
    }

    /// How the next message travels.
    pub fn plan(&self) -> Plan {
        let now = self.sender.subscriber_count();
        let state = self.state.load(Ordering::Acquire);
        let counted = (state & !ZENOH_NEEDED) as usize;
        if now != counted {
            self.changed.notify_one();
        }
        Plan {
            lane: now > 0 || self.keeps_history,
            zenoh: now == 0 || now != counted || state & ZENOH_NEEDED != 0,
        }
    }

    /// The sequence number of the last message sent through zenoh, after noting that
    /// `sequence` is (when `zenoh`).
    pub(crate) fn zenoh_until(&self, sequence: i64, zenoh: bool) -> i64 {
        if zenoh {
            self.last_zenoh_sequence.fetch_max(sequence, Ordering::AcqRel);
        }
        self.last_zenoh_sequence.load(Ordering::Acquire)
    }
}
