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
//! Services are routed too, both ways (rmw_zenoh queries ↔ DDS `rq/`/`rr/` topics), each DDS
//! endpoint spoken to in its own RMW's framing ([`Framing`]: rmw_fastrtps_cpp's sample identity
//! for Fast DDS peers, rmw_cyclonedds_cpp's request header for the others), and so parameters
//! and actions, which are services and topics. The bridge writes its own `ros_discovery_info`,
//! so DDS tools see the rmw_zenoh nodes behind its endpoints. See docs/bridging.md.
//!
//! ## Why RustDDS
//!
//! Issues 20 and 28 weighed RustDDS (pure Rust) against the Cyclone DDS C library through
//! bindings (cyclors, what zenoh-bridge-ros2dds uses; it needs cmake and clang and has no API
//! for an RTPS sample's `related_sample_identity`, without which rmw_fastrtps_cpp's services
//! cannot be spoken, zenoh-plugin-ros2dds#492) and Dust DDS. RustDDS exposes the sample identity
//! both ways, keeps the README's set-up commands as they are, and with three fixes carried in
//! `third_party/rustdds` (see its `PATCHES.md`: loopback locators of discovered readers, 64000-
//! byte fragments, key hashes in disposes) does what the bridge needs with real rclpy nodes on
//! Fast DDS and with Cyclone DDS: topics both ways byte-exact and in order, 7 MB clouds both ways,
//! services, parameters and actions both ways (the tests in `router/tests/it/bridge/`). Its weak
//! spots, each handled or said: best-effort 7 MiB samples arrive only if no fragment is lost
//! (the socket buffer is capped by `net.core.rmem_max`), it sends no USER_DATA of its own (the
//! bridge's writers carry no `typehash`), it does not hand over the encapsulation's option
//! bytes, SEDP carries no history depth (DDS endpoints' depth is unknown to the bridge), and
//! `DataWriter::get_matched_subscriptions` is a placeholder that panics (the bridge reads the
//! writer's match events instead).
//!
//! * [`config`]: what to bridge: domain, interfaces, allow/deny per kind, frequency caps.
//! * [`names`]: ROS names and types on DDS and on zenoh, and where a type hash comes from.
//! * [`stats`]: per-route counters and every drop with its reason, logged once.
//! * `peers`: other bridges, and which one bridges when several see the same two networks.
//! * [`discovery`]: whether DDS discovery works on the chosen interfaces (`zshm doctor --dds`).
//! * [`Bridge`]: discovery on both sides, the routes, and [`RouteEvent`]s as they change.
//!
//! [RustDDS]: https://crates.io/crates/rustdds

#![deny(missing_docs)]

pub mod config;
mod dds;
pub mod discovery;
mod engine;
pub mod names;
mod peers;
mod ros_graph;
mod route;
pub(crate) mod service;
pub mod stats;

pub use config::{BridgeConfig, ConfigError, Kind};
pub use dds::DdsError;
pub use engine::{Bridge, BridgeError, Direction, RouteEvent, RouteInfo};
pub use service::framing::Framing;
