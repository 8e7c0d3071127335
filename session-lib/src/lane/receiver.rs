//! [`LaneReceiver`]: the receiving end of the lane for one subscription. It attaches to the
//! lanes of the publishers it is told about and puts their wake-ups straight into the wait set
//! of the executor that serves the subscription ([`WaitSet`]): each publisher's iceoryx2
//! listener, and an eventfd for its own control messages, each under a slot number. It owns no
//! thread: the executor thread that wakes up for a slot tells the receiver
//! ([`LaneReceiver::fired`]) and calls [`LaneReceiver::process`], which reads the messages of the
//! slots that fired and hands each one, a view into the publisher's segment, to the
//! subscription's handler on that same thread: no hand-off.
//!
//! Why the executor's own epoll set and not one of the receiver's, nested in it: a datagram
//! that wakes a nested set wakes the outer one through a second callback, under a second
//! lock with interrupts off, in the publisher's `sendto`, and the woken thread reads the
//! nested set with one more `epoll_wait`. Measured at T = 100 in the topics sweep, that second
//! level cost a lane node more kernel time per message than all of iceoryx2's own wake-up.
//! Why not iceoryx2's `Listener::blocking_wait`: the executor waits on every publisher beside
//! everything else it serves, and `blocking_wait` makes four `fcntl` and one `setsockopt` calls
//! per wake-up.

#![allow(unsafe_code)]

use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::time::{Duration, Instant};

use iceoryx2::port::ReceiveError;
use iceoryx2::port::listener::Listener;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;
use iceoryx2::sample::Sample;
use iceoryx2::service::port_factory::event::PortFactory as EventService;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as DataService;
use nix::sys::eventfd::{EfdFlags, EventFd};

use super::Svc;
use super::context::LaneContext;
use super::doorbell::BellAddress;
use super::generation::{self, LAST_GENERATION};
use super::header::LaneHeader;
use super::profile::SenderProfile;
use crate::stats::LaneFallback;

/// How a subscription receives through the lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiverProfile {
    /// The name its ports carry, which publishers read (zshm uses the subscription's GID).
    pub port_name: String,
    /// Messages queued per publisher before the oldest is overwritten (or the publisher waits).
    pub buffer: usize,
}

/// Where a receiver's descriptors are waited on: in zshm, the epoll set of the executor that
/// serves the subscription. Each goes in under a slot number: [`CONTROL_SLOT`] for the
/// receiver's own control messages, the others for publishers. Whoever waits reports the slots
/// that became readable to [`LaneReceiver::fired`], then calls [`LaneReceiver::process`].
pub trait WaitSet: Send + Sync {
    /// Starts watching `fd` for readability, as `slot`.
    fn add(&self, fd: BorrowedFd<'_>, slot: usize) -> std::io::Result<()>;
    /// Stops watching `fd`.
    fn remove(&self, fd: BorrowedFd<'_>);
    /// Watches `fd` again after [`process`](LaneReceiver::process) took in what it signalled:
    /// for a wait set that reports a descriptor once per arming (epoll's `EPOLLONESHOT`, with
    /// several threads); nothing to do for a level-triggered one.
    fn rearm(&self, fd: BorrowedFd<'_>, slot: usize);

    /// The doorbell publishers ring for this receiver ([`super::doorbell`]), created on first
    /// use; when it rings for the receiver, the wait set reports [`DOORBELL_SLOT`]. `None` (the
    /// default) when the wait set has none: each publisher then wakes the receiver itself.
    fn doorbell(&self, _ctx: &LaneContext) -> Option<BellAddress> {
        None
    }
}

/// The slot a wait set reports when the receiver's doorbell rang: every publisher may have sent.
pub const DOORBELL_SLOT: usize = usize::MAX;

/// The slot of a receiver's control eventfd; a publisher's listener gets its index + 1.
pub const CONTROL_SLOT: usize = 0;

/// The slots that fired and were not processed yet: one bit per slot below 63; the last bit
/// stands for every slot from 63 on (a subscription with that many publishers looks at each).
#[derive(Debug, Default)]
struct Fired(AtomicU64);

/// The bit of the slots from 63 on.
const HIGH_SLOTS: u32 = 63;

impl Fired {
    fn note(&self, slot: usize) {
        let bit = (slot as u32).min(HIGH_SLOTS);
        self.0.fetch_or(1 << bit, Ordering::AcqRel);
    }

    fn take(&self) -> u64 {
        self.0.swap(0, Ordering::AcqRel)
    }
}

/// What [`LaneReceiver::process`] hands to the subscription.
#[derive(Debug)]
pub enum LaneEvent {
    /// A message.
    Sample(LaneSample),
    /// The outcome of [`LaneReceiver::attach`].
    Attached {
        /// The publisher's lane id.
        id: String,
        /// Whether its messages now come through the lane.
        result: Result<(), AttachFailure>,
    },
}

/// Why a subscription could not receive a publisher through the lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachFailure {
    /// The reason, as counted.
    pub reason: LaneFallback,
    /// iceoryx2's error.
    pub error: String,
}

/// A received message: a read-only view into the publisher's segment, which stays valid (and
/// keeps its buffer) as long as this lives.
#[derive(Debug)]
pub struct LaneSample {
    sample: Sample<Svc, [u8], LaneHeader>,
    wake: Arc<Wake>,
}

impl LaneSample {
    /// The payload.
    pub fn payload(&self) -> &[u8] {
        self.sample.payload()
    }

    /// The header.
    pub fn header(&self) -> &LaneHeader {
        self.sample.user_header()
    }
}

impl Drop for LaneSample {
    fn drop(&mut self) {
        // A receiver that hit the borrow limit waits for a sample to be given back.
        if self.wake.stalled.swap(false, Ordering::AcqRel) {
            self.wake.ring();
        }
    }
}

/// The eventfd that makes the receiver's descriptor readable for its own control messages, and
/// whether it waits for borrowed samples to come back.
#[derive(Debug)]
struct Wake {
    fd: EventFd,
    stalled: AtomicBool,
}

impl Wake {
    fn ring(&self) {
        if let Err(err) = self.fd.write(1) {
            tracing::debug!("lane: cannot wake the receiver: {err}");
        }
    }
}

enum Control {
    Attach {
        id: String,
        history: usize,
        publisher: SenderProfile,
    },
    Detach(String),
}

/// How often a receiver whose publisher left a generation looks whether it moved to a higher
/// one ([`super::generation`]): a look lists a few files.
const MOVE_CHECK: Duration = Duration::from_millis(100);

/// The receiving end of one subscription. Whoever serves it gives it a [`WaitSet`]
/// ([`watch`](Self::watch)), reports the slots that fire ([`fired`](Self::fired)) and then calls
/// [`process`](Self::process).
pub struct LaneReceiver {
    control: flume::Sender<Control>,
    wake: Arc<Wake>,
    fired: Fired,
    /// Its doorbell rang and [`process`](Self::process) did not look since.
    rung: AtomicBool,
    /// [`close`](Self::close) was called.
    closing: AtomicBool,
    state: Mutex<State>,
}

impl std::fmt::Debug for LaneReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaneReceiver").finish_non_exhaustive()
    }
}

impl LaneReceiver {
    /// A receiver that hands every [`LaneEvent`] to `handler`, on the thread that calls
    /// [`process`](Self::process).
    pub fn new(
        ctx: Arc<LaneContext>,
        profile: ReceiverProfile,
        handler: impl FnMut(LaneEvent) + Send + 'static,
    ) -> std::io::Result<Self> {
        let fd = EventFd::from_value_and_flags(0, EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)?;
        let wake = Arc::new(Wake {
            fd,
            stalled: AtomicBool::new(false),
        });
        let (control, queue) = flume::unbounded();
        let state = State {
            ctx,
            profile,
            wake: wake.clone(),
            queue,
            slots: Vec::new(),
            handler: Box::new(handler),
            warned_borrows: false,
            warned_queue: false,
            wait_set: None,
            bell: None,
            moved: Vec::new(),
        };
        Ok(Self {
            control,
            wake,
            fired: Fired::default(),
            rung: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            state: Mutex::new(state),
        })
    }

    /// Puts the receiver's descriptors in `wait_set`; the publishers it attaches to later go
    /// there too. Orders given before are waiting in the control eventfd, which `wait_set`
    /// then reports as readable.
    pub fn watch(&self, wait_set: Arc<dyn WaitSet>) -> std::io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if self.closing.load(Ordering::SeqCst) {
            return Ok(());
        }
        wait_set.add(state.wake.fd.as_fd(), CONTROL_SLOT)?;
        state.wait_set = Some(wait_set);
        Ok(())
    }

    /// Takes the receiver's descriptors out of its wait set, for good: after this, nothing wakes
    /// anybody for it. Called when its subscription leaves the executor, and when it drops.
    ///
    /// Never waits for [`process`](Self::process): an inline callback, which runs inside it, may
    /// drop its own subscription. When a thread is processing, that thread takes the
    /// descriptors out as it finishes.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        match self.state.try_lock() {
            Ok(mut state) => state.unwatch(),
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().unwatch(),
            Err(TryLockError::WouldBlock) => {}
        }
    }

    /// Notes that the descriptor of `slot` became readable; [`process`](Self::process) takes it
    /// in. Cheap, and never waits: the waiting thread calls it for each event.
    pub fn fired(&self, slot: usize) {
        if slot == DOORBELL_SLOT {
            self.rung.store(true, Ordering::Release);
        } else {
            self.fired.note(slot);
        }
    }

    /// Handles what the slots that fired signalled: attach and detach orders, then every waiting
    /// message of each publisher that woke the receiver, each handed to the handler on this
    /// thread; then arms those descriptors again. Never waits.
    pub fn process(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        // Taken under the lock: bits noted while another thread processes wait for this call.
        let rung = self.rung.swap(false, Ordering::AcqRel);
        let fired = self.fired.take();
        if fired != 0 || rung {
            state.process(fired, rung);
        }
        drop(state);
        // A `close` that found the lock taken left the descriptors to whoever held it. Checked
        // after letting go, so that a `close` either took the lock or is seen here.
        if self.closing.load(Ordering::SeqCst)
            && let Ok(mut state) = self.state.try_lock()
        {
            state.unwatch();
        }
    }

    /// Starts receiving the publisher `id`, whose lane is configured for `publisher`, through
    /// its lane, with up to `history` of its past messages; the outcome arrives as
    /// [`LaneEvent::Attached`] at the next [`process`](Self::process).
    pub fn attach(&self, id: &str, history: usize, publisher: SenderProfile) {
        self.send(Control::Attach {
            id: id.to_owned(),
            history,
            publisher,
        });
    }

    /// Stops receiving the publisher `id`, after delivering what it already sent.
    pub fn detach(&self, id: &str) {
        self.send(Control::Detach(id.to_owned()));
    }

    fn send(&self, control: Control) {
        // The queue lives as long as the receiver, so it is there to receive.
        let _ = self.control.send(control);
        self.wake.ring();
    }
}

impl Drop for LaneReceiver {
    fn drop(&mut self) {
        self.close();
    }
}

struct Slot {
    id: String,
    /// The lane's generation it is attached to, and the publisher's profile that configures it.
    generation: u32,
    publisher: SenderProfile,
    data: DataService<Svc, [u8], LaneHeader>,
    _event: EventService<Svc>,
    listener: Listener<Svc>,
    subscriber: Subscriber<Svc, [u8], LaneHeader>,
    /// When it last looked whether its publisher moved to a higher generation.
    looked_for_move: Option<Instant>,
    /// The sequence number of the last message read (0: none yet).
    last_sequence: i64,
}

impl Slot {
    /// Notes that the message with `header` was read, and returns how many messages before it,
    /// since the last one read, the lane alone carried and this slot never read: its queue was
    /// full when they came (a KEEP_LAST queue overwrote them; a KEEP_ALL publisher gave up after
    /// [`super::sender::BLOCK_LIMIT`]). Messages up to `zenoh_until` went through zenoh too,
    /// which answers for them; before the first message read nothing was promised (history
    /// and joining).
    fn note_read(&mut self, header: &LaneHeader) -> u64 {
        let last = std::mem::replace(&mut self.last_sequence, header.sequence);
        unread_before(last, header)
    }

    /// Whether its publisher left its generation for a higher one: the generation has no
    /// publisher, and a higher one exists (looked at most every [`MOVE_CHECK`]).
    fn publisher_moved(&mut self, node: &Node<Svc>) -> bool {
        if self.generation == LAST_GENERATION || self.data.dynamic_config().number_of_publishers() > 0 {
            return false;
        }
        let now = Instant::now();
        if self
            .looked_for_move
            .is_some_and(|at| now.duration_since(at) < MOVE_CHECK)
        {
            return false;
        }
        self.looked_for_move = Some(now);
        generation::highest(node, &self.id, self.generation) > self.generation
    }

    fn descriptor(&self) -> BorrowedFd<'_> {
        // SAFETY: the listener's descriptor stays open as long as the listener, which the slot
        // holds; the slot leaves the wait set (in `detach` or `close`) before it drops.
        unsafe { BorrowedFd::borrow_raw(self.listener.file_descriptor().native_handle()) }
    }
}

struct State {
    ctx: Arc<LaneContext>,
    profile: ReceiverProfile,
    wake: Arc<Wake>,
    queue: flume::Receiver<Control>,
    slots: Vec<Option<Slot>>,
    handler: Box<dyn FnMut(LaneEvent) + Send>,
    warned_borrows: bool,
    /// Whether a queue drop was logged already (each is counted).
    warned_queue: bool,
    /// Where the descriptors are watched; `None` before [`LaneReceiver::watch`] and after
    /// [`LaneReceiver::close`].
    wait_set: Option<Arc<dyn WaitSet>>,
    /// The doorbell publishers ring for it, asked for at the first attach; `Some(None)` when
    /// it has none.
    bell: Option<Option<BellAddress>>,
    /// Slots whose publisher moved to a higher generation: attached there at the end of
    /// [`State::process`].
    moved: Vec<usize>,
}

impl State {
    /// Takes every descriptor out of the wait set, which is gone for good after.
    fn unwatch(&mut self) {
        if let Some(wait_set) = self.wait_set.take() {
            wait_set.remove(self.wake.fd.as_fd());
            for slot in self.slots.iter().flatten() {
                wait_set.remove(slot.descriptor());
            }
        }
    }

    fn process(&mut self, fired: u64, rung: bool) {
        if rung {
            // The doorbell does not say which publisher rang; a look at one that did not is an
            // atomic load. Its wake-up was taken already by whoever waits on it.
            for index in 0..self.slots.len() {
                self.drain(index);
            }
        }
        if fired & 1 << CONTROL_SLOT != 0 {
            let _ = self.wake.fd.read();
            self.control();
            // A sample given back after a stall rings the same eventfd.
            for index in 0..self.slots.len() {
                self.drain(index);
            }
            if let Some(wait_set) = &self.wait_set {
                wait_set.rearm(self.wake.fd.as_fd(), CONTROL_SLOT);
            }
        }
        let publishers = (1..self.slots.len() + 1).filter(|&slot| {
            let bit = (slot as u32).min(HIGH_SLOTS);
            fired & 1 << bit != 0
        });
        for slot in publishers {
            // Messages first, the wake-up datagram after: consuming it is a syscall the message
            // need not wait for. Then the listener is looked at until a look finds nothing (see
            // `take_until_settled`), draining after each look that found a wake-up: that catches
            // a message sent in between, whose wake-up was coalesced into the one taken.
            let index = slot - 1;
            self.drain(index);
            while let Some(Some(listener)) = self.slots.get(index) {
                if take_until_settled(&listener.listener, 1, |_| {}) {
                    if let Some(wait_set) = &self.wait_set {
                        wait_set.rearm(listener.descriptor(), slot);
                    }
                    break;
                }
                self.drain(index);
            }
        }
        if !self.moved.is_empty() {
            self.follow_moved_publishers();
        }
    }

    /// Attaches the slots whose publisher moved to a higher generation there. Their messages
    /// go through zenoh meanwhile: the publisher's new generation does not list them yet.
    fn follow_moved_publishers(&mut self) {
        let mut moved = std::mem::take(&mut self.moved);
        moved.sort_unstable();
        moved.dedup();
        for index in moved {
            let Some(slot) = self.slots.get_mut(index).and_then(Option::take) else {
                continue;
            };
            if let Some(wait_set) = &self.wait_set {
                wait_set.remove(slot.descriptor());
            }
            let (id, publisher) = (slot.id.clone(), slot.publisher);
            let result = self.attach(&id, 0, publisher);
            drop(slot);
            match result {
                Ok(()) => tracing::debug!(
                    publisher = id,
                    "lane: followed the publisher to a larger generation"
                ),
                Err(failure) => (self.handler)(LaneEvent::Attached {
                    id,
                    result: Err(failure),
                }),
            }
        }
    }

    /// Handles the queued control messages.
    fn control(&mut self) {
        while let Ok(control) = self.queue.try_recv() {
            match control {
                Control::Attach {
                    id,
                    history,
                    publisher,
                } => {
                    let result = self.attach(&id, history, publisher);
                    (self.handler)(LaneEvent::Attached { id, result });
                }
                Control::Detach(id) => self.detach(&id),
            }
        }
    }

    fn attach(&mut self, id: &str, history: usize, publisher: SenderProfile) -> Result<(), AttachFailure> {
        let Some(wait_set) = self.wait_set.clone() else {
            return Err(failure(LaneFallback::OpenFailed, "the receiver is closed".into()));
        };
        if self.slots.iter().flatten().any(|slot| slot.id == id) {
            return Ok(());
        }
        if self.bell.is_none() {
            let bell = self
                .ctx
                .doorbells()
                .then(|| wait_set.doorbell(&self.ctx))
                .flatten();
            self.bell = Some(bell);
        }
        let slot = self.open_largest(id, history, publisher)?;
        let index = match self.slots.iter().position(Option::is_none) {
            Some(free) => free,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        wait_set
            .add(slot.descriptor(), index + 1)
            .map_err(|err| failure(LaneFallback::OpenFailed, format!("epoll: {err}")))?;
        self.slots[index] = Some(slot);
        // Messages (history) may already wait: read them before the first wake-up.
        self.drain(index);
        Ok(())
    }

    /// Attaches in the highest generation of the publisher's lane that exists, or, when that one
    /// is full, in the next, created to wait there for the publisher ([`super::generation`]).
    fn open_largest(
        &self,
        id: &str,
        history: usize,
        publisher: SenderProfile,
    ) -> Result<Slot, AttachFailure> {
        let mut number = generation::highest(self.ctx.node(), id, 0);
        loop {
            match self.open(id, history, publisher, number) {
                Err(failure) if failure.reason == LaneFallback::LaneFull && number < LAST_GENERATION => {
                    number += 1;
                }
                opened => return opened,
            }
        }
    }

    /// Opens the publisher's services; the listener comes first, so that a wake-up the publisher
    /// sends as soon as it sees the subscriber is not lost. The listener stays even when the
    /// receiver has a doorbell: a publisher that cannot ring it wakes the receiver through it.
    /// Generation 0 is the publisher's own; a higher one is created when it does not exist.
    fn open(
        &self,
        id: &str,
        history: usize,
        publisher: SenderProfile,
        number: u32,
    ) -> Result<Slot, AttachFailure> {
        let services =
            generation::services(self.ctx.node(), id, number, publisher, number > 0).map_err(classify)?;
        let (data, event) = (services.data, services.event);
        let listener = event.listener_builder().create().map_err(classify)?;
        let limits = data.static_config();
        let buffer = self.profile.buffer.clamp(1, limits.subscriber_max_buffer_size());
        let own = &self.profile.port_name;
        let name = self
            .bell
            .clone()
            .flatten()
            .and_then(|bell| bell.port_name(own))
            .unwrap_or_else(|| own.clone());
        let port_name = PortName::new(&name).map_err(classify)?;
        let subscriber = data
            .subscriber_builder()
            .buffer_size(buffer)
            .history_request(history.min(limits.history_size()).min(buffer))
            .name(&port_name)
            .create()
            .map_err(classify)?;
        Ok(Slot {
            id: id.to_owned(),
            generation: number,
            publisher,
            data,
            _event: event,
            listener,
            subscriber,
            last_sequence: 0,
            looked_for_move: None,
        })
    }

    fn detach(&mut self, id: &str) {
        let Some(index) = self
            .slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.id == id))
        else {
            return;
        };
        self.drain(index);
        if let Some(slot) = self.slots[index].take()
            && let Some(wait_set) = &self.wait_set
        {
            wait_set.remove(slot.descriptor());
        }
    }

    /// Hands every waiting message of one publisher to the handler.
    fn drain(&mut self, index: usize) {
        let mut received = 0usize;
        loop {
            let Some(Some(slot)) = self.slots.get_mut(index) else {
                return;
            };
            match slot.subscriber.receive() {
                Ok(Some(sample)) => {
                    let lost = slot.note_read(sample.user_header());
                    let stats = self.ctx.stats().lane();
                    stats.received(sample.payload().len());
                    if lost > 0 {
                        stats.queue_drops(lost);
                        if !std::mem::replace(&mut self.warned_queue, true) {
                            tracing::warn!(
                                publisher = slot.id,
                                "lane: {lost} messages of a publisher were dropped before this subscription read \
                                 them: its queue of {} was full, it did not keep up (counted in \
                                 zshm_lane_queue_drops_total; not logged again)",
                                slot.subscriber.buffer_size()
                            );
                        }
                    }
                    let sample = LaneSample {
                        sample,
                        wake: self.wake.clone(),
                    };
                    (self.handler)(LaneEvent::Sample(sample));
                    received += 1;
                }
                Ok(None) => {
                    if received == 0 && slot.publisher_moved(self.ctx.node()) {
                        self.moved.push(index);
                    }
                    return;
                }
                Err(ReceiveError::ExceedsMaxBorrows) => {
                    // The application holds as many messages of this publisher as it may: the
                    // rest waits in the queue until one is given back (which rings the eventfd).
                    self.wake.stalled.store(true, Ordering::Release);
                    self.ctx.stats().lane().borrow_stall();
                    if !std::mem::replace(&mut self.warned_borrows, true) {
                        tracing::warn!(
                            "lane: the application holds {} messages of one publisher; later ones wait \
                             until it drops one (counted; not logged again)",
                            super::SUBSCRIBER_MAX_BORROWED
                        );
                    }
                    return;
                }
                Err(err) => {
                    tracing::debug!("lane: receive failed: {err:?}");
                    return;
                }
            }
        }
    }
}

/// Takes a listener's wake-ups until a look finds none (or `limit` looks found some: false),
/// calling `rang` with each event id. Afterwards the next notification makes its descriptor
/// readable.
///
/// Why not one `try_wait`: iceoryx2 0.10's listener marks itself idle, then empties its socket,
/// then reads the ids. A notifier that rings between the first two steps sends a datagram that
/// the emptying swallows, and marks the listener notified; every later notification then sends
/// nothing, since a notified listener is expected to look anyway (iceoryx2's own blocking wait
/// returns at once in that state). A descriptor in epoll would never become readable again: a
/// subscription starved until something else woke its executor (measured: 2,363 of 48,120
/// messages of one bench node overwritten unread at T = 200, 6 December). A notifier sets its
/// id before it sends, so a racing ring always leaves an id for the look that swallowed its
/// datagram; a look that finds no id proves no ring raced it.
fn take_until_settled(listener: &Listener<Svc>, limit: usize, mut rang: impl FnMut(usize)) -> bool {
    for _ in 0..limit {
        match listener.try_wait(|activation| rang(activation.id.as_value())) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(err) => {
                tracing::debug!("lane: cannot take a wake-up: {err:?}");
                return true;
            }
        }
    }
    false
}

/// The messages between the last one read (`last`, 0 for none) and the one with `header` that
/// only the lane carried (see [`Slot::note_read`]).
fn unread_before(last: i64, header: &LaneHeader) -> u64 {
    if last == 0 {
        return 0;
    }
    let lane_only_from = last.max(header.zenoh_until) + 1;
    u64::try_from(header.sequence - lane_only_from).unwrap_or(0)
}

fn failure(reason: LaneFallback, error: String) -> AttachFailure {
    AttachFailure { reason, error }
}

/// Sorts iceoryx2's open and create errors into the counted reasons.
fn classify(err: impl std::fmt::Debug) -> AttachFailure {
    let error = format!("{err:?}");
    let reason = if error.contains("DoesNotExist") || error.contains("InsufficientPermissions") {
        LaneFallback::PeerNotOnLane
    } else if error.contains("ExceedsMax") {
        LaneFallback::LaneFull
    } else {
        LaneFallback::OpenFailed
    };
    failure(reason, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_messages_the_lane_alone_carried_and_the_slot_never_read_count_as_dropped() {
        let header = |sequence, zenoh_until| LaneHeader::new(sequence, zenoh_until, &[]).unwrap();
        assert_eq!(
            unread_before(0, &header(40, 0)),
            0,
            "nothing promised before the first"
        );
        assert_eq!(unread_before(7, &header(8, 0)), 0, "the next one");
        assert_eq!(unread_before(7, &header(12, 0)), 4, "8 to 11 overwritten");
        assert_eq!(
            unread_before(7, &header(12, 10)),
            1,
            "8 to 10 went through zenoh too"
        );
        assert_eq!(
            unread_before(7, &header(12, 11)),
            0,
            "all of them went through zenoh too"
        );
        assert_eq!(unread_before(7, &header(7, 0)), 0, "never negative");
    }

    #[test]
    fn fired_slots_are_taken_once_and_high_slots_share_the_last_bit() {
        let fired = Fired::default();
        assert_eq!(fired.take(), 0);
        fired.note(CONTROL_SLOT);
        fired.note(3);
        fired.note(3);
        assert_eq!(fired.take(), 1 | 1 << 3);
        assert_eq!(fired.take(), 0, "taken once");
        fired.note(63);
        fired.note(500);
        assert_eq!(fired.take(), 1 << HIGH_SLOTS);
    }
}
