//! # zshm-ops: what the `zshm` program runs beside nodes
//!
//! The operations of a robot running zshm, apart from the node library so that a node's build
//! compiles none of them nor their Prometheus, TLS and netlink crates:
//!
//! * [`telemetry`]: the Prometheus exporter for the whole robot (zenoh's statistics per node
//!   and link, the nodes' reports, loopback bytes, each zenoh link's TCP bytes by the kernel's
//!   count, /dev/shm).
//! * [`tools`]: the doctor's machine checks, throw-away certificates, the soak's verdict, the
//!   latency probe and its statistics, CPU and memory use, the simulated camera and its data
//!   pattern.
//!
//! The `zshm` program (`router/`) is their one user, with its benchmarks and zshm's own tests.

#![deny(missing_docs)]

pub mod telemetry;

pub mod tools;
