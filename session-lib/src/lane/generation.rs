//! A publisher's lane in generations: its services are sized for the subscribers it has, not
//! for the most it may ever have.
//!
//! iceoryx2 sizes a service once, when it is created, for its most subscribers, and a publisher
//! pays for every slot at each message (its port keeps state per slot, the segment holds buffers
//! for each slot's queue). Sized for [`MAX_SUBSCRIBERS`] from the start, the lane cost a node of
//! the topics sweep (T = 200, 2 subscribers per topic) 12% more CPU and 3 MiB more memory than
//! sized for four (BENCHMARKS.md, "A lane sized to its subscribers").
//!
//! So a publisher's lane starts small, at generation 0 ([`capacity`]: 4 subscribers, what most
//! topics of a robot have), and moves once, when a fifth subscriber comes, to generation 1
//! ([`LAST_GENERATION`]), sized for [`MAX_SUBSCRIBERS`]. Not in more steps (8, 16, 32): each
//! move makes every subscriber of the old generation attach again (two iceoryx2 services and
//! two ports, milliseconds each), and in the subscribers sweep (S = 32 processes on 2 cores)
//! three moves per topic, each followed by up to 16 subscribers at once, kept the subscriber
//! processes busy long enough that the lane queues of the topics already running overflowed:
//! 2-4% of their messages lost in 2 of 3 rounds, none with a single move (BENCHMARKS.md, "A
//! lane sized to its subscribers").
//!
//! * A subscriber attaches to the highest generation that exists. When it is full, the
//!   subscriber creates the next one, with the publisher's configuration (`services`: both
//!   sides build it here), and waits there; meanwhile it receives through zenoh, since the
//!   publisher sees a subscriber its lane does not serve.
//! * The publisher, while its lane is full, looks for a higher generation at each of its looks
//!   and moves there: its new port connects the waiting subscribers, its old port goes.
//! * A subscriber of the old generation finds, at the wake-up the publisher gives it when it
//!   moves, that the generation has no publisher any more and a higher one exists, and attaches
//!   there. Its messages go through zenoh until it has (the publisher's route counts the new
//!   generation's subscribers and sends through zenoh too while they are fewer than it knew),
//!   and the subscription's merge delivers each once, in order.
//!
//! Generation 0 keeps the names older zshm releases use, so their subscribers still attach.

use iceoryx2::prelude::*;
use iceoryx2::service::port_factory::event::PortFactory as EventService;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as DataService;

use super::header::LaneHeader;
use super::profile::SenderProfile;
use super::{MAX_HISTORY, MAX_SUBSCRIBERS, SUBSCRIBER_MAX_BORROWED, SUBSCRIBER_MAX_BUFFER, Svc};

/// Subscribers the first generation serves.
pub const FIRST_SUBSCRIBERS: usize = 4;

/// The last generation, which serves [`MAX_SUBSCRIBERS`].
pub const LAST_GENERATION: u32 = 1;

/// Processes, beyond its subscribers, that may have a generation open (the publisher's, a
/// subscriber's process that holds an older port while it moves).
const SPARE_NODES: usize = 8;

/// Subscribers generation `generation` serves.
///
/// ```
/// use zshm::internal::lane::generation::{capacity, LAST_GENERATION};
/// use zshm::internal::lane::MAX_SUBSCRIBERS;
/// assert_eq!(capacity(0), 4);
/// assert_eq!(capacity(LAST_GENERATION), MAX_SUBSCRIBERS);
/// ```
pub fn capacity(generation: u32) -> usize {
    match generation {
        0 => FIRST_SUBSCRIBERS,
        _ => MAX_SUBSCRIBERS,
    }
}

/// The iceoryx2 name of a publisher's data service in one generation (generation 0 keeps the
/// name of zshm releases before generations).
pub fn data_service(id: &str, generation: u32) -> String {
    match generation {
        0 => format!("zshm/{id}"),
        g => format!("zshm/{id}/g{g}"),
    }
}

/// The iceoryx2 name of a publisher's wake-up service in one generation.
pub fn event_service(id: &str, generation: u32) -> String {
    format!("{}/wake", data_service(id, generation))
}

/// The two services of one generation of a publisher's lane.
#[derive(Debug)]
pub(crate) struct Services {
    pub data: DataService<Svc, [u8], LaneHeader>,
    pub event: EventService<Svc>,
}

/// Opens one generation of the lane of `id`, creating it when `create` and it does not exist,
/// with the configuration of a publisher with `profile` (the same whichever side creates it,
/// so that the other can open it). Errors are iceoryx2's, as text.
pub(crate) fn services(
    node: &Node<Svc>,
    id: &str,
    generation: u32,
    profile: SenderProfile,
    create: bool,
) -> Result<Services, String> {
    let name = |name: String| -> Result<ServiceName, String> {
        name.as_str().try_into().map_err(|err| format!("{err:?}"))
    };
    let subscribers = capacity(generation);
    let nodes = subscribers + SPARE_NODES;
    let data = node
        .service_builder(&name(data_service(id, generation))?)
        .publish_subscribe::<[u8]>()
        .user_header::<LaneHeader>();
    let data = if create {
        data.subscriber_max_buffer_size(SUBSCRIBER_MAX_BUFFER)
            .subscriber_max_borrowed_samples(SUBSCRIBER_MAX_BORROWED)
            .history_size(profile.history.min(MAX_HISTORY))
            .enable_safe_overflow(!profile.blocking)
            .max_publishers(1)
            .max_subscribers(subscribers)
            .max_nodes(nodes)
            .open_or_create()
            .map_err(|err| format!("{err:?}"))?
    } else {
        data.open().map_err(|err| format!("{err:?}"))?
    };
    let event = node
        .service_builder(&name(event_service(id, generation))?)
        .event();
    let event = if create {
        // The lane sends one kind of wake-up only (the default id, 0). A listener resets one
        // counter per possible id each time it takes a wake-up (`try_wait`): with iceoryx2's
        // default of 256 ids that was 256 atomic swaps per lane message, about a tenth of a
        // lane subscriber thread's time at 200 topics (perf, BENCHMARKS.md).
        event
            .event_id_max_value(0)
            .max_notifiers(1)
            .max_listeners(subscribers)
            .max_nodes(nodes)
            .open_or_create()
            .map_err(|err| format!("{err:?}"))?
    } else {
        event.open().map_err(|err| format!("{err:?}"))?
    };
    Ok(Services { data, event })
}

/// Whether generation `generation` of the lane of `id` exists.
pub(crate) fn exists(node: &Node<Svc>, id: &str, generation: u32) -> bool {
    let Ok(name) = ServiceName::new(&data_service(id, generation)) else {
        return false;
    };
    <Svc as iceoryx2::service::Service>::does_exist(&name, node.config(), MessagingPattern::PublishSubscribe)
        .unwrap_or(false)
}

/// The highest generation of the lane of `id` that exists, looking no lower than `from`; `from`
/// when none above it does.
pub(crate) fn highest(node: &Node<Svc>, id: &str, from: u32) -> u32 {
    (from + 1..=LAST_GENERATION)
        .rev()
        .find(|&generation| exists(node, id, generation))
        .unwrap_or(from)
}
