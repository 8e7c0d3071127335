//! [`Merge`]: one delivery per message, in sequence order, when a publisher reaches a
//! subscription through both the lane and zenoh.
//!
//! Each path is in order per publisher, and each message carries its publisher's GID and
//! sequence number. A message whose number was already delivered is a copy and is dropped. A
//! message that comes after a gap waits only if the gap may still be filled by zenoh: the lane
//! header says up to which number the publisher also sent through zenoh (`zenoh_until`), and
//! what zenoh delivered so far is known. That happens when a subscription switches to the lane
//! (the lane is faster: its first message overtakes the last ones zenoh still carries), also
//! for the very first message of a publisher, which waits until zenoh has delivered up to the
//! last number it owes (without counting a gap if those never come: they may predate the
//! subscription). Any other gap is a real loss (a KEEP_LAST queue overwrote it, or zenoh dropped
//! it) and nothing waits.
//!
//! Publishers the subscription does not receive through the lane (rmw_zenoh nodes, other hosts)
//! are not touched: their messages are delivered as they arrive, as without the lane.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use smallvec::SmallVec;

use crate::ros::gid::Gid;

/// How long a message waits for the earlier ones zenoh still owes, at most.
pub const SWITCH_WAIT: Duration = Duration::from_millis(250);

/// Messages of one publisher held while waiting, at most (then the wait ends).
pub const MAX_PENDING: usize = 8;

/// How long a publisher that left is remembered, so that late copies are still recognised.
const FORGET_AFTER: Duration = Duration::from_secs(10);

/// The path a message came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// zenoh.
    Zenoh,
    /// The lane, with its header's `zenoh_until`.
    Lane {
        /// The number of the last message the publisher also sent through zenoh.
        zenoh_until: i64,
    },
}

/// What one step of the merge decided.
#[derive(Debug)]
pub struct Outcome<I> {
    /// Messages to deliver now, in order: almost always one, kept inline (a `Vec` cost a heap
    /// allocation per message, 4% of a lane subscriber's receiving thread at 100 Hz, perf).
    pub deliver: SmallVec<[I; 1]>,
    /// Copies dropped because their number was delivered already.
    pub duplicates: u64,
    /// Waits that ended without the messages zenoh owed (they are missing).
    pub gaps: u64,
}

impl<I> Default for Outcome<I> {
    fn default() -> Self {
        Self {
            deliver: SmallVec::new(),
            duplicates: 0,
            gaps: 0,
        }
    }
}

#[derive(Debug)]
struct Stream<I> {
    /// Received through the lane: order and copies are handled.
    lane: bool,
    last: Option<i64>,
    zenoh_seen: i64,
    zenoh_until: i64,
    pending: BTreeMap<i64, I>,
    waiting_since: Option<Instant>,
    gone_at: Option<Instant>,
}

impl<I> Default for Stream<I> {
    fn default() -> Self {
        Self {
            lane: false,
            last: None,
            zenoh_seen: 0,
            zenoh_until: 0,
            pending: BTreeMap::new(),
            waiting_since: None,
            gone_at: None,
        }
    }
}

/// The merge state of one subscription, over all its publishers.
#[derive(Debug)]
pub struct Merge<I> {
    streams: HashMap<Gid, Stream<I>>,
    /// Publishers that left and are not forgotten yet.
    leavers: usize,
}

impl<I> Default for Merge<I> {
    fn default() -> Self {
        Self {
            streams: HashMap::new(),
            leavers: 0,
        }
    }
}

impl<I> Merge<I> {
    /// Notes that the publisher `gid` is now received through the lane as well.
    pub fn attached(&mut self, gid: Gid) {
        let stream = self.streams.entry(gid).or_default();
        stream.lane = true;
        if stream.gone_at.take().is_some() {
            self.leavers -= 1;
        }
    }

    /// Notes that the publisher `gid` left; it is forgotten a while later.
    pub fn gone(&mut self, gid: Gid, now: Instant) {
        if let Some(stream) = self.streams.get_mut(&gid)
            && stream.gone_at.replace(now).is_none()
        {
            self.leavers += 1;
        }
    }

    fn forget_leavers(&mut self, now: Instant) {
        let forgotten = |s: &Stream<I>| {
            s.gone_at.is_some_and(|at| now.duration_since(at) >= FORGET_AFTER) && s.pending.is_empty()
        };
        let before = self.streams.len();
        self.streams.retain(|_, s| !forgotten(s));
        self.leavers -= before - self.streams.len();
    }

    /// Takes message `sequence` of publisher `gid`, arrived through `via`.
    pub fn offer(&mut self, gid: Gid, sequence: i64, via: Via, item: I, now: Instant) -> Outcome<I> {
        if self.leavers > 0 {
            self.forget_leavers(now);
        }
        let stream = self.streams.entry(gid).or_default();
        let mut outcome = Outcome::default();
        match via {
            Via::Zenoh => stream.zenoh_seen = stream.zenoh_seen.max(sequence),
            Via::Lane { zenoh_until } => {
                stream.lane = true;
                stream.zenoh_until = stream.zenoh_until.max(zenoh_until);
            }
        }
        if !stream.lane {
            stream.last = Some(stream.last.map_or(sequence, |last| last.max(sequence)));
            outcome.deliver.push(item);
            return outcome;
        }
        if stream.last.is_some_and(|last| sequence <= last) || stream.pending.contains_key(&sequence) {
            outcome.duplicates += 1;
            return outcome;
        }
        // The usual case, the next message with nothing waiting: straight through.
        let next = match stream.last {
            Some(last) => sequence == last + 1,
            None => via == Via::Zenoh || !stream.first_contact_owed(sequence),
        };
        if stream.pending.is_empty() && next {
            stream.last = Some(sequence);
            outcome.deliver.push(item);
            return outcome;
        }
        stream.pending.insert(sequence, item);
        stream.flush(now, &mut outcome);
        outcome
    }

    /// Ends the waits that are over.
    pub fn tick(&mut self, now: Instant) -> Outcome<I> {
        let mut outcome = Outcome::default();
        for stream in self.streams.values_mut() {
            stream.flush(now, &mut outcome);
        }
        outcome
    }

    /// When the earliest wait ends, if any message waits.
    pub fn deadline(&self) -> Option<Instant> {
        self.streams
            .values()
            .filter_map(|s| s.waiting_since)
            .min()
            .map(|since| since + SWITCH_WAIT)
    }
}

impl<I> Stream<I> {
    /// Whether the first message of this publisher, `sequence` from the lane, may have been
    /// overtaken by earlier ones zenoh still carries. The lane's first message can be faster than
    /// the zenoh messages the publisher sent before it saw this subscription on the lane; which
    /// of those were sent after the subscription's zenoh subscriber existed (and so will arrive)
    /// is unknown, so the wait ends as soon as zenoh has delivered up to the last one it owes.
    ///
    /// Only the case where the lane message itself skipped zenoh right after one that did not
    /// (`zenoh_until == sequence - 1`) waits: a message that zenoh carries too is held by
    /// nothing, so a large lane sample is never kept waiting for older history (which would
    /// hold its buffer and grow the publisher's segment).
    fn first_contact_owed(&self, sequence: i64) -> bool {
        self.zenoh_until == sequence - 1 && self.zenoh_seen < sequence - 1
    }

    fn flush(&mut self, now: Instant, outcome: &mut Outcome<I>) {
        while let Some((&sequence, _)) = self.pending.first_key_value() {
            let owed = match self.last {
                Some(last) if sequence > last + 1 => {
                    // Numbers in the gap that zenoh carries and has not delivered yet.
                    let from = last.max(self.zenoh_seen) + 1;
                    let to = (sequence - 1).min(self.zenoh_until);
                    from <= to
                }
                Some(_) => false,
                None => self.first_contact_owed(sequence),
            };
            if owed {
                let since = *self.waiting_since.get_or_insert(now);
                if now.duration_since(since) < SWITCH_WAIT && self.pending.len() <= MAX_PENDING {
                    return;
                }
                // Before the first delivery nothing was promised to this subscription: the
                // messages zenoh did not bring may have been sent before it subscribed.
                if self.last.is_some() {
                    outcome.gaps += 1;
                }
            }
            self.waiting_since = None;
            let (sequence, item) = self.pending.pop_first().expect("the first key exists");
            self.last = Some(sequence);
            outcome.deliver.push(item);
        }
        self.waiting_since = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Gid = Gid([1; 16]);

    fn lane(until: i64) -> Via {
        Via::Lane { zenoh_until: until }
    }

    /// Offers (sequence, via) in order at `now` and returns what was delivered.
    fn run(merge: &mut Merge<i64>, steps: &[(i64, Via)], now: Instant) -> Vec<i64> {
        steps
            .iter()
            .flat_map(|&(seq, via)| merge.offer(P, seq, via, seq, now).deliver)
            .collect()
    }

    #[test]
    fn a_publisher_only_on_zenoh_is_delivered_as_it_arrives() {
        let mut merge = Merge::default();
        let now = Instant::now();
        let got = run(
            &mut merge,
            &[(1, Via::Zenoh), (3, Via::Zenoh), (2, Via::Zenoh)],
            now,
        );
        assert_eq!(got, [1, 3, 2], "no reordering, no waiting: as without the lane");
        assert_eq!(merge.deadline(), None);
    }

    #[test]
    fn copies_through_both_paths_are_delivered_once() {
        let mut merge = Merge::default();
        let now = Instant::now();
        merge.attached(P);
        let steps = [
            (1, lane(1)),
            (1, Via::Zenoh),
            (2, lane(2)),
            (3, lane(3)),
            (2, Via::Zenoh),
            (3, Via::Zenoh),
        ];
        let mut duplicates = 0;
        let mut got = Vec::new();
        for (seq, via) in steps {
            let outcome = merge.offer(P, seq, via, seq, now);
            duplicates += outcome.duplicates;
            got.extend(outcome.deliver);
        }
        assert_eq!(got, [1, 2, 3]);
        assert_eq!(duplicates, 3);
    }

    #[test]
    fn switching_to_the_lane_waits_for_what_zenoh_still_carries() {
        let mut merge = Merge::default();
        let now = Instant::now();
        assert_eq!(run(&mut merge, &[(1, Via::Zenoh), (2, Via::Zenoh)], now), [1, 2]);
        merge.attached(P);
        // The lane's first message overtakes 3 and 4, which zenoh carries (zenoh_until = 5).
        assert!(run(&mut merge, &[(5, lane(5)), (6, lane(5))], now).is_empty());
        assert!(merge.deadline().is_some());
        assert_eq!(run(&mut merge, &[(3, Via::Zenoh)], now), [3]);
        assert_eq!(run(&mut merge, &[(4, Via::Zenoh)], now), [4, 5, 6]);
        assert_eq!(merge.deadline(), None);
        let late = merge.offer(P, 5, Via::Zenoh, 5, now);
        assert!(late.deliver.is_empty());
        assert_eq!(late.duplicates, 1);
    }

    #[test]
    fn a_first_lane_message_waits_for_the_earlier_one_zenoh_carries() {
        let mut merge = Merge::default();
        let now = Instant::now();
        merge.attached(P);
        // 1 went through zenoh only (the lane had no subscriber yet); 2 overtakes it on the lane.
        assert!(run(&mut merge, &[(2, lane(1))], now).is_empty());
        assert_eq!(run(&mut merge, &[(1, Via::Zenoh)], now), [1, 2]);
        assert_eq!(merge.deadline(), None);
    }

    #[test]
    fn a_first_lane_message_waits_at_most_the_switch_wait_and_counts_no_gap() {
        let mut merge = Merge::default();
        let start = Instant::now();
        merge.attached(P);
        // 1..=5 went through zenoh before this subscription existed: they never come.
        assert!(run(&mut merge, &[(6, lane(5))], start).is_empty());
        let outcome = merge.tick(start + SWITCH_WAIT);
        assert_eq!((outcome.deliver.to_vec(), outcome.gaps), (vec![6], 0));
        assert_eq!(run(&mut merge, &[(7, lane(7))], start + SWITCH_WAIT), [7]);
    }

    #[test]
    fn a_first_lane_message_with_nothing_owed_goes_straight_through() {
        let mut merge = Merge::default();
        let now = Instant::now();
        merge.attached(P);
        // Sent through zenoh too (zenoh_until = 1, its own number): nothing earlier is owed.
        assert_eq!(run(&mut merge, &[(1, lane(1))], now), [1]);
        let mut later = Merge::default();
        later.attached(P);
        // Only the lane since 3, and zenoh brought everything up to 2: 4 goes through.
        let steps = [(1, Via::Zenoh), (2, Via::Zenoh), (4, lane(2))];
        assert_eq!(run(&mut later, &steps, now), [1, 2, 4]);
    }

    #[test]
    fn a_gap_zenoh_cannot_fill_does_not_wait() {
        let mut merge = Merge::default();
        let now = Instant::now();
        merge.attached(P);
        // Only the lane since 3 (zenoh_until stays 2): 5 and 6 were overwritten in the queue.
        let steps = [
            (1, Via::Zenoh),
            (2, Via::Zenoh),
            (3, lane(2)),
            (4, lane(2)),
            (7, lane(2)),
        ];
        assert_eq!(run(&mut merge, &steps, now), [1, 2, 3, 4, 7]);
        assert_eq!(merge.deadline(), None);
    }

    #[test]
    fn a_wait_ends_after_the_switch_wait_and_counts_the_gap() {
        let mut merge = Merge::default();
        let start = Instant::now();
        run(&mut merge, &[(1, Via::Zenoh)], start);
        merge.attached(P);
        assert!(run(&mut merge, &[(4, lane(4))], start).is_empty());
        assert_eq!(merge.deadline(), Some(start + SWITCH_WAIT));
        assert!(merge.tick(start + SWITCH_WAIT / 2).deliver.is_empty());
        let outcome = merge.tick(start + SWITCH_WAIT);
        assert_eq!((outcome.deliver.to_vec(), outcome.gaps), (vec![4], 1));
        assert_eq!(
            run(&mut merge, &[(2, Via::Zenoh), (5, lane(5))], start),
            [5],
            "2 came too late"
        );
    }

    #[test]
    fn too_many_waiting_messages_end_the_wait() {
        let mut merge = Merge::default();
        let now = Instant::now();
        run(&mut merge, &[(1, Via::Zenoh)], now);
        merge.attached(P);
        let steps: Vec<(i64, Via)> = (3..=3 + MAX_PENDING as i64).map(|s| (s, lane(100))).collect();
        let got = run(&mut merge, &steps, now);
        assert_eq!(got.len(), MAX_PENDING + 1);
        assert_eq!(got.first(), Some(&3));
    }

    #[test]
    fn a_publisher_that_left_is_still_known_for_a_while() {
        let mut merge = Merge::default();
        let now = Instant::now();
        merge.attached(P);
        run(&mut merge, &[(1, lane(1))], now);
        merge.gone(P, now);
        let late = merge.offer(P, 1, Via::Zenoh, 1, now + Duration::from_secs(1));
        assert_eq!(late.duplicates, 1, "a late copy is still recognised");
        let later = now + FORGET_AFTER + Duration::from_secs(1);
        assert_eq!(
            merge
                .offer(Gid([2; 16]), 1, Via::Zenoh, 1, later)
                .deliver
                .as_slice(),
            [1]
        );
        assert!(!merge.streams.contains_key(&P), "forgotten after a while");
    }
}
