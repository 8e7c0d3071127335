//! # zshm: ROS 2 over Zenoh, with shared memory you can see
//!
//! `zshm` is the library every zshm node uses. It opens a zenoh session from the same config
//! files and environment variables as rmw_zenoh, creates the process's shared-memory (SHM) pool,
//! and publishes large messages through /dev/shm so subscribers on the same host read them in
//! place. When shared memory cannot work here (no /dev/shm, too small, read-only, locked-memory
//! limit), the session still opens, says why once, and everything goes over TCP.
//!
//! What a node needs, in the order it meets it:
//!
//! 1. [`Session`]: opening (same config lookup as rmw_zenoh, see [`config`]), the SHM pool, and
//!    [`Session::shm_status`] (which path and why).
//! 2. [`ros`]: a [`Node`](ros::Node) with typed [`Publisher`](ros::Publisher)s and
//!    [`Subscription`](ros::Subscription)s speaking rmw_zenoh's protocol; [`msgs`] has the
//!    messages. A [`Loan`](ros::Loan) builds a point cloud in place in shared memory; a
//!    [`Sample`](ros::Sample) reads it in place.
//! 3. [`raw`]: the same for plain bytes on zenoh key expressions ([`raw::RawPublisher`],
//!    [`raw::RawSubscription`], [`raw::RawSample`], [`raw::RawLoan`]).
//! 4. [`stats`]: what went through SHM, what over the network, and every fallback.
//!
//! ```no_run
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use zshm::msgs::std_msgs;
//! use zshm::ros::{qos::QosProfile, Node, NodeOptions};
//!
//! let session = zshm::Session::builder().open().await?;
//! println!("shared memory: {}", session.shm_status());
//! let node = Node::new(&session, "talker", NodeOptions::default()).await?;
//! let _echo = node
//!     .create_subscription::<std_msgs::msg::String>("chatter", QosProfile::default(), |msg| {
//!         println!("heard {}", msg.view().data);
//!     })
//!     .await?;
//! let chatter = node.create_publisher::<std_msgs::msg::String>("chatter", QosProfile::default()).await?;
//! chatter.publish(&std_msgs::msg::String { data: "Hello World: 1".into() }).await?;
//! # Ok(()) }
//! ```
//!
//! ## Layers
//!
//! Each module imports only from the modules listed before it (a test checks it against the
//! table in docs/architecture.md): `text`, [`config`], [`stats`], `shm`, `lane`, `session`,
//! [`raw`], [`msgs`], [`dynamic`], [`ros`]; below them all, the wire
//! protocol of the `zshm-protocol` crate ([`cdr`], and in [`ros`] the names, key expressions,
//! tokens, QoS, attachment and GIDs). `text`, `shm`, `lane` and `session` are private: what a
//! node needs of them is re-exported here ([`Session`], [`ShmStatus`], [`LaneStatus`],
//! [`LinkShmProblem`]).
//!
//! The program's operations (the Prometheus exporter, the doctor, certificates, the soak, the
//! latency probe, the simulated camera) are in their own crate, `zshm-ops`, which the `zshm`
//! program uses: a node's build has neither them nor their Prometheus, TLS and netlink crates.

#![deny(missing_docs)]

mod text;

pub mod config;

pub mod stats;

mod shm;

mod lane;

mod session;

pub mod raw;

pub use zshm_protocol::cdr;

pub mod msgs;

pub mod dynamic;

pub mod ros;

// The session and what it says about the paths a message can take. The modules behind them
// (`session`, `shm`, `lane`, `text`) are private: their pools, segments, lane endpoints and
// admin queries are how zshm works, not what a node uses.
pub use config::{ConfigError, Role};
pub use lane::{LaneStatus, LaneUnavailable};
pub use session::{CloseError, HandshakeTrouble, LinkShmProblem, OpenError, Session, SessionBuilder};
pub use shm::{ShmStatus, ShmUnavailable};

/// Not the library's API: the few internals the `zshm` program, its operations crate
/// (`zshm-ops`: exporter, doctor), its benchmarks and zshm's own tests use (cleaning the lane's
/// and zenoh's segments, /dev/shm usage, the lane's directory for the iceoryx2 baseline, node
/// reports and admin-space queries, text helpers). Hidden from the
/// documentation, with no stability promised, as zenoh keeps its own `internal` module for its
/// plugins.
#[doc(hidden)]
pub mod internal {
    /// The same-host lane's domain and cleanup.
    pub mod lane {
        pub use crate::lane::{BellAddress, MAX_SUBSCRIBERS, clean, domain, generation};
    }
    /// zenoh's SHM segments, /dev/shm, and zenoh's versions.
    pub mod shm {
        pub use crate::shm::{RETRY_BUDGET, cleanup_orphaned_segments, compat, preflight, usage};
    }
    /// Each node's report, admin-space queries, a peer's zenoh version.
    pub mod session {
        pub use crate::session::admin::query_all;
        pub use crate::session::links::version_of;
        pub use crate::session::report;
    }
    /// Byte counts, durations and zenoh's error text, as zshm prints them.
    pub mod text {
        pub use crate::text::{human_bytes, seconds, tidy};
    }
}

/// True when `err` says the caller's input is at fault (a config file, an override, an
/// environment variable, a name or a key expression): the `zshm` program exits 2 for those.
/// Each error type of the library decides for itself (`is_bad_input`); this asks the right one.
pub fn is_bad_input(err: &(dyn std::error::Error + 'static)) -> bool {
    if err.is::<ConfigError>() || err.is::<ros::names::NameError>() {
        return true;
    }
    if let Some(err) = err.downcast_ref::<OpenError>() {
        return err.is_bad_input();
    }
    if let Some(err) = err.downcast_ref::<dynamic::DynamicError>() {
        return err.is_bad_input();
    }
    if let Some(err) = err.downcast_ref::<ros::NodeError>() {
        return err.is_bad_input();
    }
    err.downcast_ref::<raw::DeclareError>()
        .is_some_and(raw::DeclareError::is_bad_input)
}

/// Includes the message, service and action types a build script generated from a crate's own
/// interface definitions with `zshm_rosidl::Builder` (a build dependency). Use it once, where
/// the packages should live (the crate root, or a module of their own):
///
/// ```ignore
/// // build.rs:  zshm_rosidl::Builder::new().package("my_msgs", "my_msgs").generate()
/// zshm::include_interfaces!();
/// // now `my_msgs::msg::Waypoint` exists, and may nest `zshm::msgs::geometry_msgs::msg::Pose`.
/// ```
#[macro_export]
macro_rules! include_interfaces {
    () => {
        include!(concat!(env!("OUT_DIR"), "/zshm_interfaces.rs"));
    };
}

/// The names most programs need.
pub mod prelude {
    pub use crate::msgs::Message;
    pub use crate::raw::{PublisherOptions, RawLoan, RawPublisher, RawSample, RawSubscription};
    pub use crate::ros::executor::Executor;
    pub use crate::ros::parameter::{ParameterDescriptor, ParameterValue};
    pub use crate::ros::qos::QosProfile;
    pub use crate::ros::service::{Client, Service};
    pub use crate::ros::{Loan, Node, NodeOptions, Publisher, Sample, Subscription};
    pub use crate::{Role, Session, ShmStatus};
}
