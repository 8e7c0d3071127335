//! [`Inbox`]: the bounded queue between a receive path (zenoh's receive thread, or any other)
//! and whoever consumes the samples (an application reading a [`RawSubscription`], or the
//! executor serving a typed subscription).
//!
//! Pushing never blocks: when the queue is full, the oldest queued sample is dropped to make
//! room, counted in the session stats under the queue's [`QueueOverflow`] kind, and the first
//! drop of each queue is logged at WARN. Blocking instead would stop zenoh's receive task, and
//! with it every other topic, the liveliness tokens and the keep-alives of that link.
//!
//! Two bounds hold at once: a number of samples (the QoS depth) and a number of payload bytes
//! held on the heap (samples in shared memory cost the subscriber nothing; they occupy the
//! publisher's pool, which is bounded already).
//!
//! This is not a general channel: the consumer side is single (one reader, or the one executor
//! thread that holds the subscription).
//!
//! [`RawSubscription`]: super::RawSubscription

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::stats::{QueueOverflow, SessionStats};

/// How many samples and heap bytes a queue holds, and which counter its drops go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InboxBounds {
    /// Samples held at most (at least 1).
    pub samples: usize,
    /// Heap payload bytes held at most; a single sample larger than this is still queued alone.
    pub heap_bytes: usize,
    /// The counter a drop is added to.
    pub kind: QueueOverflow,
}

/// What travels through the queue: a sample and the heap bytes it holds, or the order to stop.
enum Item<M> {
    Sample(M, usize),
    Stop,
}

/// State the push side and the pop side share.
struct Shared {
    bounds: InboxBounds,
    topic: String,
    stats: Arc<SessionStats>,
    heap_bytes: AtomicUsize,
    /// Samples in the channel, never fewer than there are: counted before a send, uncounted
    /// after a receive. It answers [`Inbox::is_empty`] with one atomic load; flume's own length
    /// takes the channel's lock, and an executor asks each time it looks at the subscription.
    queued: AtomicUsize,
    warned: AtomicBool,
    stopped: AtomicBool,
}

impl Shared {
    fn dropped(&self) {
        self.stats.overflowed(self.bounds.kind);
        if !self.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                topic = %self.topic,
                qos = self.bounds.kind.label(),
                depth = self.bounds.samples,
                "the subscriber does not keep up: dropped the oldest queued sample (counted; later \
                 drops on this topic are not logged). Make the callback faster, or raise the depth"
            );
        }
    }

    /// A sample left the channel (popped or evicted).
    fn taken(&self, bytes: usize) {
        self.heap_bytes.fetch_sub(bytes, Ordering::Relaxed);
        self.queued.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The push side of a bounded, drop-oldest queue. Cheap to clone; every clone pushes into the
/// same queue.
pub struct Inbox<M> {
    tx: flume::Sender<Item<M>>,
    // A receiver kept on the push side only to take out the oldest sample when the queue is full.
    evict: flume::Receiver<Item<M>>,
    shared: Arc<Shared>,
}

impl<M> Clone for Inbox<M> {
    fn clone(&self) -> Self {
        Self {
            tx: self.tx.clone(),
            evict: self.evict.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl<M> std::fmt::Debug for Inbox<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox")
            .field("topic", &self.shared.topic)
            .field("bounds", &self.shared.bounds)
            .field("queued", &self.tx.len())
            .finish()
    }
}

/// The pop side of an [`Inbox`].
pub struct InboxReceiver<M> {
    rx: flume::Receiver<Item<M>>,
    shared: Arc<Shared>,
}

impl<M> std::fmt::Debug for InboxReceiver<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InboxReceiver")
            .field("topic", &self.shared.topic)
            .field("queued", &self.rx.len())
            .finish()
    }
}

/// A new queue for `topic` (named in the WARN line) with these bounds; drops are counted in
/// `stats`.
pub fn inbox<M>(topic: &str, bounds: InboxBounds, stats: Arc<SessionStats>) -> (Inbox<M>, InboxReceiver<M>) {
    let bounds = InboxBounds {
        samples: bounds.samples.max(1),
        ..bounds
    };
    // One slot more than the bound, for the stop order: stopping never has to evict.
    let (tx, rx) = flume::bounded(bounds.samples + 1);
    let shared = Arc::new(Shared {
        bounds,
        topic: topic.to_owned(),
        stats,
        heap_bytes: AtomicUsize::new(0),
        queued: AtomicUsize::new(0),
        warned: AtomicBool::new(false),
        stopped: AtomicBool::new(false),
    });
    let receiver = InboxReceiver {
        rx: rx.clone(),
        shared: shared.clone(),
    };
    (
        Inbox {
            tx,
            evict: rx,
            shared,
        },
        receiver,
    )
}

impl<M> Inbox<M> {
    /// Queues `sample`, which holds `heap_bytes` of heap memory (0 for a payload in shared
    /// memory). Never blocks: it drops the oldest samples (counted) until both bounds hold.
    pub fn push(&self, sample: M, heap_bytes: usize) {
        let shared = &self.shared;
        if shared.stopped.load(Ordering::Relaxed) {
            return;
        }
        let bounds = shared.bounds;
        let mut held = shared.heap_bytes.fetch_add(heap_bytes, Ordering::Relaxed) + heap_bytes;
        while held > bounds.heap_bytes && self.evict_oldest() {
            held = shared.heap_bytes.load(Ordering::Relaxed);
        }
        let mut item = Item::Sample(sample, heap_bytes);
        // Each round either queues the sample or takes one out, so this ends; the bound on rounds
        // only guards against a consumer that refills the slot from another thread every time.
        for _ in 0..=bounds.samples {
            if self.tx.len() >= bounds.samples {
                self.evict_oldest();
                continue;
            }
            shared.queued.fetch_add(1, Ordering::SeqCst);
            match self.tx.try_send(item) {
                Ok(()) => return,
                Err(flume::TrySendError::Full(back)) => {
                    shared.queued.fetch_sub(1, Ordering::SeqCst);
                    item = back;
                    self.evict_oldest();
                }
                // The consumer is gone (the subscription is being dropped): nobody wants it.
                Err(flume::TrySendError::Disconnected(_)) => {
                    shared.queued.fetch_sub(1, Ordering::SeqCst);
                    break;
                }
            }
        }
        shared.heap_bytes.fetch_sub(heap_bytes, Ordering::Relaxed);
    }

    /// Takes the oldest queued sample out and counts it; false when the queue was empty.
    fn evict_oldest(&self) -> bool {
        match self.evict.try_recv() {
            Ok(Item::Sample(_, bytes)) => {
                self.shared.taken(bytes);
                self.shared.dropped();
                true
            }
            // Put the stop order back: it must reach the consumer.
            Ok(Item::Stop) => {
                let _ = self.tx.try_send(Item::Stop);
                false
            }
            Err(_) => false,
        }
    }

    /// Tells the consumer to stop after the sample it is handling; samples still queued are
    /// discarded (the consumer's owner asked for it, so they are not counted as drops).
    pub fn stop(&self) {
        self.shared.stopped.store(true, Ordering::Relaxed);
        // Wakes a consumer waiting on an empty queue. The channel has one slot beyond the bound
        // and pushes stop now, so this fails only when the queue is already full of samples,
        // and then the consumer does not wait.
        let _ = self.tx.try_send(Item::Stop);
    }

    /// True when nothing is queued. A sample being pushed or popped right now may count as
    /// queued a moment early or late, never a queued one as absent.
    pub fn is_empty(&self) -> bool {
        self.shared.queued.load(Ordering::SeqCst) == 0
    }
}

impl<M> InboxReceiver<M> {
    fn take(&self, item: Result<Item<M>, flume::RecvError>) -> Option<M> {
        match item {
            Ok(Item::Sample(sample, bytes)) => {
                self.shared.taken(bytes);
                (!self.shared.stopped.load(Ordering::Relaxed)).then_some(sample)
            }
            Ok(Item::Stop) | Err(_) => None,
        }
    }

    /// The next sample if one is queued, without waiting; `None` also once stopped.
    pub fn try_recv(&self) -> Option<M> {
        match self.rx.try_recv() {
            Ok(item) => self.take(Ok(item)),
            Err(_) => None,
        }
    }

    /// The next sample, waiting for it asynchronously; `None` once the queue was stopped or every [`Inbox`] is gone.
    pub async fn recv_async(&self) -> Option<M> {
        self.take(self.rx.recv_async().await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(samples: usize, heap_bytes: usize) -> (Inbox<u32>, InboxReceiver<u32>, Arc<SessionStats>) {
        let stats = Arc::new(SessionStats::default());
        let bounds = InboxBounds {
            samples,
            heap_bytes,
            kind: QueueOverflow::KeepLastReliable,
        };
        let (inbox, receiver) = inbox("/t", bounds, stats.clone());
        (inbox, receiver, stats)
    }

    fn drops(stats: &SessionStats) -> u64 {
        stats.snapshot().overflows(QueueOverflow::KeepLastReliable)
    }

    #[test]
    fn a_full_queue_drops_the_oldest_and_counts_it() {
        let (inbox, receiver, stats) = queue(3, usize::MAX);
        for n in 1..=5 {
            inbox.push(n, 0);
        }
        assert_eq!(drops(&stats), 2);
        let got: Vec<u32> = (0..3).filter_map(|_| receiver.try_recv()).collect();
        assert_eq!(got, [3, 4, 5], "the newest samples are kept, in order");
        assert!(inbox.is_empty());
    }

    #[test]
    fn the_heap_byte_bound_holds_and_a_lone_big_sample_is_kept() {
        let (inbox, receiver, stats) = queue(100, 1000);
        inbox.push(1, 400);
        inbox.push(2, 400);
        inbox.push(3, 400);
        assert_eq!(drops(&stats), 1, "1200 bytes do not fit in 1000");
        assert_eq!(receiver.try_recv(), Some(2));
        assert_eq!(receiver.try_recv(), Some(3));
        inbox.push(4, 5000);
        assert_eq!(
            receiver.try_recv(),
            Some(4),
            "alone, a sample above the bound still passes"
        );
        assert_eq!(drops(&stats), 1);
        inbox.push(5, 600);
        inbox.push(6, 600);
        assert_eq!(drops(&stats), 2);
        assert_eq!(receiver.try_recv(), Some(6));
    }

    #[test]
    fn stop_ends_the_consumer_and_discards_what_is_queued() {
        let (inbox, receiver, stats) = queue(2, usize::MAX);
        inbox.push(1, 0);
        assert_eq!(receiver.try_recv(), Some(1));
        inbox.push(2, 0);
        inbox.push(3, 0);
        inbox.stop();
        inbox.push(4, 0);
        assert_eq!(
            receiver.try_recv(),
            None,
            "queued samples are not delivered after stop"
        );
        assert_eq!(drops(&stats), 0, "nor counted as drops: the owner asked for it");
    }

    #[test]
    fn is_empty_follows_pushes_pops_and_evictions() {
        let (inbox, receiver, _stats) = queue(2, usize::MAX);
        assert!(inbox.is_empty());
        inbox.push(1, 0);
        assert!(!inbox.is_empty());
        assert_eq!(receiver.try_recv(), Some(1));
        assert!(inbox.is_empty());
        for n in 2..=6 {
            inbox.push(n, 0);
        }
        assert!(!inbox.is_empty(), "two kept after three evictions");
        assert_eq!(receiver.try_recv(), Some(5));
        assert!(!inbox.is_empty());
        assert_eq!(receiver.try_recv(), Some(6));
        assert!(inbox.is_empty());
        assert_eq!(receiver.try_recv(), None);
        assert!(inbox.is_empty(), "an empty receive takes nothing off the count");
    }

    #[test]
    fn is_empty_holds_across_threads() {
        let (inbox, receiver, _stats) = queue(64, usize::MAX);
        let pusher = {
            let inbox = inbox.clone();
            std::thread::spawn(move || (0..100_000).for_each(|n| inbox.push(n, 0)))
        };
        let mut popped = 0;
        while !pusher.is_finished() || !inbox.is_empty() {
            if receiver.try_recv().is_some() {
                popped += 1;
            }
        }
        pusher.join().unwrap();
        assert!(popped > 0);
        assert_eq!(receiver.try_recv(), None, "empty means nothing is left");
    }

    #[test]
    fn pushing_never_blocks_when_nobody_reads() {
        let (inbox, receiver, stats) = queue(4, usize::MAX);
        for n in 0..10_000 {
            inbox.push(n, 10);
        }
        assert_eq!(drops(&stats), 10_000 - 4);
        let kept: Vec<u32> = std::iter::from_fn(|| receiver.try_recv()).collect();
        assert_eq!(kept, [9_996, 9_997, 9_998, 9_999], "the newest four are kept");
    }
}
