//! The same-host lane: zshm publisher to zshm subscriber through iceoryx2 shared memory, with a
//! direct wake-up of the subscriber, instead of through zenoh's transport.
//!
//! # Which path a message takes
//!
//! Every ROS publisher of a zshm node has a lane (an iceoryx2 service named after its GID), and
//! every zshm subscription on the same host, run by the same user, attaches to the lanes of the
//! publishers it discovers through their liveliness tokens. Then, for each message:
//!
//! * **zshm subscriber on this host, same user:** through the lane. The publisher writes the
//!   message in place in its segment ([`LaneLoan`]) and rings the doorbell of the subscriber's
//!   executor ([`doorbell`]; [`LaneReceiver`]): the thread that wakes up reads it in place and
//!   runs the callback. No copy, no socket, and one wake-up for a burst of messages to the
//!   executor's subscriptions.
//! * **everyone else** (rmw_zenoh nodes, other hosts, other users, plain zenoh subscribers,
//!   subscriptions in the publisher's own session): through zenoh, exactly as without the lane
//!   (SHM descriptors or bytes on the link).
//!
//! A publisher sends through zenoh as well as long as zenoh knows any subscriber that the lane
//! does not serve; when every subscriber is served by the lane, it skips zenoh entirely. A
//! subscriber that receives a message through both paths delivers it once, in order, using the
//! sequence numbers the header carries ([`LaneHeader`]). TRANSIENT_LOCAL publishers always send
//! through zenoh too, so that zenoh's cache answers late rmw_zenoh joiners.
//!
//! How to see it: `Session::lane_status()`, the `path="lane"` series of the metrics,
//! `zshm doctor`, `Sample::path()`. `ZSHM_LANE=off` (or `--no-lane`) turns it off; it is off
//! whenever shared memory is off (the `_TCP` configs, `--no-shm`).
//!
//! # What is not here
//!
//! This module knows iceoryx2 and nothing of ROS: which publisher a subscription attaches to,
//! when a publisher may skip zenoh and how the two paths are merged are decided in
//! [`crate::ros`]; the raw layer ([`crate::raw`]) carries lane loans and lane samples.

pub mod clean;
pub mod domain;
pub mod doorbell;
pub mod generation;

mod context;
mod header;
mod profile;
mod receiver;
mod sender;
mod status;

pub use context::LaneContext;
pub use doorbell::{BellAddress, Doorbell, DoorbellError, EVENT_IDS};
pub use header::LaneHeader;
pub use profile::SenderProfile;
pub use receiver::{DOORBELL_SLOT, LaneEvent, LaneReceiver, LaneSample, ReceiverProfile, WaitSet};
pub use sender::{LaneLoan, LaneSendError, LaneSender, Sent};
pub use status::{LaneStatus, LaneUnavailable};

/// The iceoryx2 service flavour: ports and samples may move between threads.
pub type Svc = iceoryx2::prelude::ipc_threadsafe::Service;

/// The deepest KEEP_LAST queue a lane subscriber gets; deeper subscriptions use zenoh.
pub const SUBSCRIBER_MAX_BUFFER: usize = 16;

/// Messages of one publisher a subscriber may hold at once: a queue of up to
/// [`SUBSCRIBER_MAX_BUFFER`] waiting for its callback, plus what is being handled.
pub const SUBSCRIBER_MAX_BORROWED: usize = SUBSCRIBER_MAX_BUFFER + 4;

/// The most messages a TRANSIENT_LOCAL lane publisher keeps for late joiners.
pub const MAX_HISTORY: usize = SUBSCRIBER_MAX_BUFFER;

/// Subscribers one publisher's lane serves at most, in its last generation
/// ([`generation`]); more use zenoh.
pub const MAX_SUBSCRIBERS: usize = 32;

/// Loans a publisher may hold at once.
pub const MAX_LOANS: usize = 4;
