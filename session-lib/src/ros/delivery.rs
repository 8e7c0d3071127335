//! How a typed subscription hands samples to its callback without ever making a receive path
//! wait: each receive path (zenoh's callback, and the same-host lane's thread, after the two are
//! merged by publisher and sequence number in `ros/lane/paths.rs`) hands its samples to an
//! `Inlet` (the attachment is checked there, a few bytes), the sample waits in a bounded queue
//! shaped by the subscription's QoS, and one worker thread per subscription validates the CDR
//! once and runs the callback with the view it validated.
//!
//! A lane sample in the queue keeps its buffer in the publisher's segment, and a subscription may
//! hold only so many of one publisher's buffers ([`crate::lane::SUBSCRIBER_MAX_BORROWED`], above
//! the lane's deepest KEEP_LAST queue). A KEEP_ALL queue that holds that many makes the lane
//! thread leave that publisher's next messages in the lane until one is given back: the lane
//! thread itself never waits.
//!
//! Queue bounds ([`bounds`]): KEEP_LAST holds `depth` samples (rmw_zenoh's substitution: 0 is
//! 42) and drops the oldest when a new one arrives, as ROS specifies; KEEP_ALL holds up to
//! [`KEEP_ALL_BOUND`] samples, then drops the oldest too (rmw_zenoh keeps them all, without a
//! bound). Either way at most [`HEAP_BYTES_BOUND`] of payload waits on the heap. Every drop is
//! counted in the session stats by QoS ([`QueueOverflow`]) and the first one is logged.
//!
//! Not here: how samples are received (the `raw` layer), or what a sample offers
//! ([`Sample`], [`Subscription`](super::Subscription)).

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use super::attachment::Attachment;
use super::qos::{History, QosProfile, Reliability};
use super::subscription::Sample;
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
        (History::KeepAll, true) => (KEEP_ALL_BOUND, QueueOverflow::KeepAllReliable),
        (History::KeepAll, false) => (KEEP_ALL_BOUND, QueueOverflow::KeepAllBestEffort),
    };
    InboxBounds {
        samples,
        heap_bytes: HEAP_BYTES_BOUND,
        kind,
    }
}

/// A sample whose attachment was accepted, waiting for the worker.
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
struct Gate {
    topic: String,
    stats: Arc<SessionStats>,
    warned: [AtomicBool; DropReason::ALL.len()],
}

impl Gate {
    fn attachment(&self, sample: &RawSample) -> Option<Attachment> {
        match sample.attachment_bytes().map(|a| Attachment::decode(&a)) {
            None => self.reject(DropReason::MissingAttachment, "no attachment"),
            Some(Err(err)) => self.reject(DropReason::BadAttachment, &err.to_string()),
            Some(Ok(attachment)) => Some(attachment),
        }
    }

    fn reject<R>(&self, reason: DropReason, detail: &str) -> Option<R> {
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

/// Where a receive path puts the samples of one typed subscription. Pushing never blocks.
#[derive(Clone)]
pub(crate) struct Inlet {
    inbox: Inbox<Admitted>,
    gate: Arc<Gate>,
}

impl Inlet {
    /// Checks the attachment; `None` when the sample is dropped (counted).
    pub(crate) fn admit(&self, sample: RawSample) -> Option<Admitted> {
        let attachment = self.gate.attachment(&sample)?;
        Some(Admitted { sample, attachment })
    }

    /// Queues an admitted sample; never blocks (a full queue drops its oldest, counted).
    pub(crate) fn queue(&self, admitted: Admitted) {
        let bytes = admitted.sample.heap_bytes();
        self.inbox.push(admitted, bytes);
    }
}

/// The thread that runs a subscription's callback. Dropping it discards what is still queued
/// and waits for a callback that is running to return (unless the callback itself drops it).
pub(crate) struct Worker {
    inbox: Inbox<Admitted>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker").field("inbox", &self.inbox).finish()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.inbox.stop();
        if let Some(thread) = self.thread.take()
            && thread.thread().id() != std::thread::current().id()
        {
            // A panic in the callback already printed its message; nothing more to report.
            let _ = thread.join();
        }
    }
}

/// Starts the delivery of `T` on `topic` to `callback`: returns the inlet receive paths push
/// into and the worker the subscription keeps.
pub(crate) fn start<T: Message>(
    topic: &str,
    qos: &QosProfile,
    stats: Arc<SessionStats>,
    callback: impl FnMut(Sample<'_, T>) + Send + 'static,
) -> std::io::Result<(Inlet, Worker)> {
    let gate = Arc::new(Gate {
        topic: topic.to_owned(),
        stats: stats.clone(),
        warned: Default::default(),
    });
    let (inbox, queue) = inbox::inbox(topic, bounds(qos), stats);
    // Linux keeps 15 bytes of a thread name: enough to tell subscriptions apart in `top -H`.
    let name: String = format!("zshm-sub{topic}").chars().take(15).collect();
    let worker_gate = gate.clone();
    let thread = std::thread::Builder::new()
        .name(name)
        .spawn(move || run::<T>(queue, &worker_gate, callback, PhantomData))?;
    Ok((
        Inlet {
            inbox: inbox.clone(),
            gate,
        },
        Worker {
            inbox,
            thread: Some(thread),
        },
    ))
}

/// The worker's loop: parse each payload once, hand the view it produced to the callback.
fn run<T: Message>(
    queue: InboxReceiver<Admitted>,
    gate: &Gate,
    mut callback: impl FnMut(Sample<'_, T>),
    _type: PhantomData<fn() -> T>,
) {
    while let Some(admitted) = queue.recv() {
        // The only parse of these bytes: the callback gets this view, and `decode` builds from
        // it. A publisher rewriting its buffer after publishing cannot make a later parse fail.
        match T::view_cdr(admitted.sample.payload()) {
            Ok(view) => callback(Sample::new(&admitted.sample, admitted.attachment, view)),
            Err(err) => {
                let _: Option<()> = gate.reject(DropReason::MalformedCdr, &err.to_string());
            }
        }
    }
}
