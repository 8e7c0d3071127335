//! Doorbells: one wake-up event per executor, which every lane publisher with a subscriber
//! there rings, so that a burst of messages to many subscriptions of one executor costs it one
//! wake-up instead of one per message and subscription.
//!
//! Without them, each subscription listens on each publisher's own wake-up event
//! ([`super::event_service`]). iceoryx2 coalesces wake-ups per listener (a notifier sends its
//! datagram only when the listener took the previous one), and one topic's messages come
//! milliseconds apart, so nothing coalesced: a lane node at 200 topics made one `recvfrom` and
//! most of one `epoll_wait` per message, where an iceoryx2 process with one event for all its
//! subscriptions made one per burst of about 20 (BENCHMARKS.md, "Wake-ups per message").
//!
//! # The protocol
//!
//! * An executor that serves lane subscriptions creates a [`Doorbell`]: an iceoryx2 event
//!   service `zshm/bell/<key>` with one listener, in its wait set. Each subscription gets one
//!   of its [`EVENT_IDS`] event ids.
//! * A subscription's port on a publisher's data service is named
//!   `<gid>@<key>.<event id>` ([`BellAddress::port_name`]) instead of `<gid>`.
//! * At each send, a publisher rings, with its event id, the doorbell of every connected
//!   subscriber whose port name carries one ([`Bells`]), sharing one notifier per doorbell with
//!   the whole process ([`Rings`]).
//! * A subscriber without a doorbell (lane wake-ups set to `publisher`, an older zshm) or whose
//!   doorbell cannot be opened (gone, full) is woken as before, through the publisher's own
//!   event, which every subscription keeps listening on for that reason.
//!
//! The executor that the doorbell wakes takes its event ids (which also re-arms it: a ring after
//! that wakes it again) and then reads every lane publisher of the subscriptions those ids
//! belong to. Ids are shared when an executor serves more than [`EVENT_IDS`] subscriptions; a
//! shared id only makes a subscription look once for nothing.

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use iceoryx2::identifiers::UniqueSubscriberId;
use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::prelude::*;
use iceoryx2::service::port_factory::event::PortFactory as EventService;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as DataService;

use super::Svc;
use super::header::LaneHeader;

/// Event ids of a doorbell: each subscription of the executor rings with one. A listener resets
/// one counter per id each time it takes a wake-up, so they are few; shared ids cost a look.
pub const EVENT_IDS: u64 = 64;

/// Processes whose publishers may ring one doorbell (one notifier per process and doorbell).
const MAX_RINGERS: usize = 256;

/// The iceoryx2 name of the doorbell `key`.
fn service_name(key: &str) -> String {
    format!("zshm/bell/{key}")
}

/// Where a subscription is woken: a doorbell and the event id it rings with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BellAddress {
    /// The doorbell's key.
    pub key: String,
    /// The subscription's event id, below `EVENT_IDS` (64).
    pub event_id: u64,
}

impl BellAddress {
    /// The event id of the entity `id` of an executor.
    pub fn event_id_of(entity: u64) -> u64 {
        entity % EVENT_IDS
    }

    /// The name of a subscription's port: `<name>@<key>.<event id>`; `None` when that does not
    /// fit in an iceoryx2 port name (the subscription is then woken the old way).
    pub fn port_name(&self, name: &str) -> Option<String> {
        let full = format!("{name}@{}.{}", self.key, self.event_id);
        (full.len() <= iceoryx2::constants::MAX_PORT_NAME_LENGTH).then_some(full)
    }

    /// A port name split into the subscription's own name and its doorbell, if it has one.
    ///
    /// ```
    /// use zshm::internal::lane::BellAddress;
    /// let bell = BellAddress { key: "00a1b2c3d4e5f607".into(), event_id: 5 };
    /// let name = bell.port_name("0123abcd").unwrap();
    /// assert_eq!(BellAddress::parse(&name), ("0123abcd", Some(bell)));
    /// assert_eq!(BellAddress::parse("0123abcd"), ("0123abcd", None));
    /// assert_eq!(BellAddress::parse("0123abcd@k.x"), ("0123abcd", None));
    /// ```
    pub fn parse(port_name: &str) -> (&str, Option<BellAddress>) {
        let Some((name, bell)) = port_name.split_once('@') else {
            return (port_name, None);
        };
        let address = bell.split_once('.').and_then(|(key, id)| {
            let event_id = id.parse().ok().filter(|&id| id < EVENT_IDS)?;
            (!key.is_empty()).then(|| BellAddress {
                key: key.to_owned(),
                event_id,
            })
        });
        (name, address)
    }
}

/// Why a doorbell could not be created; the executor's subscriptions are then woken through
/// each publisher's own event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("iceoryx2 could not create an executor's doorbell: {error}")]
pub struct DoorbellError {
    /// iceoryx2's error.
    pub error: String,
}

/// The listening end: one per executor, in its wait set.
#[derive(Debug)]
pub struct Doorbell {
    key: String,
    listener: Listener<Svc>,
    _service: EventService<Svc>,
}

impl Doorbell {
    /// Creates a doorbell in the domain of `node` (the session's lane node), with a key no other
    /// doorbell of the domain has (blocking, about a millisecond).
    pub fn create(node: &Node<Svc>) -> Result<Self, DoorbellError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let failed = |error: String| DoorbellError { error };
        let mut last = String::new();
        // A key is the process id and a counter; one a dead process left behind is taken until
        // the dead-node cleanup removes it, so a few tries move past it.
        for _ in 0..8 {
            let key = format!(
                "{:x}-{:x}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            );
            let name: ServiceName = service_name(&key)
                .as_str()
                .try_into()
                .map_err(|err| failed(format!("{err:?}")))?;
            let service = node
                .service_builder(&name)
                .event()
                .event_id_max_value(EVENT_IDS as usize - 1)
                .max_listeners(1)
                .max_notifiers(MAX_RINGERS)
                .max_nodes(MAX_RINGERS + 1)
                .create();
            match service {
                Ok(service) => {
                    let listener = service
                        .listener_builder()
                        .create()
                        .map_err(|err| failed(format!("{err:?}")))?;
                    return Ok(Self {
                        key,
                        listener,
                        _service: service,
                    });
                }
                Err(err) => last = format!("{err:?}"),
            }
        }
        Err(failed(last))
    }

    /// The key publishers find it by.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The descriptor that becomes readable when it rings.
    pub fn descriptor(&self) -> BorrowedFd<'_> {
        // SAFETY: the listener's descriptor stays open as long as the listener, which `self`
        // holds; whoever watches it stops before dropping the doorbell.
        unsafe { BorrowedFd::borrow_raw(self.listener.file_descriptor().native_handle()) }
    }

    /// Takes the rings so far: one bit per event id that rang. A ring after this call makes the
    /// descriptor readable again, unless `settled` is false: then the caller must take again
    /// before it waits on the descriptor.
    pub fn take(&self) -> Taken {
        let mut rung = 0u64;
        let settled = take_until_settled(&self.listener, TAKE_LIMIT, |id| {
            rung |= 1 << (id as u64 % EVENT_IDS);
        });
        Taken { rung, settled }
    }
}

/// What [`Doorbell::take`] took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    /// One bit per event id that rang.
    pub rung: u64,
    /// False when rings kept coming for [`TAKE_LIMIT`] looks: take again before waiting.
    pub settled: bool,
}

/// Looks a doorbell takes at most before it lets its executor serve what rang.
const TAKE_LIMIT: usize = 8;

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
pub(crate) fn take_until_settled(
    listener: &Listener<Svc>,
    limit: usize,
    mut rang: impl FnMut(usize),
) -> bool {
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

/// The ringing end of one doorbell, shared by the publishers of a process.
#[derive(Debug)]
pub struct Ring {
    notifier: Notifier<Svc>,
    _service: EventService<Svc>,
}

impl Ring {
    fn ring(&self, event_id: u64) {
        // Coalesced by iceoryx2 while the doorbell's listener has not taken the last ring.
        if let Err(err) = self
            .notifier
            .notify_with_custom_event_id(EventId::new(event_id as usize))
        {
            tracing::debug!("lane: doorbell not rung: {err:?}");
        }
    }
}

/// The doorbells a process's publishers ring, opened once each (the lane context holds them).
#[derive(Debug, Default)]
pub struct Rings {
    open: Mutex<HashMap<String, Weak<Ring>>>,
}

impl Rings {
    /// The doorbell `key`, opened if no publisher of the process has it open; `None` when it
    /// cannot be (gone, or as many processes ring it as it allows).
    fn get(&self, node: &Node<Svc>, key: &str) -> Option<Arc<Ring>> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(ring) = open.get(key).and_then(Weak::upgrade) {
            return Some(ring);
        }
        open.retain(|_, ring| ring.strong_count() > 0);
        let name: ServiceName = service_name(key).as_str().try_into().ok()?;
        let opened = node
            .service_builder(&name)
            .event()
            .open()
            .map_err(|err| format!("{err:?}"))
            .and_then(|service| {
                let notifier = service
                    .notifier_builder()
                    .create()
                    .map_err(|err| format!("{err:?}"))?;
                Ok(Ring {
                    notifier,
                    _service: service,
                })
            });
        match opened {
            Ok(ring) => {
                let ring = Arc::new(ring);
                open.insert(key.to_owned(), Arc::downgrade(&ring));
                Some(ring)
            }
            Err(error) => {
                tracing::debug!(
                    key,
                    error,
                    "lane: cannot open a subscriber's doorbell; waking it directly"
                );
                None
            }
        }
    }
}

/// What one publisher rings at each send: the doorbells of its subscribers, and its own event
/// when a subscriber has none that it can ring.
#[derive(Debug, Default)]
pub struct Bells {
    /// The subscriber ports these targets were worked out for.
    seen: Vec<UniqueSubscriberId>,
    scratch: Vec<UniqueSubscriberId>,
    targets: Vec<(Arc<Ring>, u64)>,
    direct: bool,
}

impl Bells {
    /// Works out the targets again when the connected subscribers changed. Costs one look at
    /// the service's subscriber list when they did not.
    pub fn refresh(&mut self, rings: &Rings, node: &Node<Svc>, data: &DataService<Svc, [u8], LaneHeader>) {
        self.scratch.clear();
        let config = data.dynamic_config();
        config.list_subscribers(|details| {
            self.scratch.push(details.subscriber_id);
            CallbackProgression::Continue
        });
        if self.scratch == self.seen {
            return;
        }
        // Ids and names from one look, so that the targets match the ports `seen` names.
        self.seen.clear();
        let (mut targets, mut direct) = (Vec::<(Arc<Ring>, u64)>::new(), false);
        config.list_subscribers(|details| {
            self.seen.push(details.subscriber_id);
            match BellAddress::parse(details.subscriber_name.as_str()).1 {
                Some(bell) => match rings.get(node, &bell.key) {
                    Some(ring) => {
                        let known = targets
                            .iter()
                            .any(|(other, id)| Arc::ptr_eq(other, &ring) && *id == bell.event_id);
                        if !known {
                            targets.push((ring, bell.event_id));
                        }
                    }
                    None => direct = true,
                },
                None => direct = true,
            }
            CallbackProgression::Continue
        });
        self.targets = targets;
        self.direct = direct;
    }

    /// Rings every subscriber's doorbell; returns how many doorbells (and event ids) it rang,
    /// and whether the publisher's own event must be notified too (a subscriber has no doorbell
    /// that can be rung).
    pub fn ring(&self) -> (usize, bool) {
        for (ring, event_id) in &self.targets {
            ring.ring(*event_id);
        }
        (self.targets.len(), self.direct)
    }
}
