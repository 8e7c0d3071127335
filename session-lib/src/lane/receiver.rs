//! [`LaneReceiver`]: the receiving end of the lane for one subscription. It attaches to the
//! lanes of the publishers it is told about and runs one thread that sleeps until one of them
//! sends: the thread waits in `epoll` on the publishers' iceoryx2 listeners and on an eventfd
//! for its own control messages, then reads every waiting message and hands each one, a view
//! into the publisher's segment, to the subscription's handler.
//!
//! Why epoll and not iceoryx2's `Listener::blocking_wait`: one thread serves every publisher of
//! the subscription, it stops at once without a message from another process, and it saves the
//! four `fcntl` and one `setsockopt` calls `blocking_wait` makes per wake-up.

#![allow(unsafe_code)]

use std::os::fd::BorrowedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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

/// What the receiving thread hands to the subscription.
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
    /// The deadline the handler asked for has passed.
    Tick,
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

/// The eventfd that wakes the thread, and whether it waits for borrowed samples to come back.
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
    Stop,
}

/// The receiving end of one subscription; stops its thread when dropped.
#[derive(Debug)]
pub struct LaneReceiver {
    control: flume::Sender<Control>,
    wake: Arc<Wake>,
    thread: Option<JoinHandle<()>>,
}

/// What the handler returns: when it wants a [`LaneEvent::Tick`] (its earliest deadline).
pub type Deadline = Option<Instant>;

impl LaneReceiver {
    /// Starts the thread. `handler` gets every [`LaneEvent`] on it and returns its next deadline.
    pub fn spawn(
        ctx: Arc<LaneContext>,
        profile: ReceiverProfile,
        handler: impl FnMut(LaneEvent) -> Deadline + Send + 'static,
    ) -> std::io::Result<Self> {
        let fd = EventFd::from_value_and_flags(0, EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)?;
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
        epoll.add(&fd, EpollEvent::new(EpollFlags::EPOLLIN, CONTROL))?;
        let wake = Arc::new(Wake {
            fd,
            stalled: AtomicBool::new(false),
        });
        let (control, queue) = flume::unbounded();
        let mut thread = Thread {
            ctx,
            profile,
            epoll,
            wake: wake.clone(),
            queue,
            slots: Vec::new(),
            handler: Box::new(handler),
            deadline: None,
            warned_borrows: false,
        };
        let thread = std::thread::Builder::new()
            .name("zshm-lane".into())
            .spawn(move || thread.run())?;
        Ok(Self {
            control,
            wake,
            thread: Some(thread),
        })
    }

    /// Starts receiving the publisher `id` through its lane, with up to `history` of its past
    /// messages; the outcome arrives as [`LaneEvent::Attached`].
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
        // The thread only stops when this receiver is dropped, so it is there to receive.
        let _ = self.control.send(control);
        self.wake.ring();
    }
}

impl Drop for LaneReceiver {
    fn drop(&mut self) {
        self.send(Control::Stop);
        if let Some(thread) = self.thread.take()
            && thread.thread().id() != std::thread::current().id()
        {
            let _ = thread.join();
        }
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

struct Thread {
    ctx: Arc<LaneContext>,
    profile: ReceiverProfile,
    epoll: Epoll,
    wake: Arc<Wake>,
    queue: flume::Receiver<Control>,
    slots: Vec<Option<Slot>>,
    handler: Box<dyn FnMut(LaneEvent) -> Deadline + Send>,
    deadline: Deadline,
    warned_borrows: bool,
}

impl Thread {
    fn run(&mut self) {
        let mut events = [EpollEvent::empty(); 16];
        loop {
            let timeout = match self.deadline {
                None => EpollTimeout::NONE,
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now()) + Duration::from_millis(1);
                    EpollTimeout::try_from(left).unwrap_or(EpollTimeout::MAX)
                }
            };
            let ready = match self.epoll.wait(&mut events, timeout) {
                Ok(n) => n,
                Err(nix::errno::Errno::EINTR) => continue,
                Err(err) => {
                    tracing::error!("lane: the receiver stopped, epoll failed: {err}");
                    return;
                }
            };
            for event in &events[..ready] {
                match event.data() {
                    CONTROL => {
                        let _ = self.wake.fd.read();
                        if !self.control() {
                            return;
                        }
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
            if self.deadline.is_some_and(|at| at <= Instant::now()) {
                self.deadline = (self.handler)(LaneEvent::Tick);
            }
        }
    }

    /// Handles the queued control messages; false once told to stop.
    fn control(&mut self) -> bool {
        while let Ok(control) = self.queue.try_recv() {
            match control {
                Control::Attach { id, history } => {
                    let result = self.attach(&id, history);
                    self.deadline = (self.handler)(LaneEvent::Attached { id, result });
                }
                Control::Detach(id) => self.detach(&id),
                Control::Stop => return false,
            }
        }
        true
    }

    fn attach(&mut self, id: &str, history: usize) -> Result<(), AttachFailure> {
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
        self.epoll
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

    fn detach(&mut self, id: &str) {
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
            let _ = self.epoll.delete(fd);
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
                    self.deadline = (self.handler)(LaneEvent::Sample(sample));
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
