//! How a typed subscription hands samples to its callback without ever making a receive path
//! wait. Each receive path (zenoh's callback, and the same-host lane, read by the executor thread
//! that woke up for it, after the two are merged by publisher and sequence number in
//! `ros/lane/paths.rs`) checks the attachment (a few bytes, `Handler::admit`) and then either
//! queues the sample in a bounded queue shaped by the subscription's QoS (`Queue`) and rings the
//! executor, or, for a subscription that asked for inline delivery, runs the callback at once on
//! the thread that received it. The executor pops the queue, validates the CDR once and runs the
//! callback with the view it validated (`Handler::run`).
//!
//! A lane sample in the queue keeps its buffer in the publisher's segment, and a subscription may
//! hold only so many of one publisher's buffers ([`crate::lane::SUBSCRIBER_MAX_BORROWED`], above
//! the lane's deepest KEEP_LAST queue). A KEEP_ALL queue that holds that many makes the lane
//! receiver leave that publisher's next messages in the lane until one is given back: nothing
//! waits for it.
//!
//! Queue bounds ([`bounds`]): KEEP_LAST holds `depth` samples (rmw_zenoh's substitution: 0 is
//! 42) and drops the oldest when a new one arrives, as ROS specifies; KEEP_ALL holds up to
//! [`KEEP_ALL_BOUND`] samples, then drops the oldest too (rmw_zenoh keeps them all, without a
//! bound). Either way at most [`HEAP_BYTES_BOUND`] of payload waits on the heap. Every drop is
//! counted in the session stats by QoS ([`QueueOverflow`]) and the first one is logged.
//!
//! Not here: how samples are received (the `raw` layer), what a sample offers
//! ([`Sample`]), or when callbacks run ([`executor`](super::executor)).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::attachment::Attachment;
use super::executor::Notifier;
use super::qos::{History, QosProfile, Reliability};
use super::sample::Sample;
use crate::msgs::Message;
use crate::raw::RawSample;
use crate::raw::inbox::{self, Inbox, InboxBounds, InboxReceiver};
use crate::stats::{DropReason, QueueOverflow, SessionStats};

/// Samples a KEEP_ALL subscription queues at most before dropping the oldest.
pub const KEEP_ALL_BOUND: usize = 1024;

/// Payload bytes on the heap any typed subscription queues at most (samples in shared memory do
/// not count: they live in the publisher's pool).
pub const HEAP_BYTES_BOUND: usize = 256 << 20;

/// The queue bounds of a subscription with this QoS.
pub fn bounds(qos: &QosProfile) -> InboxBounds {
    let reliable = qos.reliability == Reliability::Reliable;
    let (samples, kind) = match (qos.history, reliable) {
        (History::KeepLast(_), true) => (qos.depth() as usize, QueueOverflow::KeepLastReliable),
        (History::KeepLast(_), false) => (qos.depth() as usize, QueueOverflow::KeepLastBestEffort),
        (History::KeepAll | History::Unknown, true) => (KEEP_ALL_BOUND, QueueOverflow::KeepAllReliable),
        (History::KeepAll | History::Unknown, false) => (KEEP_ALL_BOUND, QueueOverflow::KeepAllBestEffort),
    };
    InboxBounds {
        samples,
        heap_bytes: HEAP_BYTES_BOUND,
        kind,
    }
}

/// A sample whose attachment was accepted, waiting for its callback.
pub(crate) struct Admitted {
    sample: RawSample,
    attachment: Attachment,
}

impl Admitted {
    /// The rmw_zenoh attachment it carries (publisher and sequence number).
    pub(crate) fn attachment(&self) -> &Attachment {
        &self.attachment
    }
}

/// Checks samples; counts and logs (once per reason) what it rejects.
pub(crate) struct Gate {
    topic: String,
    stats: Arc<SessionStats>,
    warned: [AtomicBool; DropReason::ALL.len()],
}

impl Gate {
    /// A gate for the endpoint named `topic` (a topic or a service).
    pub(crate) fn new(topic: &str, stats: Arc<SessionStats>) -> Self {
        Self {
            topic: topic.to_owned(),
            stats,
            warned: Default::default(),
        }
    }

    fn attachment(&self, sample: &RawSample) -> Option<Attachment> {
        self.check_attachment(sample.attachment_bytes().as_deref())
    }

    /// The attachment in `bytes`, or `None` when it is missing or not rmw_zenoh's (counted).
    pub(crate) fn check_attachment(&self, bytes: Option<&[u8]>) -> Option<Attachment> {
        match bytes.map(Attachment::decode) {
            None => self.reject(DropReason::MissingAttachment, "no attachment"),
            Some(Err(err)) => self.reject(DropReason::BadAttachment, &err.to_string()),
            Some(Ok(attachment)) => Some(attachment),
        }
    }

    /// Counts a drop for `reason` and logs the first of each reason.
    pub(crate) fn reject<R>(&self, reason: DropReason, detail: &str) -> Option<R> {
        self.stats.dropped(reason);
        if !self.warned[reason.index()].swap(true, Ordering::Relaxed) {
            tracing::warn!(
                topic = %self.topic,
                reason = reason.label(),
                "dropped a sample (counted; later ones are not logged): {detail}"
            );
        }
        None
    }
}

/// The callback of one subscription and the checks before it. Shared by the receive paths (which
/// admit) and the executor (which runs).
pub(crate) struct Handler<T: Message> {
    gate: Gate,
    callback: Mutex<Callback<T>>,
}

/// A subscription's callback, as the user gave it.
type Callback<T> = Box<dyn FnMut(Sample<'_, T>) + Send>;

impl<T: Message> Handler<T> {
    pub(crate) fn new(
        topic: &str,
        stats: Arc<SessionStats>,
        callback: impl FnMut(Sample<'_, T>) + Send + 'static,
    ) -> Self {
        Self {
            gate: Gate::new(topic, stats),
            callback: Mutex::new(Box::new(callback)),
        }
    }

    /// Checks the attachment; `None` when the sample is dropped (counted).
    pub(crate) fn admit(&self, sample: RawSample) -> Option<Admitted> {
        let attachment = self.gate.attachment(&sample)?;
        Some(Admitted { sample, attachment })
    }

    /// Parses the payload once and hands the view it produced to the callback (or drops the
    /// sample, counted, when it is not valid CDR for `T`).
    pub(crate) fn run(&self, admitted: Admitted) {
        // The only parse of these bytes: the callback gets this view, and `decode` builds from
        // it. A publisher rewriting its buffer after publishing cannot make a later parse fail.
        match T::view_cdr(admitted.sample.payload()) {
            Ok(view) => {
                let mut callback = self.callback.lock().unwrap_or_else(PoisonError::into_inner);
                callback(Sample::new(&admitted.sample, admitted.attachment, view));
            }
            Err(err) => {
                let _: Option<()> = self.gate.reject(DropReason::MalformedCdr, &err.to_string());
            }
        }
    }
}

/// What waits in a [`Queue`]: a subscription's samples, a server's requests.
pub(crate) trait Queued: Send + 'static {
    /// How many of its payload bytes are on the heap (what shared memory holds is the
    /// publisher's pool's, not the queue's).
    fn heap_bytes(&self) -> usize;
}

impl Queued for Admitted {
    fn heap_bytes(&self) -> usize {
        self.sample.heap_bytes()
    }
}

/// The bounded queue of one subscription or service server between its receive paths and its
/// executor, shaped by its QoS ([`bounds`]). Pushing never blocks (a full queue drops its
/// oldest, counted) and rings the executor.
pub(crate) struct Queue<T = Admitted> {
    inbox: Inbox<T>,
    receiver: InboxReceiver<T>,
    notifier: Notifier,
}

impl<T: Queued> Queue<T> {
    pub(crate) fn new(topic: &str, qos: &QosProfile, stats: Arc<SessionStats>, notifier: Notifier) -> Self {
        let (inbox, receiver) = inbox::inbox(topic, bounds(qos), stats);
        Self {
            inbox,
            receiver,
            notifier,
        }
    }

    /// Queues what was admitted and tells the executor.
    pub(crate) fn push(&self, admitted: T) {
        let bytes = admitted.heap_bytes();
        self.inbox.push(admitted, bytes);
        self.notifier.notify();
    }

    /// The oldest queued item, if any.
    pub(crate) fn pop(&self) -> Option<T> {
        self.receiver.try_recv()
    }

    /// True when nothing waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.inbox.is_empty()
    }

    /// Discards what is queued and refuses what comes (the subscription is going away).
    pub(crate) fn stop(&self) {
        self.inbox.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ros::qos::History;

    /// KEEP_ALL is bounded too, and its drops are counted under their own QoS label.
    #[test]
    fn keep_all_and_best_effort_have_their_own_bounds_and_labels() {
        let keep_all = QosProfile {
            history: History::KeepAll,
            ..QosProfile::keep_last(1)
        };
        let b = bounds(&keep_all);
        assert_eq!(
            (b.samples, b.kind),
            (KEEP_ALL_BOUND, QueueOverflow::KeepAllReliable)
        );
        let b = bounds(&keep_all.reliability(Reliability::BestEffort));
        assert_eq!(b.kind, QueueOverflow::KeepAllBestEffort);
        let b = bounds(&QosProfile::sensor_data());
        assert_eq!((b.samples, b.kind), (5, QueueOverflow::KeepLastBestEffort));
        assert_eq!(b.heap_bytes, HEAP_BYTES_BOUND);
        assert_eq!(
            bounds(&QosProfile::keep_last(0)).samples,
            42,
            "rmw_zenoh's substitution"
        );
    }
}
