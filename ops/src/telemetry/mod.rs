//! Telemetry: what the Prometheus exporter collects, and from where.
//!
//! * the node reports ([`zshm::internal::session::report`]): each zshm session answers
//!   `@zshm/<zid>/report` with its SHM status, pool, fallbacks, rejected samples and probe
//!   histograms.
//! * [`zenoh_stats`]: zenoh's own statistics (built with `stats`), from the admin space of every
//!   node that enables it (`@/<zid>/<whatami>/metrics`): payload bytes through SHM vs network.
//! * [`host`]: the kernel's view: loopback bytes (`/proc/net/dev`, what `iftop -i lo` shows),
//!   each TCP connection's bytes, and `/dev/shm` usage ([`zshm::internal::shm::usage`]).
//! * [`tcp_links`]: each zenoh link of the host, its TCP bytes by the kernel's count and whether
//!   it shares memory: the traffic of nodes without statistics (rmw_zenoh_cpp).
//! * [`exporter`]: gathers all of it at scrape time into Prometheus families.

pub mod exporter;
pub mod host;
pub mod tcp_links;
pub mod zenoh_stats;

pub(crate) use zshm::internal::session::query_all;
