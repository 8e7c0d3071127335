//! One route: a DDS reader feeding an rmw_zenoh publisher, or an rmw_zenoh subscription feeding a
//! DDS writer, with the checks every message passes on the way (encapsulation, the CDR of types
//! zshm knows, the frequency cap, the bridge's own messages) and the counters of what passed.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use rustdds::RepresentationIdentifier;
use zshm::dynamic::MessageType;
use zshm::ros::dynamic::{DynamicPublisher, DynamicSubscription};
use zshm_protocol::attachment::Attachment;
use zshm_protocol::gid::Gid;

use crate::dds::{RawCdr, RawReader, RawWriter};
use crate::stats::{DropReason, RouteStats};

/// Payloads up to this size of a type zshm knows are decoded once to check them; bigger ones
/// (point clouds, images: byte arrays behind a small header) pass on their header alone, so
/// that checking never costs a copy of megabytes.
pub(crate) const VALIDATE_MAX: usize = 64 * 1024;

/// How long a new route waits for its outgoing endpoint to match the other side's before it
/// forwards anyway: the messages that arrive meanwhile wait in the DDS reader's history or the
/// queue, so that the first messages of a new route are not lost to discovery.
pub(crate) const MATCH_WAIT: Duration = Duration::from_secs(5);

/// Messages waiting for a DDS writer before new ones are dropped (counted as `queue_full`):
/// zenoh's callback must never wait for DDS.
const TO_DDS_QUEUE: usize = 256;

/// The GIDs of the bridge's own zenoh publishers: their messages, heard back by the bridge's
/// subscriptions on the same key, are not bridged again.
pub(crate) type OwnGids = Arc<Mutex<HashSet<Gid>>>;

/// The checks shared by both directions.
#[derive(Clone)]
pub(crate) struct Checks {
    pub name: Arc<str>,
    pub stats: Arc<RouteStats>,
    pub validator: Option<MessageType>,
    pub cap: Option<Duration>,
    last_forwarded: Arc<Mutex<Option<Instant>>>,
}

impl Checks {
    pub fn new(
        name: &str,
        stats: Arc<RouteStats>,
        validator: Option<MessageType>,
        cap: Option<Duration>,
    ) -> Self {
        Self {
            name: name.into(),
            stats,
            validator,
            cap,
            last_forwarded: Arc::default(),
        }
    }

    fn drop(&self, reason: DropReason, detail: &str) {
        self.stats.dropped(&self.name, reason, detail);
    }

    /// Whether a whole payload (header included) of a known type decodes as that type.
    fn cdr_ok(&self, payload: impl FnOnce() -> Vec<u8>, len: usize) -> bool {
        let Some(validator) = &self.validator else {
            return true;
        };
        if len > VALIDATE_MAX {
            return true;
        }
        match validator.decode(&payload()) {
            Ok(_) => true,
            Err(err) => {
                self.drop(DropReason::MalformedCdr, &err.to_string());
                false
            }
        }
    }

    /// The frequency cap: true when this message may go now.
    fn within_cap(&self) -> bool {
        let Some(period) = self.cap else { return true };
        let mut last = self.last_forwarded.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if last.is_some_and(|at| now.duration_since(at) < period) {
            self.drop(DropReason::MaxFrequency, "sooner than the cap's period");
            return false;
        }
        *last = Some(now);
        true
    }
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// The last sequence number forwarded per DDS writer. RustDDS was seen handing a reliable writer's
/// retransmitted samples over again (1..5, then 1, 2, 3) on a loaded machine, and a route that
/// goes and comes back (a discovery snapshot missing the writer for a moment) gets a new reader,
/// which the writer may serve what it still holds; so volatile routes of a topic share one
/// record for the bridge's life, and each sample goes to zenoh once.
pub(crate) type Forwarded = Arc<Mutex<std::collections::HashMap<rustdds::GUID, rustdds::SequenceNumber>>>;

/// DDS → zenoh: a task reading the DDS reader and publishing each sample once, copied into the
/// publisher's loan (shared memory above the threshold, the lane to zshm subscribers).
pub(crate) struct DdsToZenoh {
    task: tokio::task::JoinHandle<()>,
    gid: Gid,
    own_gids: OwnGids,
}

impl DdsToZenoh {
    pub fn start(
        reader: RouteReader,
        publisher: DynamicPublisher,
        gid: Gid,
        own_gids: OwnGids,
        is_own_writer: impl Fn(rustdds::GUID) -> bool + Send + 'static,
        checks: Checks,
        forwarded: Forwarded,
    ) -> Self {
        let RouteReader { reader, cached } = reader;
        own_gids.lock().unwrap_or_else(|e| e.into_inner()).insert(gid);
        let task = tokio::spawn(async move {
            publisher.wait_for_subscribers(MATCH_WAIT).await;
            let mut in_this_route = std::collections::HashMap::new();
            for sample in cached {
                let raw = Self::accept(sample, &is_own_writer, &checks, &forwarded, &mut in_this_route);
                if let Some(raw) = raw {
                    forward_to_zenoh(&publisher, &checks, raw).await;
                }
            }
            let mut stream = reader.async_sample_stream();
            while let Some(item) = stream.next().await {
                let sample = match item {
                    Ok(sample) => sample,
                    Err(err) => {
                        checks.drop(DropReason::SendFailed, &format!("DDS read error: {err}"));
                        continue;
                    }
                };
                let raw = Self::accept(sample, &is_own_writer, &checks, &forwarded, &mut in_this_route);
                if let Some(raw) = raw {
                    forward_to_zenoh(&publisher, &checks, raw).await;
                }
            }
        });
        Self { task, gid, own_gids }
    }
}

impl DdsToZenoh {
    /// The payload of `sample` when it is to be forwarded: not the bridge's own, not one
    /// forwarded already (counted as a duplicate); a jump in its writer's sequence numbers is
    /// counted as a gap.
    fn accept(
        sample: RawSample,
        is_own_writer: &impl Fn(rustdds::GUID) -> bool,
        checks: &Checks,
        forwarded: &Forwarded,
        in_this_route: &mut std::collections::HashMap<rustdds::GUID, rustdds::SequenceNumber>,
    ) -> Option<RawCdr> {
        // What the bridge wrote itself on this topic (a route the other way) stays there.
        if is_own_writer(sample.sample_info().writer_guid()) {
            return None;
        }
        let identity = sample.sample_info().sample_identity();
        let seen = {
            let mut last = forwarded.lock().unwrap_or_else(|e| e.into_inner());
            match last.get(&identity.writer_guid) {
                Some(seen) if identity.sequence_number <= *seen => Some(*seen),
                _ => {
                    last.insert(identity.writer_guid, identity.sequence_number);
                    None
                }
            }
        };
        if let Some(seen) = seen {
            let detail = format!(
                "the DDS stack delivered it twice (writer {:?}, sample {:?}, {:?} forwarded already)",
                identity.writer_guid, identity.sequence_number, seen
            );
            checks.drop(DropReason::Duplicate, &detail);
            return None;
        }
        count_gap(
            checks,
            in_this_route,
            identity.writer_guid,
            identity.sequence_number,
        );
        Some(sample.into_value())
    }
}

/// A route's new DDS reader, and what it held from before (see [`take_cached`]).
pub(crate) struct RouteReader {
    pub reader: RawReader,
    /// Samples of live writers it already held, forwarded first.
    pub cached: Vec<RawSample>,
}

/// A sample as the bridge's DDS readers take it.
pub(crate) type RawSample = rustdds::no_key::DataSample<RawCdr>;

/// Takes what a volatile route's brand-new reader already holds: RustDDS keeps a topic's last
/// samples (64) for the participant's life and hands them to every new reader of the topic.
/// Those of writers that are gone were written before the route existed and are not for it
/// (a camera's clouds from seconds ago, published as new): dropped, counted as stale. Those of
/// live writers are returned, to be forwarded first (the ones forwarded by an earlier route
/// are then told apart by their sequence numbers). Called right after the reader is created,
/// before anything can have reached it.
pub(crate) fn take_cached(
    reader: &mut RawReader,
    live_writers: &HashSet<rustdds::GUID>,
    checks: &Checks,
) -> Vec<RawSample> {
    let mut kept = Vec::new();
    while let Ok(Some(sample)) = reader.take_next_sample() {
        if live_writers.contains(&sample.sample_info().writer_guid()) {
            kept.push(sample);
        } else {
            checks.drop(
                DropReason::Stale,
                "written before this route existed, by a writer that is gone; RustDDS's topic cache handed it over",
            );
        }
    }
    kept
}

/// Counts the samples a writer's sequence numbers skipped since this route last heard it. Only
/// within a route's life: what a volatile writer wrote before the route's reader matched it, or
/// between two routes of its topic, was never meant for the bridge.
fn count_gap(
    checks: &Checks,
    in_this_route: &mut std::collections::HashMap<rustdds::GUID, rustdds::SequenceNumber>,
    writer: rustdds::GUID,
    sequence_number: rustdds::SequenceNumber,
) {
    if let Some(previous) = in_this_route.insert(writer, sequence_number) {
        let (from, to) = (i64::from(previous), i64::from(sequence_number));
        if let Ok(skipped @ 1..) = u64::try_from(to - from - 1) {
            let detail = format!("writer {writer:?} went from sample {from} to {to}");
            checks
                .stats
                .dropped_many(&checks.name, DropReason::DdsGap, skipped, &detail);
        }
    }
}

async fn forward_to_zenoh(publisher: &DynamicPublisher, checks: &Checks, raw: RawCdr) {
    let header: [u8; 4] = if raw.encoding == RepresentationIdentifier::CDR_LE {
        [0, 1, 0, 0]
    } else if raw.encoding == RepresentationIdentifier::CDR_BE {
        [0, 0, 0, 0]
    } else {
        checks.drop(
            DropReason::UnsupportedEncoding,
            &format!("encoding {:?}", raw.encoding),
        );
        return;
    };
    let len = 4 + raw.body.len();
    let whole = || [&header[..], &raw.body[..]].concat();
    if !checks.cdr_ok(whole, len) || !checks.within_cap() {
        return;
    }
    // Shared memory (or the lane) at or above the session's threshold, the heap below it.
    let mut loan = publisher.buffer(len).await;
    loan[..4].copy_from_slice(&header);
    loan[4..].copy_from_slice(&raw.body);
    match publisher.publish_loan(loan, now_ns()).await {
        Ok(()) => checks.stats.forwarded(len),
        Err(err) => checks.drop(DropReason::SendFailed, &err.to_string()),
    }
}

impl Drop for DdsToZenoh {
    fn drop(&mut self) {
        // The task owns the reader and the publisher: aborting it drops both (the reader leaves
        // DDS, the publisher's token leaves zenoh).
        self.task.abort();
        self.own_gids
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.gid);
    }
}

/// zenoh → DDS: the subscription's callback checks each sample and queues it; a thread writes
/// the queue to the DDS writer, so zenoh's thread never waits for DDS.
pub(crate) struct ZenohToDds {
    subscription: Option<DynamicSubscription>,
    stop: Arc<AtomicBool>,
    worker: Option<std::thread::JoinHandle<()>>,
}

/// The subscription's callback: everything it needs, and the sending end of the queue.
pub(crate) fn zenoh_callback(
    checks: Checks,
    own_gids: OwnGids,
    queue: SyncSender<RawCdr>,
) -> impl Fn(zshm::raw::RawSample) + Send + Sync + 'static {
    move |sample| {
        let from_self = sample
            .attachment_bytes()
            .and_then(|bytes| Attachment::decode(&bytes).ok())
            .is_some_and(|a| {
                own_gids
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .contains(&a.source_gid)
            });
        if from_self {
            return;
        }
        let payload = sample.payload();
        if payload.len() < 4 {
            checks.drop(DropReason::TooShort, &format!("{} bytes", payload.len()));
            return;
        }
        match payload[..2] {
            [0, 1] => {}
            [0, 0] => return checks.drop(DropReason::BigEndian, "CDR_BE"),
            _ => {
                return checks.drop(
                    DropReason::UnsupportedEncoding,
                    &format!("encapsulation {:02x}{:02x}", payload[0], payload[1]),
                );
            }
        }
        if !checks.cdr_ok(|| payload.to_vec(), payload.len()) || !checks.within_cap() {
            return;
        }
        let raw = RawCdr {
            encoding: RepresentationIdentifier::CDR_LE,
            body: rustdds::bytes::Bytes::copy_from_slice(&payload[4..]),
        };
        match queue.try_send(raw) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => checks.drop(DropReason::QueueFull, "the DDS writer is behind"),
            // The route is being removed.
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

/// A queue for [`zenoh_callback`] and its reading end for [`ZenohToDds::start`].
pub(crate) fn to_dds_queue() -> (SyncSender<RawCdr>, Receiver<RawCdr>) {
    std::sync::mpsc::sync_channel(TO_DDS_QUEUE)
}

impl ZenohToDds {
    pub fn start(
        subscription: DynamicSubscription,
        writer: RawWriter,
        queue: Receiver<RawCdr>,
        checks: Checks,
    ) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let worker = std::thread::Builder::new()
            .name("bridge-to-dds".into())
            .spawn(move || write_to_dds(&writer, &queue, &checks, &stopping))?;
        Ok(Self {
            subscription: Some(subscription),
            stop,
            worker: Some(worker),
        })
    }
}

/// How long a route that goes waits for the DDS readers to acknowledge what it wrote last.
const ACK_WAIT: Duration = Duration::from_secs(1);

/// How long a route's writer holds its messages for a DDS reader that matched it while the
/// route runs to answer (to know the writer), before it writes on without that reader.
const ANSWER_WAIT: Duration = Duration::from_secs(1);

/// The writer thread of a zenoh -> DDS route. A message is counted as forwarded once written
/// while a DDS reader matched the writer; with none, it is dropped (`no_dds_reader`). What
/// reliable readers had not acknowledged when the route went is counted `unacknowledged`, so
/// a route whose readers never got anything (a reader whose locators the bridge cannot reach)
/// never ends with "no drops".
fn write_to_dds(writer: &RawWriter, queue: &Receiver<RawCdr>, checks: &Checks, stopping: &AtomicBool) {
    use rustdds::{DataWriterStatus, StatusEvented};
    let started = Instant::now();
    let mut matched = wait_for_a_reader(writer, stopping);
    // A reader matched here may not know the writer yet: what is written before it does is
    // lost to it (a volatile Cyclone DDS reader starts from the writer's next sample). The
    // messages wait in the queue until every matched reader has answered.
    let mut new_reader = matched;
    let mut answer_wait = MATCH_WAIT.saturating_sub(started.elapsed());
    // Messages written since the readers last had everything acknowledged.
    let mut unacknowledged = 0u64;
    let mut last_check = Instant::now();
    while !stopping.load(Ordering::Relaxed) {
        while let Some(status) = writer.try_recv_status() {
            if let DataWriterStatus::PublicationMatched { current, .. } = status {
                matched = current.count() > 0;
                if current.count_change() > 0 {
                    new_reader = true;
                    answer_wait = ANSWER_WAIT;
                }
            }
        }
        match queue.recv_timeout(Duration::from_millis(100)) {
            Ok(_) if !matched => checks.drop(
                DropReason::NoDdsReader,
                "no DDS reader matches the bridge's writer (it left, or its QoS does not match)",
            ),
            Ok(raw) => {
                if std::mem::take(&mut new_reader) && !wait_for_answers(writer, answer_wait, stopping) {
                    tracing::debug!(
                        route = %checks.name,
                        "a matched DDS reader did not answer within {answer_wait:?}: writing on"
                    );
                }
                let len = 4 + raw.body.len();
                match writer.write(raw, None) {
                    Ok(()) => {
                        checks.stats.forwarded(len);
                        unacknowledged += 1;
                    }
                    Err(err) => checks.drop(DropReason::SendFailed, &format!("DDS write: {err}")),
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if unacknowledged > 0 && last_check.elapsed() >= Duration::from_millis(500) {
            last_check = Instant::now();
            if matches!(writer.wait_for_acknowledgments(Duration::ZERO), Ok(true)) {
                unacknowledged = 0;
            }
        }
    }
    if unacknowledged > 0 && !matches!(writer.wait_for_acknowledgments(ACK_WAIT), Ok(true)) {
        checks.stats.dropped_many(
            &checks.name,
            DropReason::Unacknowledged,
            unacknowledged,
            &format!("{unacknowledged} written to DDS were not acknowledged by its reliable readers within {ACK_WAIT:?} of the route going"),
        );
    }
}

/// Waits until the writer matched a reader (RustDDS reports it as a status event), at most
/// [`MATCH_WAIT`]; returns whether one did.
fn wait_for_a_reader(writer: &RawWriter, stopping: &AtomicBool) -> bool {
    use rustdds::{DataWriterStatus, StatusEvented};
    let deadline = Instant::now() + MATCH_WAIT;
    while Instant::now() < deadline && !stopping.load(Ordering::Relaxed) {
        match writer.try_recv_status() {
            Some(DataWriterStatus::PublicationMatched { current, .. }) if current.count() > 0 => return true,
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    false
}

/// Waits until every reader matched with `writer` has answered it, at most `max_wait` and not
/// past a stop; returns whether they all did.
fn wait_for_answers(writer: &RawWriter, max_wait: Duration, stopping: &AtomicBool) -> bool {
    let deadline = Instant::now() + max_wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if writer.wait_for_readers_to_answer(left.min(Duration::from_millis(100))) {
            return true;
        }
        if left.is_zero() || stopping.load(Ordering::Relaxed) {
            return false;
        }
    }
}

impl Drop for ZenohToDds {
    fn drop(&mut self) {
        // The subscription first, so nothing more is queued; then the writer, with its thread.
        drop(self.subscription.take());
        self.stop.store(true, Ordering::Relaxed);
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_in_a_writers_sequence_numbers_is_counted_once_per_missing_sample() {
        let stats = Arc::new(RouteStats::default());
        let checks = Checks::new("/t", stats.clone(), None, None);
        let mut in_this_route = std::collections::HashMap::new();
        let writer = rustdds::GUID::from_bytes([7; 16]);
        for sn in [3i64, 4, 7, 8, 10] {
            count_gap(
                &checks,
                &mut in_this_route,
                writer,
                rustdds::SequenceNumber::from(sn),
            );
        }
        assert_eq!(stats.drops().get(&DropReason::DdsGap), Some(&3), "5, 6 and 9");
    }
}
