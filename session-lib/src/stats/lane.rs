//! Counters of the same-host lane: what went through it, what zenoh did not
//! have to send, and every time a publisher–subscriber pair or a message used zenoh instead.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Why a publisher–subscriber pair, or one message, went through zenoh instead of the lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LaneFallback {
    /// The publisher has no lane here: another host, another user, a non-zshm node (rmw_zenoh),
    /// or a zshm node with the lane off. Normal for foreign peers.
    PeerNotOnLane,
    /// The subscription keeps more messages (KEEP_LAST depth) than a lane queue holds.
    DepthAboveLimit,
    /// A late joiner would need more transient-local history than a lane publisher keeps.
    HistoryAboveLimit,
    /// The publisher blocks when a subscriber is full (RELIABLE + KEEP_ALL) and this subscriber
    /// is not KEEP_ALL + RELIABLE: through the lane it would slow the publisher down.
    QosMismatch,
    /// The publisher's lane already serves as many subscribers (or processes) as it can.
    LaneFull,
    /// iceoryx2 refused to open the publisher's lane or to create a port (logged with its error).
    OpenFailed,
    /// The lane could not take one message (loan or send failed); it went through zenoh.
    SendFailed,
    /// /dev/shm had no room for the pages of a lane buffer not used before; the message went
    /// through zenoh instead of killing the process with SIGBUS.
    DevShmFull,
}

impl LaneFallback {
    /// Every variant, in label order.
    pub const ALL: [LaneFallback; 8] = [
        LaneFallback::PeerNotOnLane,
        LaneFallback::DepthAboveLimit,
        LaneFallback::HistoryAboveLimit,
        LaneFallback::QosMismatch,
        LaneFallback::LaneFull,
        LaneFallback::OpenFailed,
        LaneFallback::SendFailed,
        LaneFallback::DevShmFull,
    ];

    /// The Prometheus `reason` label.
    pub fn label(self) -> &'static str {
        match self {
            LaneFallback::PeerNotOnLane => "peer_not_on_lane",
            LaneFallback::DepthAboveLimit => "depth_above_limit",
            LaneFallback::HistoryAboveLimit => "history_above_limit",
            LaneFallback::QosMismatch => "qos_mismatch",
            LaneFallback::LaneFull => "lane_full",
            LaneFallback::OpenFailed => "open_failed",
            LaneFallback::SendFailed => "send_failed",
            LaneFallback::DevShmFull => "dev_shm_full",
        }
    }

    /// What it means for the user, in a few words.
    pub fn explain(self) -> &'static str {
        match self {
            LaneFallback::PeerNotOnLane => {
                "the publisher is on another host, runs as another user, is not a zshm node, or has the lane off"
            }
            LaneFallback::DepthAboveLimit => "KEEP_LAST depth above the lane's 16",
            LaneFallback::HistoryAboveLimit => "transient-local history above the lane's 16",
            LaneFallback::QosMismatch => {
                "the publisher is RELIABLE + KEEP_ALL (it waits for slow subscribers) and this subscriber is not"
            }
            LaneFallback::LaneFull => "the publisher's lane serves 32 subscribers already",
            LaneFallback::OpenFailed => "iceoryx2 refused the lane (see the logged error)",
            LaneFallback::SendFailed => "the lane could not take a message (see the logged error)",
            LaneFallback::DevShmFull => "/dev/shm had no room for a new lane buffer",
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            LaneFallback::PeerNotOnLane => 0,
            LaneFallback::DepthAboveLimit => 1,
            LaneFallback::HistoryAboveLimit => 2,
            LaneFallback::QosMismatch => 3,
            LaneFallback::LaneFull => 4,
            LaneFallback::OpenFailed => 5,
            LaneFallback::SendFailed => 6,
            LaneFallback::DevShmFull => 7,
        }
    }
}

/// Live lane counters of one session.
#[derive(Debug, Default)]
pub struct LaneStats {
    published_messages: AtomicU64,
    published_bytes: AtomicU64,
    received_messages: AtomicU64,
    received_bytes: AtomicU64,
    zenoh_skipped: AtomicU64,
    duplicates_dropped: AtomicU64,
    switch_gaps: AtomicU64,
    queue_drops: AtomicU64,
    blocked_discards: AtomicU64,
    borrow_stalls: AtomicU64,
    doorbell_rings: AtomicU64,
    direct_wakeups: AtomicU64,
    fallbacks: [AtomicU64; LaneFallback::ALL.len()],
    reported: [AtomicBool; LaneFallback::ALL.len()],
}

/// A copy of [`LaneStats`] at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LaneStatsSnapshot {
    /// Messages sent through the lane (once per message, whatever the number of subscribers).
    pub published_messages: u64,
    /// Payload bytes of those messages.
    pub published_bytes: u64,
    /// Messages received through the lane.
    pub received_messages: u64,
    /// Payload bytes of those messages.
    pub received_bytes: u64,
    /// Messages not sent through zenoh because every subscriber zenoh knows was served by the lane.
    pub zenoh_skipped: u64,
    /// Copies of a message that arrived through both paths and were delivered once.
    pub duplicates_dropped: u64,
    /// Times a subscriber switching from zenoh to the lane stopped waiting for messages zenoh
    /// still owed it (they are then missing, as with any loss).
    pub switch_gaps: u64,
    /// Messages a lane subscriber never read because its queue was full when they came (it did
    /// not keep up): a KEEP_LAST queue overwrote them, or a KEEP_ALL publisher gave up.
    #[serde(default)]
    pub queue_drops: u64,
    /// Messages a RELIABLE + KEEP_ALL publisher gave up delivering to a subscriber that stayed
    /// full for too long (a stuck or dead process).
    pub blocked_discards: u64,
    /// Times a subscriber could not take more messages because the application holds too many.
    pub borrow_stalls: u64,
    /// Doorbell rings by sends: one per send and subscriber with a doorbell (subscriptions of one
    /// executor that share an event id count once).
    #[serde(default)]
    pub doorbell_rings: u64,
    /// Sends that woke a subscriber through the publisher's own event, because it has no
    /// doorbell the publisher could ring.
    #[serde(default)]
    pub direct_wakeups: u64,
    /// Pairs or messages that used zenoh, by [`LaneFallback`] (in `LaneFallback::ALL` order).
    pub fallbacks: [u64; LaneFallback::ALL.len()],
}

impl LaneStatsSnapshot {
    /// Fallbacks for one reason.
    pub fn fallbacks(&self, reason: LaneFallback) -> u64 {
        self.fallbacks[reason.index()]
    }
}

fn add(counter: &AtomicU64, value: u64) {
    counter.fetch_add(value, Ordering::Relaxed);
}

impl LaneStats {
    pub(crate) fn published(&self, bytes: usize) {
        add(&self.published_messages, 1);
        add(&self.published_bytes, bytes as u64);
    }

    pub(crate) fn received(&self, bytes: usize) {
        add(&self.received_messages, 1);
        add(&self.received_bytes, bytes as u64);
    }

    pub(crate) fn zenoh_skipped(&self) {
        add(&self.zenoh_skipped, 1);
    }

    pub(crate) fn duplicate_dropped(&self) {
        add(&self.duplicates_dropped, 1);
    }

    pub(crate) fn switch_gap(&self) {
        add(&self.switch_gaps, 1);
    }

    pub(crate) fn queue_drops(&self, messages: u64) {
        add(&self.queue_drops, messages);
    }

    pub(crate) fn blocked_discard(&self) {
        add(&self.blocked_discards, 1);
    }

    pub(crate) fn woke(&self, doorbells: usize, direct: bool) {
        add(&self.doorbell_rings, doorbells as u64);
        add(&self.direct_wakeups, u64::from(direct));
    }

    pub(crate) fn borrow_stall(&self) {
        add(&self.borrow_stalls, 1);
    }

    /// Counts a fallback; true the first time for this reason (the caller logs it then).
    pub(crate) fn fallback(&self, reason: LaneFallback) -> bool {
        add(&self.fallbacks[reason.index()], 1);
        !self.reported[reason.index()].swap(true, Ordering::Relaxed)
    }

    /// Copies the counters out.
    pub fn snapshot(&self) -> LaneStatsSnapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        LaneStatsSnapshot {
            published_messages: get(&self.published_messages),
            published_bytes: get(&self.published_bytes),
            received_messages: get(&self.received_messages),
            received_bytes: get(&self.received_bytes),
            zenoh_skipped: get(&self.zenoh_skipped),
            duplicates_dropped: get(&self.duplicates_dropped),
            switch_gaps: get(&self.switch_gaps),
            queue_drops: get(&self.queue_drops),
            blocked_discards: get(&self.blocked_discards),
            borrow_stalls: get(&self.borrow_stalls),
            doorbell_rings: get(&self.doorbell_rings),
            direct_wakeups: get(&self.direct_wakeups),
            fallbacks: std::array::from_fn(|i| get(&self.fallbacks[i])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_unique_and_indices_follow_all() {
        let labels: std::collections::BTreeSet<_> = LaneFallback::ALL.iter().map(|r| r.label()).collect();
        assert_eq!(labels.len(), LaneFallback::ALL.len());
        for (i, reason) in LaneFallback::ALL.iter().enumerate() {
            assert_eq!(reason.index(), i);
        }
    }

    #[test]
    fn counters_land_in_their_own_fields() {
        let stats = LaneStats::default();
        stats.published(100);
        stats.received(40);
        stats.received(2);
        stats.zenoh_skipped();
        stats.queue_drops(3);
        stats.fallback(LaneFallback::QosMismatch);
        let s = stats.snapshot();
        assert_eq!(s.queue_drops, 3);
        assert_eq!((s.published_messages, s.published_bytes), (1, 100));
        assert_eq!((s.received_messages, s.received_bytes), (2, 42));
        assert_eq!(s.zenoh_skipped, 1);
        assert_eq!(s.fallbacks(LaneFallback::QosMismatch), 1);
        assert_eq!(s.fallbacks(LaneFallback::PeerNotOnLane), 0);
    }
}
