//! [`LaneReceiver`]: the receiving end of the lane for one subscription. It attaches to the
//! lanes of the publishers it is told about and gathers their wake-ups in one `epoll` instance
//! (the publishers' iceoryx2 listeners and an eventfd for its own control messages). It owns no
//! thread: its epoll descriptor ([`LaneReceiver::descriptor`]) sits in the wait set of the
//! executor that serves the subscription, and the executor thread that wakes up for it calls
//! [`LaneReceiver::process`], which reads every waiting message and hands each one, a view into
//! the publisher's segment, to the subscription's handler on that same thread: no hand-off.
//!
//! Why epoll and not iceoryx2's `Listener::blocking_wait`: one descriptor serves every publisher
//! of the subscription, the executor waits on it beside everything else it serves, and it saves
//! the four `fcntl` and one `setsockopt` calls `blocking_wait` makes per wake-up.

#![allow(unsafe_code)]

use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use iceoryx2::port::ReceiveError;
use iceoryx2::port::listener::Listener;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;
use iceoryx2::sample::Sample;
use iceoryx2::service::port_factory::event::PortFactory as EventService;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as DataService;
use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::eventfd::{EfdFlags, EventFd};

use super::context::LaneContext;
use super::header::LaneHeader;
use super::{Svc, data_service, event_service};
use crate::stats::LaneFallback;

/// How a subscription receives through the lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiverProfile {
    /// The name its ports carry, which publishers read (zshm uses the subscription's GID).
    pub port_name: String,
    /// Messages queued per publisher before the oldest is overwritten (or the publisher waits).
    pub buffer: usize,
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
    Attach { id: String, history: usize },
    Detach(String),
}

/// The receiving end of one subscription. Whoever serves it waits for its
/// [`descriptor`](Self::descriptor) to be readable, then calls [`process`](Self::process).
pub struct LaneReceiver {
    control: flume::Sender<Control>,
    wake: Arc<Wake>,
    epoll: Epoll,
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
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
        epoll.add(&fd, EpollEvent::new(EpollFlags::EPOLLIN, CONTROL))?;
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
        };
        Ok(Self {
            control,
            wake,
            epoll,
            state: Mutex::new(state),
        })
    }

    /// The descriptor that is readable while something waits to be processed: a message of an
    /// attached publisher, or an attach or detach order.
    pub fn descriptor(&self) -> BorrowedFd<'_> {
        self.epoll.0.as_fd()
    }

    /// Handles everything waiting now: attach and detach orders, then every message of every
    /// publisher that woke the receiver, each handed to the handler on this thread. Never waits.
    pub fn process(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.process(&self.epoll);
    }

    /// Starts receiving the publisher `id` through its lane, with up to `history` of its past
    /// messages; the outcome arrives as [`LaneEvent::Attached`] at the next
    /// [`process`](Self::process).
    pub fn attach(&self, id: &str, history: usize) {
        self.send(Control::Attach {
            id: id.to_owned(),
            history,
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

/// The epoll tag of the control eventfd; publishers' listeners get their slot index + 1.
const CONTROL: u64 = 0;

struct Slot {
    id: String,
    _data: DataService<Svc, [u8], LaneHeader>,
    _event: EventService<Svc>,
    listener: Listener<Svc>,
    subscriber: Subscriber<Svc, [u8], LaneHeader>,
}

struct State {
    ctx: Arc<LaneContext>,
    profile: ReceiverProfile,
    wake: Arc<Wake>,
    queue: flume::Receiver<Control>,
    slots: Vec<Option<Slot>>,
    handler: Box<dyn FnMut(LaneEvent) + Send>,
    warned_borrows: bool,
}

impl State {
    fn process(&mut self, epoll: &Epoll) {
        let mut events = [EpollEvent::empty(); 16];
        loop {
            let ready = match epoll.wait(&mut events, EpollTimeout::ZERO) {
                Ok(n) => n,
                Err(nix::errno::Errno::EINTR) => continue,
                Err(err) => {
                    tracing::error!("lane: the receiver cannot read its wake-ups, epoll failed: {err}");
                    return;
                }
            };
            for event in &events[..ready] {
                match event.data() {
                    CONTROL => {
                        let _ = self.wake.fd.read();
                        self.control(epoll);
                        // A sample given back after a stall rings the same eventfd.
                        for index in 0..self.slots.len() {
                            self.drain(index);
                        }
                    }
                    tag => {
                        // Messages first, the wake-up datagram after: consuming it is a syscall
                        // the message need not wait for. Draining again after it catches a
                        // message sent in between (its wake-up was coalesced into this one).
                        let index = (tag - 1) as usize;
                        self.drain(index);
                        if let Some(Some(slot)) = self.slots.get(index) {
                            let _ = slot.listener.try_wait(|_| {});
                        }
                        self.drain(index);
                    }
                }
            }
            if ready < events.len() {
                return;
            }
        }
    }

    /// Handles the queued control messages.
    fn control(&mut self, epoll: &Epoll) {
        while let Ok(control) = self.queue.try_recv() {
            match control {
                Control::Attach { id, history } => {
                    let result = self.attach(epoll, &id, history);
                    (self.handler)(LaneEvent::Attached { id, result });
                }
                Control::Detach(id) => self.detach(epoll, &id),
            }
        }
    }

    fn attach(&mut self, epoll: &Epoll, id: &str, history: usize) -> Result<(), AttachFailure> {
        if self.slots.iter().flatten().any(|slot| slot.id == id) {
            return Ok(());
        }
        let slot = self.open(id, history)?;
        let index = match self.slots.iter().position(Option::is_none) {
            Some(free) => free,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        // SAFETY: the listener's descriptor stays open while the slot holds the listener, and
        // the slot leaves epoll (in `detach`) before it is dropped.
        let fd = unsafe { BorrowedFd::borrow_raw(slot.listener.file_descriptor().native_handle()) };
        epoll
            .add(fd, EpollEvent::new(EpollFlags::EPOLLIN, index as u64 + 1))
            .map_err(|err| failure(LaneFallback::OpenFailed, format!("epoll: {err}")))?;
        self.slots[index] = Some(slot);
        // Messages (history) may already wait: read them before the first wake-up.
        self.drain(index);
        Ok(())
    }

    /// Opens the publisher's services; the listener comes first, so that a wake-up the publisher
    /// sends as soon as it sees the subscriber is not lost.
    fn open(&self, id: &str, history: usize) -> Result<Slot, AttachFailure> {
        let node = self.ctx.node();
        let name = |name: String| -> Result<ServiceName, AttachFailure> {
            name.as_str()
                .try_into()
                .map_err(|err| failure(LaneFallback::OpenFailed, format!("{err:?}")))
        };
        let event = node
            .service_builder(&name(event_service(id))?)
            .event()
            .open()
            .map_err(classify)?;
        let listener = event.listener_builder().create().map_err(classify)?;
        let data = node
            .service_builder(&name(data_service(id))?)
            .publish_subscribe::<[u8]>()
            .user_header::<LaneHeader>()
            .open()
            .map_err(classify)?;
        let limits = data.static_config();
        let buffer = self.profile.buffer.clamp(1, limits.subscriber_max_buffer_size());
        let port_name = PortName::new(&self.profile.port_name).map_err(classify)?;
        let subscriber = data
            .subscriber_builder()
            .buffer_size(buffer)
            .history_request(history.min(limits.history_size()).min(buffer))
            .name(&port_name)
            .create()
            .map_err(classify)?;
        Ok(Slot {
            id: id.to_owned(),
            _data: data,
            _event: event,
            listener,
            subscriber,
        })
    }

    fn detach(&mut self, epoll: &Epoll, id: &str) {
        let Some(index) = self
            .slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.id == id))
        else {
            return;
        };
        self.drain(index);
        if let Some(slot) = self.slots[index].take() {
            // SAFETY: the listener is still alive here; it is dropped right after.
            let fd = unsafe { BorrowedFd::borrow_raw(slot.listener.file_descriptor().native_handle()) };
            let _ = epoll.delete(fd);
        }
    }

    /// Hands every waiting message of one publisher to the handler.
    fn drain(&mut self, index: usize) {
        loop {
            let Some(Some(slot)) = self.slots.get(index) else {
                return;
            };
            match slot.subscriber.receive() {
                Ok(Some(sample)) => {
                    self.ctx.stats().lane().received(sample.payload().len());
                    let sample = LaneSample {
                        sample,
                        wake: self.wake.clone(),
                    };
                    (self.handler)(LaneEvent::Sample(sample));
                }
                Ok(None) => return,
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
