//! ROS 2 on the wire, exactly as rmw_zenoh speaks it, so that rmw_zenoh_cpp nodes (`ros2 topic
//! echo`, RViz) and zshm nodes see and hear each other.
//!
//! * [`names`]: node, namespace and topic name rules and expansion.
//! * [`keyexpr`]: the data key expression of a topic.
//! * [`liveliness`]: graph tokens (`@ros2_lv/...`) and entity GIDs.
//! * [`qos`]: QoS profiles, their token encoding, their mapping onto zenoh.
//! * [`attachment`]: the 33-byte per-sample attachment (sequence number, time stamp, GID).
//! * [`gid`]: entity GIDs.
//! * [`Node`], [`Publisher`], [`Subscription`], [`Sample`], [`Loan`]: the typed API built on
//!   these (the payload encoding is [`crate::cdr`]).
//! * [`action`]: action servers and clients (goals, feedback, results, cancels).
//! * [`executor`]: where callbacks run: executors, callback groups, timers.
//! * [`dynamic`]: publishers and subscriptions for types known only by name (bags).
//! * [`type_description`]: each node's `~/get_type_description` service.
//! * [`parameter`]: parameters as rclcpp offers them, their six services and events.
//! * [`graph`]: what `ros2 topic list` / `ros2 node list` show, from the tokens.
//! * `lane`: which publishers a subscription receives through the same-host lane, when a
//!   publisher skips zenoh, and how both paths merge into one ordered delivery.

pub mod action;
pub mod dynamic;
pub mod graph;
pub(crate) mod lane;
pub mod parameter;

pub(crate) mod delivery;
pub mod executor;

mod node;
mod node_base;
mod publisher;
mod sample;
pub mod service;
mod subscription;
mod type_cache;
pub mod type_description;

// rmw_zenoh's wire protocol, from its own crate, where node code has always found it.
pub use zshm_protocol::{attachment, gid, keyexpr, liveliness, names, qos};

pub use delivery::{HEAP_BYTES_BOUND, KEEP_ALL_BOUND};
pub use executor::{CallbackGroup, CallbackGroupKind, Executor, ExecutorError, SpinHandle, Timer};
pub use node::{Node, NodeOptions};
pub use node_base::{NodeBase, NodeError};
pub use publisher::{Loan, Publisher};
pub use sample::Sample;
pub use service::{CallError, Client, Reply, Responder, Service, ServiceOptions};
pub use subscription::{Dispatch, Subscription, SubscriptionOptions};
