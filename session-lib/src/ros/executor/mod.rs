//! [`Executor`]: where the callbacks of nodes run, as ROS users know it from rclcpp.
//!
//! An executor serves entities (subscriptions and timers now; services and actions plug in the
//! same way, through the crate's `Waitable` trait) and waits on all of them in one wait set: an
//! `epoll` instance holding one eventfd of its own, the lane doorbell that every lane publisher
//! with a subscription here rings (`lane::doorbell`: one wake-up per burst, whatever the
//! subscriptions it reached) and, for each subscription that receives through the same-host
//! lane, the descriptors of its lane receiver (one per publisher, for publishers that cannot
//! ring the doorbell, and one for its control messages, each tagged with the entity and the
//! receiver's slot). So:
//!
//! * a zenoh message crosses one thread boundary: zenoh's receive thread checks its attachment,
//!   queues it in the subscription's bounded QoS queue, rings the executor's eventfd (once, until
//!   the executor looks again) and returns; it never waits for a callback;
//! * a lane message is read, and its callback run, by the executor thread that woke up for it;
//! * the threads of a process do not grow with its subscriptions: an executor has the threads
//!   it was given (one by default), whatever it serves.
//!
//! [`Executor::single_threaded`] runs one callback at a time; [`Executor::multi_threaded`] runs
//! callbacks of different [`CallbackGroup`]s at once, and of a [`Reentrant`] group too. Either is
//! spun on the caller's thread ([`Executor::spin`], [`spin_once`](Executor::spin_once),
//! [`spin_some`](Executor::spin_some)) or on threads of its own
//! ([`spin_in_background`](Executor::spin_in_background)). A node made without one gets its own
//! single-threaded executor spun on one background thread, so callbacks run without the user
//! doing anything, and callers that want control pass theirs in `NodeOptions::executor`.
//!
//! What an executor looks at: only the entities something happened to. Each source of work
//! puts its entity in the executor's ready queue (a descriptor or the doorbell that fired, a
//! receive path that queued a message from another thread, a wait that ended), so a wake-up
//! costs what woke it, not the number of entities served: an executor of 40 subscriptions that
//! looked at each of them on every wake-up spent more on the looking than on the message, its
//! entities' state being cold in the cache after the other processes ran. Entities that may
//! need the executor at a time (timers, a lane merge waiting for a message) are kept apart, and
//! only they are asked for their deadline.
//!
//! Order of service: the ready queue is first in, first out, and an entity with more work goes
//! to its back after one callback, so a busy topic cannot starve the others; an entity runs one
//! callback at a time (its messages stay in order), and a mutually exclusive group one callback
//! of all its members.
//!
//! A callback that panics is caught: the panic is logged with the entity's name, and the
//! executor goes on with the other callbacks.
//!
//! [`Reentrant`]: CallbackGroupKind::Reentrant

mod group;
pub(crate) mod timer;

pub use group::{CallbackGroup, CallbackGroupKind};
pub use timer::Timer;

use std::cell::Cell;
use std::collections::VecDeque;
use std::os::fd::{AsFd, BorrowedFd};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError, RwLock, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::eventfd::{EfdFlags, EventFd};

/// Something an executor serves: a subscription, a timer, later a service or an action.
///
/// The executor calls [`collect`](Self::collect) and [`execute`](Self::execute) each from one
/// thread at a time, but one thread may collect while another executes: a callback that blocks
/// must not keep its lane messages from being read into its queue (and counted when the queue
/// drops them).
pub(crate) trait Waitable: Send + Sync + 'static {
    /// The descriptor the entity put in the wait set as `slot` (see [`Registration::wait_set`])
    /// became readable; [`collect`](Self::collect) follows. Called by the waiting thread, so it
    /// must be short.
    fn fired(&self, _slot: usize) {}

    /// The entity leaves the executor: take its descriptors out of the wait set.
    fn unwatch(&self) {}

    /// Takes in what waits: what its descriptors signalled (when `signalled`), and the waits
    /// that ended by `now` (see [`deadline`](Self::deadline)). Runs no user callback unless the
    /// entity delivers inline.
    fn collect(&self, _signalled: bool, _now: Instant) {}

    /// True when a callback is ready to run.
    fn is_ready(&self, now: Instant) -> bool;

    /// Runs one ready callback, if any.
    fn execute(&self, now: Instant);

    /// When the entity needs the executor without any event: a timer's next expiry, the end of
    /// a wait of the lane merge.
    fn deadline(&self) -> Option<Instant> {
        None
    }

    /// What the entity is, for logs (a topic, a timer's period).
    fn name(&self) -> String;
}

/// Why an executor cannot spin.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecutorError {
    /// The wait set (epoll, eventfd) or a thread could not be created: the process is out of
    /// descriptors, threads or memory.
    #[error("cannot set up the executor: {0}")]
    Io(#[from] std::io::Error),
    /// The executor is spinning already (one spin at a time, as in rclcpp).
    #[error("the executor is spinning already")]
    AlreadySpinning,
}

/// The epoll tag of the executor's own eventfd; an entity's descriptors get its id (from 1) in
/// the low [`SLOT_SHIFT`] bits and their slot + 1 above.
const WAKE: u64 = 0;

/// The epoll tag of the executor's lane doorbell (no entity tag has nothing above its id).
const DOORBELL: u64 = 1;

/// Where an epoll tag's slot starts: room for 2^40 entity ids and 2^24 slots.
const SLOT_SHIFT: u32 = 40;

/// The epoll tag of an entity's descriptor in `slot`.
fn slot_tag(id: u64, slot: usize) -> u64 {
    id | (slot as u64 + 1) << SLOT_SHIFT
}

/// The entity id and the slot of an epoll tag.
fn untag(tag: u64) -> (u64, usize) {
    (
        tag & ((1 << SLOT_SHIFT) - 1),
        ((tag >> SLOT_SHIFT) as usize).saturating_sub(1),
    )
}

/// Events read from epoll at once.
const EVENTS: usize = 32;

/// Serves the callbacks of nodes. Cheap to clone; clones are the same executor.
#[derive(Clone)]
pub struct Executor {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("threads", &self.shared.threads)
            .field("entities", &self.shared.snapshot().len())
            .finish()
    }
}

impl PartialEq for Executor {
    /// The same executor.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl Eq for Executor {}

struct Shared {
    epoll: Epoll,
    wake: EventFd,
    /// The eventfd was written and nobody read it yet: later wake-ups need no syscall.
    signalled: AtomicBool,
    threads: usize,
    entries: RwLock<Arc<Entries>>,
    next_id: AtomicU64,
    /// Entities that may have work, by id, first in first out; an entity is in it at most once
    /// (see [`Hold::queued`]), or twice for a moment when it was just added.
    ready: Mutex<VecDeque<u64>>,
    /// Entities that may need the executor at a time (see [`Waitable::deadline`]), by id.
    timed: Mutex<Vec<u64>>,
    /// How many `timed` holds, so that an executor without any looks at no lock.
    timed_count: AtomicUsize,
    /// Entities with work whose callback group was busy: queued again when a callback ends.
    blocked: Mutex<Vec<u64>>,
    /// `blocked` may hold an entity, so that a callback's end looks at no lock otherwise.
    any_blocked: AtomicBool,
    spinning: AtomicBool,
    stopping: AtomicBool,
    /// Threads waiting in [`Shared::remove`] for an entity to be given back.
    waiters: AtomicUsize,
    released: (Mutex<()>, Condvar),
    /// The doorbell lane publishers ring for its subscriptions, made when the first one asks
    /// (`None` inside when it could not be).
    doorbell: OnceLock<Option<crate::lane::Doorbell>>,
    /// The doorbell's last take did not settle: take again before waiting.
    doorbell_again: AtomicBool,
}

/// The entities of an executor, as one thread sees them: sorted by id, and by the doorbell's
/// event id (an entity's id modulo [`EVENT_IDS`](crate::lane::EVENT_IDS)).
#[derive(Default)]
struct Entries {
    list: Vec<Arc<Entry>>,
    by_bell: Vec<Vec<Arc<Entry>>>,
}

impl Entries {
    fn with(list: Vec<Arc<Entry>>) -> Self {
        let mut by_bell = vec![Vec::new(); crate::lane::EVENT_IDS as usize];
        for entry in &list {
            by_bell[crate::lane::BellAddress::event_id_of(entry.id) as usize].push(entry.clone());
        }
        Self { list, by_bell }
    }

    fn find(&self, id: u64) -> Option<&Arc<Entry>> {
        self.list
            .binary_search_by_key(&id, |e| e.id)
            .ok()
            .map(|at| &self.list[at])
    }

    fn len(&self) -> usize {
        self.list.len()
    }
}

/// One entity in the executor.
struct Entry {
    id: u64,
    waitable: Arc<dyn Waitable>,
    group: CallbackGroup,
    /// Who holds the entity, shared with its [`Notifier`].
    hold: Arc<Hold>,
    /// One of its descriptors was readable and the entity did not collect since.
    signalled: AtomicBool,
    /// It left the executor: no thread may run it any more.
    removed: AtomicBool,
    /// Lane publishers ring the executor's doorbell for it.
    rings: AtomicBool,
}

/// The two ways a thread holds an entity. Collecting (reading the lane into the queue, popping a
/// sample) is short and excludes other collectors; running a callback excludes other runs of the
/// same entity but not collecting, so a blocked callback stalls neither its receive paths nor
/// the count of what its queue drops.
#[derive(Default)]
struct Hold {
    /// Held by the one thread that collects for the entity or takes its next callback.
    claim: AtomicBool,
    /// A callback of the entity is running.
    running: AtomicBool,
    /// It is in the executor's ready queue: whoever finds it there clears this before it looks.
    queued: AtomicBool,
    /// It is in the executor's timed entities.
    timed: AtomicBool,
}

impl Hold {
    /// Neither collected nor run by anybody.
    fn is_free(&self) -> bool {
        !self.claim.load(Ordering::SeqCst) && !self.running.load(Ordering::SeqCst)
    }
}

thread_local! {
    /// The entity this thread is running a callback of, as (executor, entity id).
    static SERVING: Cell<Option<(usize, u64)>> = const { Cell::new(None) };
}

impl Executor {
    /// An executor that runs one callback at a time, on the thread that spins it.
    pub fn single_threaded() -> Result<Self, ExecutorError> {
        Self::with_threads(1)
    }

    /// An executor spun by `threads` threads (0: as many as the machine has cores, at least 2,
    /// as rclcpp's `MultiThreadedExecutor`). Callbacks of different groups run at once.
    pub fn multi_threaded(threads: usize) -> Result<Self, ExecutorError> {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get().max(2)),
            n => n,
        };
        Self::with_threads(threads)
    }

    fn with_threads(threads: usize) -> Result<Self, ExecutorError> {
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).map_err(std::io::Error::from)?;
        let wake = EventFd::from_value_and_flags(0, EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)
            .map_err(std::io::Error::from)?;
        let shared = Shared {
            epoll,
            wake,
            signalled: AtomicBool::new(false),
            threads,
            entries: RwLock::new(Arc::new(Entries::default())),
            next_id: AtomicU64::new(WAKE + 1),
            ready: Mutex::new(VecDeque::new()),
            timed: Mutex::new(Vec::new()),
            timed_count: AtomicUsize::new(0),
            blocked: Mutex::new(Vec::new()),
            any_blocked: AtomicBool::new(false),
            spinning: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            waiters: AtomicUsize::new(0),
            released: (Mutex::new(()), Condvar::new()),
            doorbell: OnceLock::new(),
            doorbell_again: AtomicBool::new(false),
        };
        shared
            .epoll
            .add(&shared.wake, EpollEvent::new(shared.flags(), WAKE))
            .map_err(std::io::Error::from)?;
        Ok(Self {
            shared: Arc::new(shared),
        })
    }

    /// The threads that spin it.
    pub fn threads(&self) -> usize {
        self.shared.threads
    }

    /// Runs callbacks on this thread (and, for a multi-threaded executor, on `threads - 1` more
    /// that it starts) until [`stop`](Self::stop). A `stop` that came before returns at once.
    pub fn spin(&self) -> Result<(), ExecutorError> {
        let _spinning = self.shared.start_spinning()?;
        let helpers = self.shared.threads - 1;
        std::thread::scope(|scope| {
            let mut started = Vec::with_capacity(helpers);
            for _ in 0..helpers {
                let shared = &self.shared;
                let helper = std::thread::Builder::new()
                    .name("zshm-exec".into())
                    .spawn_scoped(scope, move || shared.spin_until_stopped());
                match helper {
                    Ok(helper) => started.push(helper),
                    Err(err) => {
                        self.shared.request_stop();
                        return Err(ExecutorError::Io(err));
                    }
                }
            }
            self.shared.spin_until_stopped();
            Ok(())
        })?;
        self.shared.stopping.store(false, Ordering::SeqCst);
        Ok(())
    }

    /// Runs at most one callback on this thread, waiting up to `timeout` for one to be ready;
    /// true when one ran.
    pub fn spin_once(&self, timeout: Duration) -> Result<bool, ExecutorError> {
        let _spinning = self.shared.start_spinning()?;
        let deadline = Instant::now() + timeout;
        loop {
            if self.shared.execute_ready() {
                return Ok(true);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(false);
            }
            self.shared.wait(Some(deadline));
        }
    }

    /// Runs, on this thread, the callbacks that are ready now, without waiting for more;
    /// returns how many ran.
    pub fn spin_some(&self) -> Result<usize, ExecutorError> {
        let _spinning = self.shared.start_spinning()?;
        self.shared.wait(Some(Instant::now()));
        let mut ran = 0;
        while self.shared.execute_ready() {
            ran += 1;
        }
        Ok(ran)
    }

    /// Spins on [`threads`](Self::threads) threads of its own (named `zshm-exec`) until the
    /// handle is dropped.
    pub fn spin_in_background(&self) -> Result<SpinHandle, ExecutorError> {
        let spinning = self.shared.start_spinning()?;
        let mut threads = Vec::with_capacity(self.shared.threads);
        for _ in 0..self.shared.threads {
            let shared = self.shared.clone();
            let thread = std::thread::Builder::new()
                .name("zshm-exec".into())
                .spawn(move || shared.spin_until_stopped());
            match thread {
                Ok(thread) => threads.push(thread),
                Err(err) => {
                    let handle = SpinHandle {
                        executor: self.clone(),
                        threads,
                        _spinning: Some(spinning),
                    };
                    drop(handle);
                    return Err(ExecutorError::Io(err));
                }
            }
        }
        Ok(SpinHandle {
            executor: self.clone(),
            threads,
            _spinning: Some(spinning),
        })
    }

    /// Ends the current spin once the callbacks running now return (or the next one, when the
    /// executor is not spinning).
    pub fn stop(&self) {
        self.shared.request_stop();
    }

    /// Adds an entity built by `build`, which gets the [`Notifier`] its receive paths ring when
    /// work arrives from another thread. The entity leaves when the [`Registration`] drops.
    pub(crate) fn add<W: Waitable>(
        &self,
        group: CallbackGroup,
        keep_spinning: Option<Arc<SpinHandle>>,
        build: impl FnOnce(Notifier) -> W,
    ) -> (Arc<W>, Registration) {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let hold = Arc::new(Hold::default());
        let notifier = Notifier {
            shared: Arc::downgrade(&self.shared),
            hold: hold.clone(),
            id,
        };
        let waitable = Arc::new(build(notifier));
        let entry = Arc::new(Entry {
            id,
            waitable: waitable.clone(),
            group,
            hold,
            signalled: AtomicBool::new(false),
            removed: AtomicBool::new(false),
            rings: AtomicBool::new(false),
        });
        {
            let mut entries = self
                .shared
                .entries
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let mut next = entries.list.clone();
            // Sorted by id: another thread may have taken a later id and added it first.
            let at = next.partition_point(|e| e.id < id);
            next.insert(at, entry.clone());
            *entries = Arc::new(Entries::with(next));
        }
        if waitable.deadline().is_some() {
            self.shared.mark_timed(id, &entry.hold);
        }
        // Queued even when a notification before it was in the entities queued it already: that
        // one may have been taken out and found nobody.
        entry.hold.queued.store(true, Ordering::SeqCst);
        self.shared.lock_ready().push_back(id);
        self.shared.signal();
        let registration = Registration {
            executor: self.clone(),
            id,
            _keep_spinning: keep_spinning,
        };
        (waitable, registration)
    }
}

/// Keeps an executor spinning on its own threads; dropping it stops them and waits for them
/// (not for the thread that drops it, when a callback does).
pub struct SpinHandle {
    executor: Executor,
    threads: Vec<JoinHandle<()>>,
    _spinning: Option<Spinning>,
}

impl std::fmt::Debug for SpinHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpinHandle")
            .field("threads", &self.threads.len())
            .finish()
    }
}

impl SpinHandle {
    /// The executor it spins.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }
}

impl Drop for SpinHandle {
    fn drop(&mut self) {
        self.executor.shared.request_stop();
        let me = std::thread::current().id();
        for thread in self.threads.drain(..) {
            if thread.thread().id() != me {
                // A panic escaping the loop already printed its message.
                let _ = thread.join();
            }
        }
        self.executor.shared.stopping.store(false, Ordering::SeqCst);
    }
}

/// Marks an executor as spinning while it lives.
struct Spinning(Arc<Shared>);

impl Drop for Spinning {
    fn drop(&mut self) {
        self.0.spinning.store(false, Ordering::SeqCst);
    }
}

/// What an entity's receive paths ring when work for it arrives from another thread.
#[derive(Clone)]
pub(crate) struct Notifier {
    shared: Weak<Shared>,
    hold: Arc<Hold>,
    id: u64,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}

impl Notifier {
    /// Says the entity has work (queued before this call). No syscall when a thread holds the
    /// entity, collecting or running it (it looks again when it gives it back), or when the
    /// executor was rung already and has not looked since.
    pub(crate) fn notify(&self) {
        // Pairs with the fence after a thread gives the entity back: either that thread sees the
        // work queued before this, or this sees the entity free and rings.
        std::sync::atomic::fence(Ordering::SeqCst);
        if !self.hold.is_free() {
            return;
        }
        if let Some(shared) = self.shared.upgrade() {
            shared.mark_ready(self.id, &self.hold);
            shared.signal();
        }
    }

    /// Says the entity's [`Waitable::deadline`] may now be earlier than it was (a wait began):
    /// the executor asks it from now on, and a thread waiting wakes to count it in its timeout.
    pub(crate) fn deadline_moved(&self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.mark_timed(self.id, &self.hold);
            shared.signal();
        }
    }
}

/// An entity's place in an executor; it leaves when this drops, after a callback of it that is
/// running returns (unless the callback itself drops it).
pub(crate) struct Registration {
    executor: Executor,
    id: u64,
    // Dropped last: a node's own executor spins while any of its entities lives.
    _keep_spinning: Option<Arc<SpinHandle>>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration").field("id", &self.id).finish()
    }
}

impl Registration {
    /// The executor's wait set, for the entity's descriptors (its lane receiver's): each one
    /// that becomes readable reaches the entity's [`Waitable::fired`] with its slot, and then
    /// its [`Waitable::collect`].
    pub(crate) fn wait_set(&self) -> Arc<dyn crate::lane::WaitSet> {
        Arc::new(EntityWaitSet {
            shared: Arc::downgrade(&self.executor.shared),
            id: self.id,
        })
    }
}

/// The executor's epoll set as one entity's [`WaitSet`](crate::lane::WaitSet). It holds the
/// executor weakly: the entity, which holds this, is held by the executor.
struct EntityWaitSet {
    shared: Weak<Shared>,
    id: u64,
}

impl crate::lane::WaitSet for EntityWaitSet {
    fn add(&self, fd: BorrowedFd<'_>, slot: usize) -> std::io::Result<()> {
        let Some(shared) = self.shared.upgrade() else {
            return Ok(());
        };
        shared
            .epoll
            .add(fd, EpollEvent::new(shared.flags(), slot_tag(self.id, slot)))
            .map_err(std::io::Error::from)
    }

    fn remove(&self, fd: BorrowedFd<'_>) {
        if let Some(shared) = self.shared.upgrade() {
            let _ = shared.epoll.delete(fd);
        }
    }

    fn rearm(&self, fd: BorrowedFd<'_>, slot: usize) {
        if let Some(shared) = self.shared.upgrade() {
            shared.rearm(fd, slot_tag(self.id, slot));
        }
    }

    fn doorbell(&self, ctx: &crate::lane::LaneContext) -> Option<crate::lane::BellAddress> {
        let shared = self.shared.upgrade()?;
        let doorbell = shared.doorbell.get_or_init(|| {
            let dir = ctx.rings().dir();
            let doorbell = crate::lane::Doorbell::create(dir)
                .and_then(|doorbell| {
                    shared
                        .epoll
                        .add(doorbell.descriptor(), EpollEvent::new(shared.flags(), DOORBELL))
                        .map_err(|err| crate::lane::DoorbellError {
                            dir: dir.to_owned(),
                            error: format!("epoll: {err}"),
                        })?;
                    Ok(doorbell)
                })
                .inspect_err(|err| {
                    tracing::warn!("{err}; its lane subscriptions are woken by each publisher instead")
                });
            doorbell.ok()
        });
        let doorbell = doorbell.as_ref()?;
        shared
            .snapshot()
            .find(self.id)?
            .rings
            .store(true, Ordering::SeqCst);
        Some(crate::lane::BellAddress {
            key: doorbell.key().to_owned(),
            event_id: crate::lane::BellAddress::event_id_of(self.id),
        })
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.executor.shared.remove(self.id);
    }
}

impl Shared {
    /// Level-triggered for one thread; one-shot for several, so that one event wakes one thread,
    /// which arms the descriptor again once it took in what waited.
    fn flags(&self) -> EpollFlags {
        if self.threads > 1 {
            EpollFlags::EPOLLIN | EpollFlags::EPOLLONESHOT
        } else {
            EpollFlags::EPOLLIN
        }
    }

    fn start_spinning(self: &Arc<Self>) -> Result<Spinning, ExecutorError> {
        self.spinning
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::Relaxed)
            .map_err(|_| ExecutorError::AlreadySpinning)?;
        Ok(Spinning(self.clone()))
    }

    fn snapshot(&self) -> Arc<Entries> {
        self.entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn lock_ready(&self) -> std::sync::MutexGuard<'_, VecDeque<u64>> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Puts the entity `id` in the ready queue unless it is there already.
    fn mark_ready(&self, id: u64, hold: &Hold) {
        if !hold.queued.swap(true, Ordering::SeqCst) {
            self.lock_ready().push_back(id);
        }
    }

    /// Puts the entity `id` among the timed ones unless it is there already.
    fn mark_timed(&self, id: u64, hold: &Hold) {
        if !hold.timed.swap(true, Ordering::SeqCst) {
            let mut timed = self.timed.lock().unwrap_or_else(PoisonError::into_inner);
            timed.push(id);
            self.timed_count.store(timed.len(), Ordering::SeqCst);
        }
    }

    /// The earliest deadline of the timed entities, and those whose deadline passed by `now`
    /// queued; an entity without a deadline any more leaves the timed ones.
    fn look_at_timed(&self, entries: &Entries, now: Instant) -> Option<Instant> {
        // An entity that becomes timed after this look rings the executor (`deadline_moved`).
        if self.timed_count.load(Ordering::SeqCst) == 0 {
            return None;
        }
        let mut timed = self.timed.lock().unwrap_or_else(PoisonError::into_inner);
        let mut earliest: Option<Instant> = None;
        timed.retain(|&id| {
            let Some(entry) = entries.find(id) else {
                return false;
            };
            // Cleared before asking: a wait that begins after the question puts it back.
            entry.hold.timed.store(false, Ordering::SeqCst);
            let Some(at) = entry.waitable.deadline() else {
                return false;
            };
            entry.hold.timed.store(true, Ordering::SeqCst);
            earliest = Some(earliest.map_or(at, |e| e.min(at)));
            if at <= now {
                self.mark_ready(id, &entry.hold);
            }
            true
        });
        // A wait that began while the flag was down may have put its entity in a second time.
        timed.sort_unstable();
        timed.dedup();
        self.timed_count.store(timed.len(), Ordering::SeqCst);
        earliest
    }

    /// Rings the eventfd, unless it was rung already and nobody looked since.
    fn signal(&self) {
        if !self.signalled.swap(true, Ordering::SeqCst) {
            self.ring();
        }
    }

    fn ring(&self) {
        if let Err(err) = self.wake.write(1) {
            tracing::debug!("executor: cannot ring the eventfd: {err}");
        }
    }

    fn request_stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Past the coalescing flag: every spinning thread must see it. Each one that stops rings
        // again for the next.
        self.ring();
    }

    fn spin_until_stopped(&self) {
        while !self.stopping.load(Ordering::SeqCst) {
            if !self.execute_ready() {
                self.wait(None);
            }
        }
        self.ring();
    }

    /// Waits until an event, the earliest entity deadline or `until`; queues what woke it.
    fn wait(&self, until: Option<Instant>) {
        let entries = self.snapshot();
        if self.doorbell_again.swap(false, Ordering::SeqCst) {
            // Its descriptor is not armed until a take settles (see `Doorbell::take`).
            self.answer_doorbell(&entries);
            return;
        }
        let now = Instant::now();
        let deadline = self.look_at_timed(&entries, now).into_iter().chain(until).min();
        // A deadline passed, or work came since the caller looked: only what waits is noted.
        let ready_now = !self.lock_ready().is_empty();
        let timeout = match deadline {
            _ if ready_now => EpollTimeout::ZERO,
            None => EpollTimeout::NONE,
            Some(at) => {
                // Rounded up to the next millisecond: waking early would spin until it is time.
                let left = at.saturating_duration_since(now);
                let ms = left.as_micros().div_ceil(1000);
                EpollTimeout::try_from(Duration::from_millis(ms as u64)).unwrap_or(EpollTimeout::MAX)
            }
        };
        let mut events = [EpollEvent::empty(); EVENTS];
        let ready = match self.epoll.wait(&mut events, timeout) {
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) => return,
            Err(err) => {
                tracing::error!("executor: epoll failed, waiting a moment before retrying: {err}");
                std::thread::sleep(Duration::from_millis(10));
                return;
            }
        };
        // Looked up in the entities as they are now: an entity added while this thread waited
        // may have signalled already, and a one-shot event not noted here would never come back.
        let entries = if ready > 0 { self.snapshot() } else { entries };
        for event in &events[..ready] {
            match event.data() {
                WAKE => {
                    let _ = self.wake.read();
                    self.signalled.store(false, Ordering::SeqCst);
                    self.rearm(self.wake.as_fd(), WAKE);
                }
                DOORBELL => self.answer_doorbell(&entries),
                tag => {
                    let (id, slot) = untag(tag);
                    if let Some(entry) = entries.find(id) {
                        self.fired(entry, slot);
                    }
                }
            }
        }
    }

    /// One of the entity's descriptors, `slot`, was readable: noted, and the entity queued.
    fn fired(&self, entry: &Entry, slot: usize) {
        // The slot first: whoever sees the entity signalled finds it noted.
        entry.waitable.fired(slot);
        entry.signalled.store(true, Ordering::SeqCst);
        self.mark_ready(entry.id, &entry.hold);
    }

    /// Takes the doorbell's rings and queues the lane subscriptions they were for.
    fn answer_doorbell(&self, entries: &Entries) {
        let Some(Some(doorbell)) = self.doorbell.get() else {
            return;
        };
        // Taken before the entities look: a ring after this wakes a thread again.
        let taken = doorbell.take();
        if taken.settled {
            self.rearm(doorbell.descriptor(), DOORBELL);
        } else {
            self.doorbell_again.store(true, Ordering::SeqCst);
        }
        let mut rung = taken.rung;
        while rung != 0 {
            let bell = rung.trailing_zeros() as usize;
            rung &= rung - 1;
            for entry in entries.by_bell.get(bell).into_iter().flatten() {
                if entry.rings.load(Ordering::SeqCst) {
                    self.fired(entry, crate::lane::DOORBELL_SLOT);
                }
            }
        }
    }

    fn rearm(&self, fd: BorrowedFd<'_>, tag: u64) {
        if self.threads > 1
            && let Err(err) = self.epoll.modify(fd, &mut EpollEvent::new(self.flags(), tag))
        {
            tracing::debug!("executor: cannot arm a descriptor again: {err}");
        }
    }

    /// Runs one ready callback, if any; true when one ran.
    fn execute_ready(&self) -> bool {
        let entries = self.snapshot();
        if entries.len() == 0 {
            return false;
        }
        let now = Instant::now();
        self.look_at_timed(&entries, now);
        // At most as many as were queued when it began: what it queues again waits for the
        // next look, after the others.
        let queued = self.lock_ready().len();
        for _ in 0..queued {
            let Some(id) = self.lock_ready().pop_front() else {
                return false;
            };
            let Some(entry) = entries.find(id) else {
                continue;
            };
            // Cleared before it looks: work that arrives after the look queues the entity again.
            entry.hold.queued.store(false, Ordering::SeqCst);
            if self.try_serve(entry, &entries, now) {
                return true;
            }
        }
        false
    }

    /// Holds `entry` and serves it; true when a callback ran.
    ///
    /// Work that arrives while a thread holds an entity rings nobody (see [`Notifier::notify`]),
    /// and a thread that finds the entity held moves on: so whoever gives the entity back looks
    /// once more, after a fence, and queues it again (or serves it) if work came meanwhile. An
    /// entity with work whose group is busy waits among the blocked ones until a callback ends.
    fn try_serve(&self, entry: &Entry, entries: &Entries, now: Instant) -> bool {
        loop {
            if entry
                .hold
                .claim
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                return false;
            }
            let entered = !entry.removed.load(Ordering::SeqCst) && self.collect_and_enter(entry, now);
            // Given back before the callback runs: another thread may read the entity's lane
            // into its queue meanwhile.
            entry.hold.claim.store(false, Ordering::SeqCst);
            if entered {
                self.run(entry, now);
            }
            std::sync::atomic::fence(Ordering::SeqCst);
            self.wake_removers();
            if entry.removed.load(Ordering::SeqCst) {
                return entered;
            }
            let more = entry.signalled.load(Ordering::SeqCst)
                || entry.waitable.deadline().is_some_and(|at| at <= now)
                || entry.waitable.is_ready(now);
            if entered {
                if more {
                    self.mark_ready(entry.id, &entry.hold);
                }
                if self.threads > 1 && !self.lock_ready().is_empty() {
                    self.signal();
                }
                return true;
            }
            if !more || entry.hold.running.load(Ordering::SeqCst) {
                // Nothing to do, or the thread running its callback looks again when it ends.
                return false;
            }
            if !entry.group.is_free() {
                self.block(entry, entries);
                return false;
            }
        }
    }

    /// Keeps an entity with work aside until its busy group is free.
    fn block(&self, entry: &Entry, entries: &Entries) {
        {
            let mut blocked = self.blocked.lock().unwrap_or_else(PoisonError::into_inner);
            blocked.push(entry.id);
            self.any_blocked.store(true, Ordering::SeqCst);
        }
        // The callback that held the group may have ended before the entity was kept aside.
        if entry.group.is_free() {
            self.unblock(entries);
        }
    }

    /// Queues again the entities kept aside for a busy group (a callback ended).
    fn unblock(&self, entries: &Entries) {
        let blocked = {
            let mut blocked = self.blocked.lock().unwrap_or_else(PoisonError::into_inner);
            self.any_blocked.store(false, Ordering::SeqCst);
            std::mem::take(&mut *blocked)
        };
        for id in blocked {
            if let Some(entry) = entries.find(id) {
                self.mark_ready(id, &entry.hold);
            }
        }
    }

    /// Collects what waits for an entity this thread claimed; when a callback of it is ready,
    /// none of it runs and its group is free, enters the group and marks the entity running.
    /// True when this thread is now to run the callback.
    fn collect_and_enter(&self, entry: &Entry, now: Instant) -> bool {
        let signalled = entry.signalled.swap(false, Ordering::SeqCst);
        if signalled || entry.waitable.deadline().is_some_and(|at| at <= now) {
            // Arms its descriptors again itself, once it took in what they signalled.
            entry.waitable.collect(signalled, now);
        }
        if entry.hold.running.load(Ordering::SeqCst) || !entry.waitable.is_ready(now) {
            return false;
        }
        if !entry.group.try_enter() {
            return false;
        }
        entry.hold.running.store(true, Ordering::SeqCst);
        true
    }

    /// Runs one callback of an entity this thread marked running, then gives the run back.
    fn run(&self, entry: &Entry, now: Instant) {
        // Another thread may take the rest while this one runs the callback.
        if self.threads > 1 && !self.lock_ready().is_empty() {
            self.signal();
        }
        let me = (self as *const Shared as usize, entry.id);
        let before = SERVING.replace(Some(me));
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| entry.waitable.execute(now)));
        SERVING.set(before);
        entry.group.leave();
        entry.hold.running.store(false, Ordering::SeqCst);
        if self.any_blocked.load(Ordering::SeqCst) {
            self.unblock(&self.snapshot());
        }
        if outcome.is_err() {
            tracing::error!(
                entity = entry.waitable.name(),
                "a callback panicked (its message is above); the executor goes on"
            );
        }
    }

    /// Tells the threads waiting in [`remove`](Self::remove) that an entity was given back.
    fn wake_removers(&self) {
        if self.waiters.load(Ordering::SeqCst) > 0 {
            let _lock = self.released.0.lock().unwrap_or_else(PoisonError::into_inner);
            self.released.1.notify_all();
        }
    }

    /// Takes an entity out; waits until no thread holds it, unless this thread runs its callback.
    fn remove(&self, id: u64) {
        let entry = {
            let mut entries = self.entries.write().unwrap_or_else(PoisonError::into_inner);
            let Some(at) = entries.list.iter().position(|e| e.id == id) else {
                return;
            };
            let mut next = entries.list.clone();
            let entry = next.remove(at);
            *entries = Arc::new(Entries::with(next));
            entry
        };
        entry.removed.store(true, Ordering::SeqCst);
        entry.waitable.unwatch();
        if SERVING.get() == Some((self as *const Shared as usize, id)) {
            return;
        }
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let mut lock = self.released.0.lock().unwrap_or_else(PoisonError::into_inner);
        while !entry.hold.is_free() {
            lock = self.released.1.wait(lock).unwrap_or_else(PoisonError::into_inner);
        }
        drop(lock);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_tag_gives_back_its_entity_and_slot() {
        for (id, slot) in [
            (1, 0),
            (1, 1),
            (7, 62),
            (7, 63),
            ((1 << SLOT_SHIFT) - 1, (1 << 24) - 2),
        ] {
            let tag = slot_tag(id, slot);
            assert_ne!(tag, WAKE);
            assert_ne!(tag, DOORBELL);
            assert_ne!(tag, id, "a slot's tag is not the entity's own");
            assert_eq!(untag(tag), (id, slot));
        }
    }

    /// An entity that counts how often the executor asks it whether it has work.
    struct Counted {
        work: AtomicUsize,
        ran: AtomicUsize,
        asked: AtomicUsize,
        notifier: Notifier,
    }

    impl Counted {
        fn new(notifier: Notifier) -> Self {
            Self {
                work: AtomicUsize::new(0),
                ran: AtomicUsize::new(0),
                asked: AtomicUsize::new(0),
                notifier,
            }
        }

        /// Work from another thread, as a receive path queues a message.
        fn give(&self) {
            self.work.fetch_add(1, Ordering::SeqCst);
            self.notifier.notify();
        }
    }

    impl Waitable for Counted {
        fn is_ready(&self, _now: Instant) -> bool {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.work.load(Ordering::SeqCst) > 0
        }

        fn execute(&self, _now: Instant) {
            if self.work.load(Ordering::SeqCst) > 0 {
                self.work.fetch_sub(1, Ordering::SeqCst);
                self.ran.fetch_add(1, Ordering::SeqCst);
            }
        }

        fn deadline(&self) -> Option<Instant> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            None
        }

        fn name(&self) -> String {
            "counted".into()
        }
    }

    fn until(what: &str, done: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done() {
            assert!(Instant::now() < deadline, "timed out waiting until {what}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_wake_up_looks_only_at_the_entity_that_has_work() {
        for threads in [1, 2] {
            let executor = Executor::multi_threaded(threads).unwrap();
            let mut registrations = Vec::new();
            let mut idle = Vec::new();
            for _ in 0..40 {
                let group = CallbackGroup::new(CallbackGroupKind::MutuallyExclusive);
                let (entity, registration) = executor.add(group, None, Counted::new);
                idle.push(entity);
                registrations.push(registration);
            }
            let group = CallbackGroup::new(CallbackGroupKind::MutuallyExclusive);
            let (busy, _registration) = executor.add(group, None, Counted::new);
            let _spinning = executor.spin_in_background().unwrap();
            let asked_idle = || idle.iter().map(|e| e.asked.load(Ordering::SeqCst)).sum::<usize>();
            // Each entity is looked at when it is added: served once, they are all past it.
            for entity in &idle {
                entity.give();
            }
            until("every entity ran once", || {
                idle.iter().all(|e| e.ran.load(Ordering::SeqCst) == 1)
            });
            let before = asked_idle();
            for n in 1..=200 {
                busy.give();
                until("the callback ran", || busy.ran.load(Ordering::SeqCst) == n);
            }
            // A look that was ending as the count was taken may add a few asks; an executor that
            // looked at every entity on every wake-up asked at least 40 × 200.
            let asked = asked_idle() - before;
            assert!(
                asked < idle.len(),
                "{threads} thread(s): 200 messages of one entity asked the 40 idle ones {asked} times"
            );
            // And an idle one that gets work is served.
            idle[17].give();
            until("the idle entity ran", || idle[17].ran.load(Ordering::SeqCst) == 2);
        }
    }

    #[test]
    fn work_that_waits_for_a_busy_group_runs_when_the_group_frees() {
        let executor = Executor::multi_threaded(2).unwrap();
        let group = CallbackGroup::new(CallbackGroupKind::MutuallyExclusive);
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Mutex::new(gate);
        let (started_tx, started) = std::sync::mpsc::channel::<()>();
        let started_tx = Mutex::new(started_tx);
        // The first entity's callback holds the group until the test lets it go.
        struct Holding {
            inner: Counted,
            gate: Mutex<std::sync::mpsc::Receiver<()>>,
            started: Mutex<std::sync::mpsc::Sender<()>>,
        }
        impl Waitable for Holding {
            fn is_ready(&self, now: Instant) -> bool {
                self.inner.is_ready(now)
            }
            fn execute(&self, now: Instant) {
                let _ = self.started.lock().unwrap().send(());
                let _ = self.gate.lock().unwrap().recv_timeout(Duration::from_secs(20));
                self.inner.execute(now);
            }
            fn name(&self) -> String {
                "holding".into()
            }
        }
        let (holding, _first) = executor.add(group.clone(), None, |notifier| Holding {
            inner: Counted::new(notifier),
            gate,
            started: started_tx,
        });
        let (waiting, _second) = executor.add(group, None, Counted::new);
        let _spinning = executor.spin_in_background().unwrap();
        holding.inner.give();
        started
            .recv_timeout(Duration::from_secs(20))
            .expect("the first callback started");
        // The other thread looks at it, finds the group busy and keeps the work aside.
        let asked = waiting.asked.load(Ordering::SeqCst);
        waiting.give();
        until("the other thread looked at the waiting entity", || {
            waiting.asked.load(Ordering::SeqCst) > asked + 1
        });
        assert_eq!(
            waiting.ran.load(Ordering::SeqCst),
            0,
            "not while the group is held"
        );
        release.send(()).unwrap();
        until("the waiting entity ran", || {
            waiting.ran.load(Ordering::SeqCst) == 1
        });
        assert_eq!(holding.inner.ran.load(Ordering::SeqCst), 1);
    }
}
