//! # zshm-bridge: DDS-based ROS 2 and rmw_zenoh on one graph
//!
//! The library behind `zshm bridge`. It joins a DDS domain (through [RustDDS], a maintained pure
//! Rust DDS) and a zenoh network (through a [`zshm::Session`]) and, for every ROS 2 topic that
//! has a publisher on one side and a subscription on the other, creates a *route*: DDS writers
//! then look like rmw_zenoh publishers to zenoh nodes (liveliness tokens, key expressions with
//! the type name and RIHS01 hash, attachments with sequence number, time stamp and GID, all from
//! [`zshm::ros`]), and rmw_zenoh publishers look like DDS writers on `rt/<topic>` to DDS nodes.
//!
//! CDR bytes pass through unchanged; only the 4-byte encapsulation header is rebuilt, because
//! RustDDS hands over and takes the body and the representation identifier separately.
//!
//! What it is not (yet): services and actions, `ros_discovery_info` (DDS nodes' names), a cache
//! for transient-local late joiners. See the README's "Bridging DDS".
//!
//! * [`config`]: what to bridge: domain, interfaces, allow/deny per kind, frequency caps.
//! * [`names`]: ROS names and types on DDS and on zenoh, and where a type hash comes from.
//! * [`stats`]: per-route counters and every drop with its reason, logged once.
//! * [`Bridge`]: discovery on both sides, the routes, and [`RouteEvent`]s as they change.
//!
//! [RustDDS]: https://crates.io/crates/rustdds

#![deny(missing_docs)]

pub mod config;
mod dds;
mod engine;
pub mod names;
mod route;
pub mod stats;

pub use config::{BridgeConfig, ConfigError, Kind};
pub use engine::{Bridge, BridgeError, Direction, RouteEvent, RouteInfo};
