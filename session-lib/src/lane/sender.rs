//! [`LaneSender`]: the publishing end of the lane. One iceoryx2 publish-subscribe service and
//! one event service per zshm publisher, named after it; messages are written in place in the
//! publisher's segment ([`LaneLoan`]) and each send rings the subscribers' doorbells
//! ([`super::doorbell`]), or wakes those without one through the publisher's event.
//!
//! The services grow with the subscribers, in generations ([`super::generation`]).
//!
//! The segment is static and sized from what is published: it starts with room for 4 KiB
//! messages, and a larger message re-creates the port with a segment at least twice as big. The
//! port exists from the start because a subscriber connects to the ports it finds when it
//! attaches; one that arrives later is connected only at the subscriber's next wake-up, and
//! iceoryx2 drops what a blocking publisher sends to an unconnected, full subscriber.
//! iceoryx2's dynamic segments were not used: they panic when they must grow in sample count
//! and stop growing after 255 sizes. Only the pages written are memory: the segment is a sparse
//! file whose free list hands out the most recently freed buffer first.
//!
//! Because the file is sparse, the first write to a buffer allocates its pages in /dev/shm, and
//! on a full tmpfs that write kills the process with SIGBUS (measured: a camera whose new
//! subscriber needed fresh buffers after /dev/shm filled up died with exit 135). So each buffer's
//! pages are reserved once, with `madvise(MADV_POPULATE_WRITE)`, before it is handed out: on a
//! full /dev/shm that call fails instead, and the message goes through zenoh (counted).

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::update_connections::UpdateConnections;
use iceoryx2::port::{BackpressureAction, BackpressureInfo};
use iceoryx2::prelude::*;
use iceoryx2::sample_mut::SampleMut;

use super::context::LaneContext;
use super::doorbell::{BellAddress, Bells};
use super::generation::{self, Services};
use super::header::LaneHeader;
use super::profile::SenderProfile;
use super::{MAX_LOANS, Svc};

/// The largest message the first segment holds; larger ones grow it.
const FIRST_MAX_LEN: usize = 4096;

/// How long a RELIABLE + KEEP_ALL publisher waits for a full subscriber before it gives up on
/// that subscriber for this message (counted): a stuck or dead process must not stop it forever.
pub const BLOCK_LIMIT: Duration = Duration::from_secs(1);

/// Why the lane could not be set up or could not take a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaneSendError {
    /// The publisher's services could not be created.
    #[error("iceoryx2 could not create the lane of `{id}`: {error}")]
    Create {
        /// The publisher's lane id.
        id: String,
        /// iceoryx2's error.
        error: String,
    },
    /// /dev/shm has no room for the pages of a buffer not used before.
    #[error(
        "no room in /dev/shm for a {len}-byte lane buffer ({error}); fix: free space in /dev/shm or enlarge it"
    )]
    NoRoom {
        /// The size asked for.
        len: usize,
        /// The system's error.
        error: String,
    },
    /// No buffer could be loaned.
    #[error("iceoryx2 could not loan {len} bytes: {error}")]
    Loan {
        /// The size asked for.
        len: usize,
        /// iceoryx2's error.
        error: String,
    },
    /// The message could not be sent.
    #[error("iceoryx2 could not send: {error}")]
    Send {
        /// iceoryx2's error.
        error: String,
    },
}

/// The publishing end of one publisher's lane.
#[derive(Debug)]
pub struct LaneSender {
    ctx: Arc<LaneContext>,
    id: String,
    profile: SenderProfile,
    /// The generation the publisher sends in; replaced whole when it moves to a higher one.
    current: RwLock<Generation>,
    /// Generation 0's services, kept while the publisher lives: a subscriber looks there first,
    /// and a lane whose generation 0 is gone looks like a publisher without a lane.
    first: Services,
    warned_blocked: Arc<AtomicBool>,
}

/// The publisher's side of one generation of its lane.
#[derive(Debug)]
struct Generation {
    number: u32,
    services: Services,
    /// The publisher's own wake-up event, for subscribers without a doorbell it can ring.
    notifier: Notifier<Svc>,
    /// The subscribers' doorbells ([`super::doorbell`]).
    bells: Mutex<Bells>,
    port: Mutex<Option<Port>>,
}

#[derive(Debug)]
struct Port {
    publisher: Publisher<Svc, [u8], LaneHeader>,
    max_len: usize,
    /// Buffers whose pages are reserved in /dev/shm: start address → bytes reserved.
    reserved: HashMap<usize, usize>,
}

/// A buffer in the publisher's lane segment, written in place and sent without a copy.
#[derive(Debug)]
pub struct LaneLoan {
    sample: SampleMut<Svc, [u8], LaneHeader>,
    /// The generation whose segment holds it.
    generation: u32,
}

impl LaneLoan {
    /// The bytes to fill.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.sample.payload_mut()
    }

    /// The bytes written so far.
    pub fn bytes(&self) -> &[u8] {
        self.sample.payload()
    }
}

/// What became of a sent loan.
#[derive(Debug)]
pub enum Sent {
    /// Sent through the lane.
    Reached,
    /// Not sent: the publisher moved to a higher generation after the loan was taken, and the
    /// subscribers of the loan's generation are leaving it. Send its bytes another way.
    Moved(LaneLoan),
}

impl LaneSender {
    /// Creates the services of the publisher `id` (blocking, a few milliseconds). Subscribers
    /// find them by that id, so they must exist before the publisher announces itself.
    pub fn create(ctx: Arc<LaneContext>, id: &str, profile: SenderProfile) -> Result<Self, LaneSendError> {
        let first = generation::services(ctx.node(), id, 0, profile, true).map_err(|error| {
            LaneSendError::Create {
                id: id.to_owned(),
                error,
            }
        })?;
        let current = Self::enter(&ctx, id, 0, profile)?;
        let sender = Self {
            ctx,
            id: id.to_owned(),
            profile,
            current: RwLock::new(current),
            first,
            warned_blocked: Arc::default(),
        };
        let generation = sender.current.read().expect("not shared yet");
        let port = sender.port_of(&generation.services, FIRST_MAX_LEN)?;
        *generation.port.lock().expect("not shared yet") = Some(port);
        drop(generation);
        Ok(sender)
    }

    /// Opens (or creates) generation `number` for publishing, without a port yet.
    fn enter(
        ctx: &LaneContext,
        id: &str,
        number: u32,
        profile: SenderProfile,
    ) -> Result<Generation, LaneSendError> {
        let failed = |error: String| LaneSendError::Create {
            id: id.to_owned(),
            error,
        };
        let services = generation::services(ctx.node(), id, number, profile, true).map_err(failed)?;
        let notifier = services
            .event
            .notifier_builder()
            .create()
            .map_err(|err| failed(format!("{err:?}")))?;
        Ok(Generation {
            number,
            services,
            notifier,
            bells: Mutex::default(),
            port: Mutex::new(None),
        })
    }

    fn generation(&self) -> std::sync::RwLockReadGuard<'_, Generation> {
        self.current.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a send may wait for full subscribers (RELIABLE + KEEP_ALL).
    pub fn is_blocking(&self) -> bool {
        self.profile.blocking
    }

    /// Subscribers connected now to the generation it sends in (a dead process's stay counted
    /// until the dead-node cleanup).
    pub fn subscriber_count(&self) -> usize {
        self.generation()
            .services
            .data
            .dynamic_config()
            .number_of_subscribers()
    }

    /// The generation it sends in ([`super::generation`]).
    pub fn generation_number(&self) -> u32 {
        self.generation().number
    }

    /// The names of the connected subscribers (zshm names them after their GID), without the
    /// doorbell their port names carry.
    pub fn subscriber_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.generation()
            .services
            .data
            .dynamic_config()
            .list_subscribers(|details| {
                names.push(BellAddress::parse(details.subscriber_name.as_str()).0.to_owned());
                CallbackProgression::Continue
            });
        names
    }

    /// Whether the generation it sends in has no room for another subscriber.
    pub fn is_full(&self) -> bool {
        let current = self.generation();
        current.services.data.dynamic_config().number_of_subscribers() >= generation::capacity(current.number)
    }

    /// Moves to the highest generation that exists, when a subscriber created one above the
    /// current to wait in ([`super::generation`]); true when it moved. Blocking: it waits for
    /// sends in progress, a blocking one up to [`BLOCK_LIMIT`].
    pub fn grow_if_asked(&self) -> bool {
        let (from, max_len) = {
            let current = self.generation();
            if current.number >= generation::LAST_GENERATION {
                return false;
            }
            let max_len = current
                .port
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref()
                .map_or(FIRST_MAX_LEN, |port| port.max_len);
            (current.number, max_len)
        };
        let to = generation::highest(self.ctx.node(), &self.id, from);
        if to == from {
            return false;
        }
        let next = Self::enter(&self.ctx, &self.id, to, self.profile).and_then(|next| {
            let port = self.port_of(&next.services, max_len)?;
            *next.port.lock().unwrap_or_else(PoisonError::into_inner) = Some(port);
            Ok(next)
        });
        let next = match next {
            Ok(next) => next,
            Err(err) => {
                tracing::debug!(id = self.id, "lane: cannot move to generation {to}: {err}");
                return false;
            }
        };
        let old = std::mem::replace(
            &mut *self.current.write().unwrap_or_else(PoisonError::into_inner),
            next,
        );
        // The old port goes, then its subscribers are woken: each finds the generation without
        // a publisher and moves to the new one (`LaneReceiver`).
        drop(old.port.lock().unwrap_or_else(PoisonError::into_inner).take());
        Self::wake_all(&self.ctx, &old);
        let current = self.generation();
        if let Some(port) = current
            .port
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            let _ = port.publisher.update_connections();
        }
        Self::wake_all(&self.ctx, &current);
        tracing::debug!(
            id = self.id,
            generation = to,
            subscribers = generation::capacity(to),
            "lane: moved to a larger generation"
        );
        true
    }

    /// Wakes the subscribers still in a generation below the current one, so that they find
    /// it without a publisher and follow: those of a generation it skipped (several waited in
    /// turn while it moved to the highest), or one a subscriber chose just before a higher one
    /// appeared. Looks at each lower generation that exists (a file each).
    pub fn wake_lower_generations(&self) {
        let current = self.generation().number;
        let node = self.ctx.node();
        for number in 0..current {
            let held = if number == 0 {
                self.first.data.dynamic_config().number_of_subscribers() > 0
            } else {
                generation::exists(node, &self.id, number)
            };
            if !held {
                continue;
            }
            let Ok(lower) = generation::services(node, &self.id, number, self.profile, false) else {
                continue;
            };
            if lower.data.dynamic_config().number_of_subscribers() == 0 {
                continue;
            }
            let mut bells = Bells::default();
            bells.refresh(self.ctx.rings(), &lower.data);
            bells.ring();
            // Its own event has room for one notifier, which no publisher holds any more.
            if let Ok(notifier) = lower.event.notifier_builder().create() {
                let _ = notifier.notify();
            }
        }
    }

    /// A buffer of `len` bytes in the segment. Its content is unspecified (buffers are reused):
    /// write every byte that is sent.
    pub fn loan(&self, len: usize) -> Result<LaneLoan, LaneSendError> {
        let current = self.generation();
        let mut port = current
            .port
            .lock()
            .expect("no panics while holding the lane port");
        if port.as_ref().is_none_or(|p| p.max_len < len) {
            let max_len = match port.as_ref() {
                None => len.max(1).next_multiple_of(FIRST_MAX_LEN),
                Some(old) => len.next_multiple_of(FIRST_MAX_LEN).max(old.max_len * 2),
            };
            // The old port goes first: its subscribers drain what it sent before they read the
            // new one, so the order of messages holds across the switch.
            *port = None;
            let grown = self.port_of(&current.services, max_len)?;
            // Subscribers connect to the new port when they wake up: wake them now.
            let _ = grown.publisher.update_connections();
            Self::wake_all(&self.ctx, &current);
            tracing::debug!(id = self.id, max_len, "lane: segment grown");
            *port = Some(grown);
        }
        let port = port.as_mut().expect("created above");
        let uninit = port
            .publisher
            .loan_slice_uninit(len)
            .map_err(|err| LaneSendError::Loan {
                len,
                error: format!("{err:?}"),
            })?;
        // SAFETY: the payload lies in a shared-memory mapping of the segment, whose bytes are
        // always initialized memory (zero pages of a fresh sparse file, or earlier payloads);
        // iceoryx2 calls them uninit only because their values are unspecified, which the loan's
        // contract passes on to the caller.
        let mut sample = unsafe { uninit.assume_init() };
        let bytes = sample.payload_mut();
        let start = bytes.as_ptr() as usize;
        if port.reserved.get(&start).is_none_or(|&reserved| reserved < len) {
            reserve_pages(bytes).map_err(|err| LaneSendError::NoRoom {
                len,
                error: err.to_string(),
            })?;
            port.reserved.insert(start, len);
        }
        Ok(LaneLoan {
            sample,
            generation: current.number,
        })
    }

    /// Sends a filled loan with its header and wakes the subscribers; gives the loan back when
    /// the publisher moved to another generation since it was taken.
    pub fn send(&self, mut loan: LaneLoan, header: LaneHeader) -> Result<Sent, LaneSendError> {
        // Held while sending, so that the publisher cannot move between the check and the send.
        let current = self.generation();
        if loan.generation != current.number {
            return Ok(Sent::Moved(loan));
        }
        let len = loan.sample.payload().len();
        *loan.sample.user_header_mut() = header;
        loan.sample.send().map_err(|err| LaneSendError::Send {
            error: format!("{err:?}"),
        })?;
        let mut bells = current.bells.lock().unwrap_or_else(PoisonError::into_inner);
        bells.refresh(self.ctx.rings(), &current.services.data);
        let (doorbells, direct) = bells.ring();
        drop(bells);
        // Coalesced by iceoryx2 while a listener has not consumed the previous wake-up.
        if direct && let Err(err) = current.notifier.notify() {
            tracing::debug!("lane: wake-up not sent: {err:?}");
        }
        let stats = self.ctx.stats().lane();
        stats.woke(doorbells, direct);
        stats.published(len);
        Ok(Sent::Reached)
    }

    /// Removes what dead processes of the domain left, so that a killed subscriber stops counting.
    pub fn cleanup_dead_nodes(&self) {
        self.ctx.cleanup_dead_nodes();
    }

    /// Whether the process's periodic cleanup is due now (see [`LaneContext::cleanup_due`]).
    pub fn cleanup_due(&self) -> bool {
        self.ctx.cleanup_due()
    }

    /// A subscriber's token went (see [`LaneContext::subscriber_left`]).
    pub fn subscriber_left(&self) {
        self.ctx.subscriber_left();
    }

    /// Connects subscribers that arrived since the last send and wakes them: transient-local
    /// history reaches a late joiner only here or at the next send.
    pub fn connect_new_subscribers(&self) {
        let current = self.generation();
        let port = current
            .port
            .lock()
            .expect("no panics while holding the lane port");
        if let Some(port) = port.as_ref()
            && port.publisher.update_connections().is_ok()
        {
            Self::wake_all(&self.ctx, &current);
        }
    }

    /// Wakes every subscriber of a generation, through its doorbell and the publisher's own event.
    fn wake_all(ctx: &LaneContext, generation: &Generation) {
        let mut bells = generation.bells.lock().unwrap_or_else(PoisonError::into_inner);
        bells.refresh(ctx.rings(), &generation.services.data);
        bells.ring();
        let _ = generation.notifier.notify();
    }

    fn port_of(&self, services: &Services, max_len: usize) -> Result<Port, LaneSendError> {
        let failed = |err| LaneSendError::Create {
            id: self.id.clone(),
            error: format!("{err:?}"),
        };
        let builder = services
            .data
            .publisher_builder()
            .initial_max_slice_len(max_len)
            .allocation_strategy(AllocationStrategy::Static)
            .max_loaned_samples(MAX_LOANS);
        let publisher = if self.profile.blocking {
            let stats = self.ctx.stats().clone();
            let warned = self.warned_blocked.clone();
            builder
                .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
                .set_backpressure_handler(move |info: &BackpressureInfo| {
                    if info.elapsed_time < BLOCK_LIMIT {
                        return BackpressureAction::Retry;
                    }
                    stats.lane().blocked_discard();
                    if !warned.swap(true, Ordering::Relaxed) {
                        tracing::warn!(
                            "lane: a RELIABLE + KEEP_ALL subscriber stayed full for {BLOCK_LIMIT:?}; \
                             the message was not delivered to it (counted; later ones are not logged)"
                        );
                    }
                    BackpressureAction::DiscardData
                })
                .create()
        } else {
            builder.create()
        };
        Ok(Port {
            publisher: publisher.map_err(failed)?,
            max_len,
            reserved: HashMap::new(),
        })
    }
}

/// Allocates the /dev/shm pages under `bytes` now, so that writing them later cannot raise
/// SIGBUS; an error when /dev/shm has no room for them. Their content is unchanged.
fn reserve_pages(bytes: &mut [u8]) -> std::io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .map_or(4096, |size| size as usize);
    let start = bytes.as_mut_ptr() as usize;
    let first_page = start & !(page - 1);
    let len = start + bytes.len() - first_page;
    // SAFETY: the range covers only pages of our own writable shared mapping of the segment
    // (rounded down to the page that holds the buffer's first byte); MADV_POPULATE_WRITE faults
    // those pages in as if written, without changing a byte of them.
    let rc = unsafe { libc::madvise(first_page as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) };
    if rc == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EINVAL) {
        // Linux before 5.14 has no MADV_POPULATE_WRITE: only the free-space check made when the
        // lane starts protects those machines.
        return Ok(());
    }
    if err.raw_os_error() == Some(libc::EFAULT) {
        // What the kernel says when populating would have raised SIGBUS: tmpfs is out of room.
        return Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "/dev/shm is full",
        ));
    }
    Err(err)
}
