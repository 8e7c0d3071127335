//! Counters of what went through shared memory, what went over the network, and every fallback.
//!
//! One [`SessionStats`] lives in each session; publishers and subscribers update it with relaxed
//! atomics (a few nanoseconds on the hot path). [`SessionStats::snapshot`] copies it out for
//! printing, JSON or the Prometheus exporter. Every sample a subscription could not deliver is
//! counted here, by reason ([`DropReason`]) or by the QoS of the queue that overflowed
//! ([`QueueOverflow`]), whichever path (zenoh or the lane) it came through. [`histogram`] holds
//! the probes' latency histograms, [`lane`] the counters of the same-host lane.

pub mod histogram;
pub mod lane;

use std::sync::atomic::{AtomicU64, Ordering};

pub use lane::{LaneFallback, LaneStats, LaneStatsSnapshot};

/// Why one loan or publish could not use the SHM pool and used the heap instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoanFallback {
    /// Every buffer of the pool is still held by readers, even after reclaiming and retrying.
    PoolExhausted,
    /// The message is bigger than the whole pool.
    LargerThanPool,
    /// zenoh refused the allocation for another reason.
    AllocFailed,
}

impl LoanFallback {
    /// Every variant, in label order.
    pub const ALL: [LoanFallback; 3] = [
        LoanFallback::PoolExhausted,
        LoanFallback::LargerThanPool,
        LoanFallback::AllocFailed,
    ];

    /// The Prometheus `reason` label.
    pub fn label(self) -> &'static str {
        match self {
            LoanFallback::PoolExhausted => "pool_exhausted",
            LoanFallback::LargerThanPool => "larger_than_pool",
            LoanFallback::AllocFailed => "alloc_failed",
        }
    }

    /// What to do about it.
    pub fn remedy(self) -> &'static str {
        match self {
            LoanFallback::PoolExhausted => {
                "readers hold every buffer: raise ZENOH_SHM_ALLOC_SIZE (N x message size + 64 KiB) or drop samples sooner"
            }
            LoanFallback::LargerThanPool => "raise ZENOH_SHM_ALLOC_SIZE above the message size",
            LoanFallback::AllocFailed => "run `zshm doctor`",
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            LoanFallback::PoolExhausted => 0,
            LoanFallback::LargerThanPool => 1,
            LoanFallback::AllocFailed => 2,
        }
    }
}

/// Why a received sample was rejected instead of delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// A ROS sample without the rmw_zenoh attachment (rmw_zenoh drops those too).
    MissingAttachment,
    /// An attachment that is not rmw_zenoh's format.
    BadAttachment,
    /// A payload that is not valid CDR for the topic's type.
    MalformedCdr,
}

impl DropReason {
    /// Every variant, in label order.
    pub const ALL: [DropReason; 3] = [
        DropReason::MissingAttachment,
        DropReason::BadAttachment,
        DropReason::MalformedCdr,
    ];

    /// The Prometheus `reason` label.
    pub fn label(self) -> &'static str {
        match self {
            DropReason::MissingAttachment => "missing_attachment",
            DropReason::BadAttachment => "bad_attachment",
            DropReason::MalformedCdr => "malformed_cdr",
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            DropReason::MissingAttachment => 0,
            DropReason::BadAttachment => 1,
            DropReason::MalformedCdr => 2,
        }
    }
}

/// Why a link to a process on this host carries no shared memory (see `session::links`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LinkShmCause {
    /// The other process belongs to another user and cannot map this user's segments.
    OtherUser,
    /// The other process has shared memory off.
    PeerWithoutShm,
    /// The other process runs a zenoh whose shared-memory handshake differs from this one's
    /// (zenoh 1.10 against an earlier release, see `shm::compat`).
    ZenohVersion,
    /// A handshake segment (the small /dev/shm file through which two processes agree on
    /// shared memory when a link opens) could not be opened: this process's own was removed
    /// while it runs, or the other process's could not be opened.
    HandshakeSegment,
}

impl LinkShmCause {
    /// Every variant, in label order.
    pub const ALL: [LinkShmCause; 4] = [
        LinkShmCause::OtherUser,
        LinkShmCause::PeerWithoutShm,
        LinkShmCause::ZenohVersion,
        LinkShmCause::HandshakeSegment,
    ];

    /// The Prometheus `reason` label.
    pub fn label(self) -> &'static str {
        match self {
            LinkShmCause::OtherUser => "other_user",
            LinkShmCause::PeerWithoutShm => "peer_without_shm",
            LinkShmCause::ZenohVersion => "zenoh_version",
            LinkShmCause::HandshakeSegment => "handshake_segment",
        }
    }

    /// What to do about it.
    pub fn remedy(self) -> &'static str {
        match self {
            LinkShmCause::OtherUser => {
                "run the processes that exchange large messages as one user (zenoh's segments are private to their owner)"
            }
            LinkShmCause::PeerWithoutShm => {
                "enable transport/shared_memory in that process's config (`zshm doctor` shows which side has it off)"
            }
            LinkShmCause::ZenohVersion => {
                "run processes of one zenoh line on both sides (`zshm doctor` names each process's zenoh)"
            }
            LinkShmCause::HandshakeSegment => {
                "restart the process whose handshake segment left /dev/shm, and find what removes zenoh's files there \
                 (a cleanup script, a container's /dev/shm, `rm /dev/shm/*`)"
            }
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            LinkShmCause::OtherUser => 0,
            LinkShmCause::PeerWithoutShm => 1,
            LinkShmCause::ZenohVersion => 2,
            LinkShmCause::HandshakeSegment => 3,
        }
    }
}

/// Which subscription queue dropped a sample because its reader did not keep up, named by the
/// QoS the subscription was declared with (or `Raw` for a [`RawSubscription`] queue).
///
/// Subscriptions never block zenoh's receive thread: a full queue drops its oldest sample, which
/// is what ROS specifies for KEEP_LAST and the documented bound for KEEP_ALL (see
/// [`Subscription`](crate::ros::Subscription)).
///
/// [`RawSubscription`]: crate::raw::RawSubscription
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QueueOverflow {
    /// A RELIABLE, KEEP_LAST subscription held `depth` samples already.
    KeepLastReliable,
    /// A BEST_EFFORT, KEEP_LAST subscription held `depth` samples already.
    KeepLastBestEffort,
    /// A RELIABLE, KEEP_ALL subscription reached zshm's bound.
    KeepAllReliable,
    /// A BEST_EFFORT, KEEP_ALL subscription reached zshm's bound.
    KeepAllBestEffort,
    /// The queue of a raw subscription was full.
    Raw,
}

impl QueueOverflow {
    /// Every variant, in label order.
    pub const ALL: [QueueOverflow; 5] = [
        QueueOverflow::KeepLastReliable,
        QueueOverflow::KeepLastBestEffort,
        QueueOverflow::KeepAllReliable,
        QueueOverflow::KeepAllBestEffort,
        QueueOverflow::Raw,
    ];

    /// The Prometheus `qos` label.
    pub fn label(self) -> &'static str {
        match self {
            QueueOverflow::KeepLastReliable => "keep_last_reliable",
            QueueOverflow::KeepLastBestEffort => "keep_last_best_effort",
            QueueOverflow::KeepAllReliable => "keep_all_reliable",
            QueueOverflow::KeepAllBestEffort => "keep_all_best_effort",
            QueueOverflow::Raw => "raw",
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            QueueOverflow::KeepLastReliable => 0,
            QueueOverflow::KeepLastBestEffort => 1,
            QueueOverflow::KeepAllReliable => 2,
            QueueOverflow::KeepAllBestEffort => 3,
            QueueOverflow::Raw => 4,
        }
    }
}

/// Live counters of one session.
#[derive(Debug, Default)]
pub struct SessionStats {
    published_shm_messages: AtomicU64,
    published_shm_bytes: AtomicU64,
    published_heap_messages: AtomicU64,
    published_heap_bytes: AtomicU64,
    received_shm_messages: AtomicU64,
    received_shm_bytes: AtomicU64,
    received_net_messages: AtomicU64,
    received_net_bytes: AtomicU64,
    dropped: [AtomicU64; 3],
    fallbacks: [AtomicU64; 3],
    links_without_shm: [AtomicU64; LinkShmCause::ALL.len()],
    overflows: [AtomicU64; 5],
    reclaimed: AtomicU64,
    lane: LaneStats,
}

/// A copy of [`SessionStats`] at one instant. Fields missing from a report (an older zshm) read
/// as 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct StatsSnapshot {
    /// Messages published from the SHM pool.
    pub published_shm_messages: u64,
    /// Payload bytes published from the SHM pool.
    pub published_shm_bytes: u64,
    /// Messages published from the heap (small, SHM off, or a fallback).
    pub published_heap_messages: u64,
    /// Payload bytes published from the heap.
    pub published_heap_bytes: u64,
    /// Samples received whose payload is in shared memory.
    pub received_shm_messages: u64,
    /// Payload bytes of those samples.
    pub received_shm_bytes: u64,
    /// Samples received over the network.
    pub received_net_messages: u64,
    /// Payload bytes of those samples.
    pub received_net_bytes: u64,
    /// ROS samples rejected because they had no attachment.
    pub dropped_missing_attachment: u64,
    /// ROS samples rejected because their attachment was malformed.
    pub dropped_bad_attachment: u64,
    /// ROS samples rejected because their payload was not valid CDR.
    pub dropped_malformed_cdr: u64,
    /// Loans that fell back to the heap because the pool was exhausted.
    pub fallback_pool_exhausted: u64,
    /// Loans that fell back to the heap because the message is larger than the pool.
    pub fallback_larger_than_pool: u64,
    /// Loans that fell back to the heap for another allocation error.
    pub fallback_alloc_failed: u64,
    /// Links to processes of this host that carry no SHM because those run as another user.
    pub links_without_shm_other_user: u64,
    /// Links to processes of this host that carry no SHM because those have it off.
    pub links_without_shm_peer_off: u64,
    /// Links to processes of this host that carry no SHM because those run a zenoh whose
    /// shared-memory handshake differs.
    pub links_without_shm_zenoh_version: u64,
    /// Links to processes of this host that carry no SHM because a handshake segment could not
    /// be opened.
    #[serde(default)]
    pub links_without_shm_handshake: u64,
    /// Samples dropped by RELIABLE, KEEP_LAST subscriptions whose callback did not keep up.
    pub overflow_keep_last_reliable: u64,
    /// Samples dropped by BEST_EFFORT, KEEP_LAST subscriptions whose callback did not keep up.
    pub overflow_keep_last_best_effort: u64,
    /// Samples dropped by RELIABLE, KEEP_ALL subscriptions at zshm's bound.
    pub overflow_keep_all_reliable: u64,
    /// Samples dropped by BEST_EFFORT, KEEP_ALL subscriptions at zshm's bound.
    pub overflow_keep_all_best_effort: u64,
    /// Samples dropped by raw subscriptions whose reader did not keep up.
    pub overflow_raw: u64,
    /// Loans served from pool buffers reclaimed from readers that stopped confirming them
    /// (crashed or stopped processes), when the pool was full otherwise.
    pub reclaimed_from_dead_readers: u64,
    /// Received messages zenoh dropped because their shared-memory buffer could not be read,
    /// by cause ([`ShmUnreadable::ALL`]'s order). Counted for the whole process, before any
    /// subscription sees them.
    #[serde(default)]
    pub shm_unreadable: [u64; 3],
    /// The same-host lane's counters.
    #[serde(default)]
    pub lane: LaneStatsSnapshot,
}

/// Why zenoh could not read a received message's shared-memory buffer (its message was dropped).
/// Counted by zshm's copy of zenoh-shm (`third_party/zenoh-shm/PATCHES.md`, 4): upstream drops
/// these with a debug line only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShmUnreadable {
    /// The publisher's metadata segment could not be mapped.
    Metadata,
    /// The publisher's data segment could not be mapped.
    Segment,
    /// The buffer was invalidated before it arrived: its publisher reclaimed it.
    Invalidated,
}

impl ShmUnreadable {
    /// Every variant, in label order (that of [`StatsSnapshot::shm_unreadable`]).
    pub const ALL: [ShmUnreadable; 3] = [
        ShmUnreadable::Metadata,
        ShmUnreadable::Segment,
        ShmUnreadable::Invalidated,
    ];

    /// The Prometheus `reason` label.
    pub fn label(self) -> &'static str {
        match self {
            ShmUnreadable::Metadata => "metadata",
            ShmUnreadable::Segment => "segment",
            ShmUnreadable::Invalidated => "invalidated",
        }
    }

    fn index(self) -> usize {
        match self {
            ShmUnreadable::Metadata => 0,
            ShmUnreadable::Segment => 1,
            ShmUnreadable::Invalidated => 2,
        }
    }
}

/// zenoh-shm's counts in [`ShmUnreadable::ALL`]'s order.
fn shm_unreadable_counts() -> [u64; 3] {
    use zenoh_shm::unreadable::{Cause, counts};
    let counts = counts();
    let of = |cause: Cause| {
        Cause::ALL
            .iter()
            .position(|&c| c == cause)
            .map_or(0, |i| counts[i])
    };
    [of(Cause::Metadata), of(Cause::Segment), of(Cause::Invalidated)]
}

impl StatsSnapshot {
    /// Number of received samples rejected for one reason.
    pub fn dropped(&self, reason: DropReason) -> u64 {
        match reason {
            DropReason::MissingAttachment => self.dropped_missing_attachment,
            DropReason::BadAttachment => self.dropped_bad_attachment,
            DropReason::MalformedCdr => self.dropped_malformed_cdr,
        }
    }

    /// Number of same-host links without shared memory, for one cause.
    pub fn links_without_shm(&self, cause: LinkShmCause) -> u64 {
        match cause {
            LinkShmCause::OtherUser => self.links_without_shm_other_user,
            LinkShmCause::PeerWithoutShm => self.links_without_shm_peer_off,
            LinkShmCause::ZenohVersion => self.links_without_shm_zenoh_version,
            LinkShmCause::HandshakeSegment => self.links_without_shm_handshake,
        }
    }

    /// Number of samples dropped by full subscription queues of one kind.
    pub fn overflows(&self, kind: QueueOverflow) -> u64 {
        match kind {
            QueueOverflow::KeepLastReliable => self.overflow_keep_last_reliable,
            QueueOverflow::KeepLastBestEffort => self.overflow_keep_last_best_effort,
            QueueOverflow::KeepAllReliable => self.overflow_keep_all_reliable,
            QueueOverflow::KeepAllBestEffort => self.overflow_keep_all_best_effort,
            QueueOverflow::Raw => self.overflow_raw,
        }
    }

    /// Number of received messages dropped because their shared-memory buffer could not be read,
    /// for one cause.
    pub fn shm_unreadable(&self, cause: ShmUnreadable) -> u64 {
        self.shm_unreadable[cause.index()]
    }

    /// Number of fallbacks for one reason.
    pub fn fallbacks(&self, reason: LoanFallback) -> u64 {
        match reason {
            LoanFallback::PoolExhausted => self.fallback_pool_exhausted,
            LoanFallback::LargerThanPool => self.fallback_larger_than_pool,
            LoanFallback::AllocFailed => self.fallback_alloc_failed,
        }
    }
}

fn add(counter: &AtomicU64, value: u64) {
    counter.fetch_add(value, Ordering::Relaxed);
}

impl SessionStats {
    pub(crate) fn published(&self, shm: bool, bytes: usize) {
        if shm {
            add(&self.published_shm_messages, 1);
            add(&self.published_shm_bytes, bytes as u64);
        } else {
            add(&self.published_heap_messages, 1);
            add(&self.published_heap_bytes, bytes as u64);
        }
    }

    pub(crate) fn received(&self, shm: bool, bytes: usize) {
        if shm {
            add(&self.received_shm_messages, 1);
            add(&self.received_shm_bytes, bytes as u64);
        } else {
            add(&self.received_net_messages, 1);
            add(&self.received_net_bytes, bytes as u64);
        }
    }

    pub(crate) fn dropped(&self, reason: DropReason) {
        add(&self.dropped[reason.index()], 1);
    }

    pub(crate) fn fallback(&self, reason: LoanFallback) {
        add(&self.fallbacks[reason.index()], 1);
    }

    /// The lane's counters.
    pub fn lane(&self) -> &LaneStats {
        &self.lane
    }

    /// Counts a same-host link without SHM; true for the first of its cause (log it then).
    pub(crate) fn link_without_shm(&self, cause: LinkShmCause) -> bool {
        self.links_without_shm[cause.index()].fetch_add(1, Ordering::Relaxed) == 0
    }

    pub(crate) fn reclaimed(&self) {
        add(&self.reclaimed, 1);
    }

    pub(crate) fn overflowed(&self, kind: QueueOverflow) {
        add(&self.overflows[kind.index()], 1);
    }

    /// Copies the counters out.
    pub fn snapshot(&self) -> StatsSnapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        StatsSnapshot {
            published_shm_messages: get(&self.published_shm_messages),
            published_shm_bytes: get(&self.published_shm_bytes),
            published_heap_messages: get(&self.published_heap_messages),
            published_heap_bytes: get(&self.published_heap_bytes),
            received_shm_messages: get(&self.received_shm_messages),
            received_shm_bytes: get(&self.received_shm_bytes),
            received_net_messages: get(&self.received_net_messages),
            received_net_bytes: get(&self.received_net_bytes),
            dropped_missing_attachment: get(&self.dropped[0]),
            dropped_bad_attachment: get(&self.dropped[1]),
            dropped_malformed_cdr: get(&self.dropped[2]),
            fallback_pool_exhausted: get(&self.fallbacks[0]),
            fallback_larger_than_pool: get(&self.fallbacks[1]),
            fallback_alloc_failed: get(&self.fallbacks[2]),
            links_without_shm_other_user: get(&self.links_without_shm[0]),
            links_without_shm_peer_off: get(&self.links_without_shm[1]),
            links_without_shm_zenoh_version: get(&self.links_without_shm[2]),
            links_without_shm_handshake: get(&self.links_without_shm[3]),
            overflow_keep_last_reliable: get(&self.overflows[0]),
            overflow_keep_last_best_effort: get(&self.overflows[1]),
            overflow_keep_all_reliable: get(&self.overflows[2]),
            overflow_keep_all_best_effort: get(&self.overflows[3]),
            overflow_raw: get(&self.overflows[4]),
            reclaimed_from_dead_readers: get(&self.reclaimed),
            shm_unreadable: shm_unreadable_counts(),
            lane: self.lane.snapshot(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_land_in_their_own_fields() {
        let stats = SessionStats::default();
        stats.published(true, 10);
        stats.published(false, 3);
        stats.received(true, 7);
        stats.received(false, 5);
        stats.fallback(LoanFallback::LargerThanPool);
        stats.dropped(DropReason::MalformedCdr);
        stats.overflowed(QueueOverflow::KeepAllBestEffort);
        let s = stats.snapshot();
        for kind in QueueOverflow::ALL {
            let expected = u64::from(kind == QueueOverflow::KeepAllBestEffort);
            assert_eq!(s.overflows(kind), expected, "{}", kind.label());
        }
        assert_eq!(s.dropped(DropReason::MalformedCdr), 1);
        assert_eq!(s.dropped(DropReason::MissingAttachment), 0);
        assert_eq!((s.published_shm_messages, s.published_shm_bytes), (1, 10));
        assert_eq!((s.published_heap_messages, s.published_heap_bytes), (1, 3));
        assert_eq!((s.received_shm_messages, s.received_shm_bytes), (1, 7));
        assert_eq!((s.received_net_messages, s.received_net_bytes), (1, 5));
        assert_eq!(s.fallbacks(LoanFallback::LargerThanPool), 1);
        assert_eq!(s.fallbacks(LoanFallback::PoolExhausted), 0);
    }
}
