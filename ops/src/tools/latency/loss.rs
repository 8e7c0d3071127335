//! [`LossTracker`]: lost messages from gaps in each publisher's sequence numbers, as rmw_zenoh
//! computes `MESSAGE_LOST` (`|seq - last_seq| - 1` per publisher GID).
//!
//! GIDs and sequence numbers come from the network, so nothing here trusts them: at most
//! [`MAX_PUBLISHERS`] publishers are tracked (the one heard from least recently is forgotten
//! first), and any pair of sequence numbers gives a gap without overflow.

use std::collections::HashMap;

use zshm::ros::gid::Gid;

/// Publishers tracked at once. A robot has a handful per topic; a peer making up a new GID for
/// every sample must not make the tracker grow without bound.
pub const MAX_PUBLISHERS: usize = 1024;

/// Counts messages missing between consecutive sequence numbers of each publisher.
#[derive(Debug, Default, Clone)]
pub struct LossTracker {
    /// Last sequence number of each publisher, and when it was heard from (a counter).
    last: HashMap<Gid, (i64, u64)>,
    heard: u64,
    lost: u64,
    before_first: u64,
    reordered: u64,
    forgotten: u64,
}

impl LossTracker {
    /// Records one received sequence number; returns how many were lost right before it.
    ///
    /// ```
    /// let mut t = zshm_ops::tools::latency::LossTracker::default();
    /// let gid = zshm::ros::gid::Gid::default();
    /// assert_eq!([1, 2, 5, 6].map(|s| t.record(gid, s)), [0, 0, 2, 0]);
    /// assert_eq!(t.lost(), 2);
    /// ```
    pub fn record(&mut self, publisher: Gid, sequence_number: i64) -> u64 {
        self.heard += 1;
        let heard = self.heard;
        let Some((last, seen)) = self.last.get_mut(&publisher) else {
            // The first message of a publisher: whatever came before we did not subscribe to,
            // or it went by before our link to the publisher was up. Sequence numbers start at 1.
            let missed = u64::try_from(sequence_number.saturating_sub(1)).unwrap_or(0);
            self.before_first = self.before_first.saturating_add(missed);
            self.make_room();
            self.last.insert(publisher, (sequence_number, heard));
            return 0;
        };
        *seen = heard;
        if sequence_number <= *last {
            self.reordered += 1;
            return 0;
        }
        // In i128 so that no pair of i64 overflows; a gap beyond u64 cannot happen (< 2^64).
        let gap = (i128::from(sequence_number) - i128::from(*last) - 1) as u64;
        *last = sequence_number;
        self.lost = self.lost.saturating_add(gap);
        gap
    }

    /// Forgets the publisher heard from least recently when the table is full.
    fn make_room(&mut self) {
        if self.last.len() < MAX_PUBLISHERS {
            return;
        }
        let oldest = self
            .last
            .iter()
            .min_by_key(|(_, (_, seen))| *seen)
            .map(|(gid, _)| *gid);
        if let Some(gid) = oldest {
            self.last.remove(&gid);
            self.forgotten += 1;
        }
    }

    /// Messages lost so far, over all publishers.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Messages the publishers had sent before the first one received from each (sequence
    /// numbers start at 1): not losses, but what a subscriber that counts "everything published"
    /// must add to what it received. A forgotten publisher that comes back counts again.
    ///
    /// ```
    /// let mut t = zshm_ops::tools::latency::LossTracker::default();
    /// let gid = zshm::ros::gid::Gid::default();
    /// t.record(gid, 4);
    /// t.record(gid, 5);
    /// assert_eq!((t.before_first(), t.lost()), (3, 0));
    /// ```
    pub fn before_first(&self) -> u64 {
        self.before_first
    }

    /// Messages that arrived with a sequence number at or below one already seen.
    pub fn reordered(&self) -> u64 {
        self.reordered
    }

    /// Publishers tracked now (at most [`MAX_PUBLISHERS`]).
    pub fn tracked(&self) -> usize {
        self.last.len()
    }

    /// Publishers forgotten to make room; a forgotten one that comes back starts afresh.
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publishers_are_tracked_separately() {
        let (a, b) = (Gid([1; 16]), Gid([2; 16]));
        let mut t = LossTracker::default();
        assert_eq!(t.record(a, 10), 0, "joining late is not a loss");
        assert_eq!(t.record(b, 1), 0);
        assert_eq!(t.record(a, 13), 2);
        assert_eq!(t.record(b, 2), 0);
        assert_eq!(t.record(a, 12), 0);
        assert_eq!((t.lost(), t.reordered()), (2, 1));
    }

    /// Regression test for issue 11: `seq - last - 1` overflowed on hostile sequence numbers.
    #[test]
    fn hostile_sequence_numbers_give_exact_gaps_without_overflow() {
        let gid = Gid([3; 16]);
        let mut t = LossTracker::default();
        t.record(gid, i64::MIN);
        assert_eq!(
            t.record(gid, i64::MAX),
            u64::MAX - 1,
            "2^64 - 2 missing in between"
        );
        assert_eq!(t.record(Gid([4; 16]), -10), 0);
        assert_eq!(t.record(Gid([4; 16]), i64::MAX), i64::MAX as u64 + 9);
        assert_eq!(t.lost(), u64::MAX, "the total saturates instead of wrapping");
    }

    /// Regression test for issue 11: an entry per GID claimed in attachments, never evicted.
    #[test]
    fn made_up_gids_do_not_grow_the_table() {
        let mut t = LossTracker::default();
        let steady = Gid([0xAA; 16]);
        for n in 0..(4 * MAX_PUBLISHERS as u32) {
            let mut fake = [0u8; 16];
            fake[..4].copy_from_slice(&n.to_le_bytes());
            t.record(Gid(fake), 1);
            t.record(steady, i64::from(n) + 1);
        }
        assert_eq!(t.tracked(), MAX_PUBLISHERS);
        assert_eq!(t.forgotten(), 3 * MAX_PUBLISHERS as u64 + 1);
        assert_eq!(
            t.lost(),
            0,
            "the publisher heard from all along was never forgotten"
        );
    }
}
