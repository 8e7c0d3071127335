//! [`LossTracker`]: lost messages from gaps in each publisher's sequence numbers, as rmw_zenoh
//! computes `MESSAGE_LOST` (`|seq - last_seq| - 1` per publisher GID).

use std::collections::HashMap;

use crate::ros::gid::Gid;

/// Counts messages missing between consecutive sequence numbers of each publisher.
#[derive(Debug, Default, Clone)]
pub struct LossTracker {
    last: HashMap<Gid, i64>,
    lost: u64,
    reordered: u64,
}

impl LossTracker {
    /// Records one received sequence number; returns how many were lost right before it.
    ///
    /// ```
    /// let mut t = zshm::tools::latency::LossTracker::default();
    /// let gid = zshm::ros::gid::Gid::default();
    /// assert_eq!([1, 2, 5, 6].map(|s| t.record(gid, s)), [0, 0, 2, 0]);
    /// assert_eq!(t.lost(), 2);
    /// ```
    pub fn record(&mut self, publisher: Gid, sequence_number: i64) -> u64 {
        let Some(last) = self.last.get_mut(&publisher) else {
            // The first message of a publisher: whatever came before we did not subscribe to.
            self.last.insert(publisher, sequence_number);
            return 0;
        };
        if sequence_number <= *last {
            self.reordered += 1;
            return 0;
        }
        let gap = (sequence_number - *last - 1) as u64;
        *last = sequence_number;
        self.lost += gap;
        gap
    }

    /// Messages lost so far, over all publishers.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Messages that arrived with a sequence number at or below one already seen.
    pub fn reordered(&self) -> u64 {
        self.reordered
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
}
