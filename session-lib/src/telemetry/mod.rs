//! Telemetry: what the Prometheus exporter collects, and from where.
//!
//! * [`report`]: each zshm session answers `@zshm/<zid>/report` with its SHM status, pool,
//!   fallbacks, rejected samples and probe histograms.
//! * [`zenoh_stats`]: zenoh's own statistics (built with `stats`), from the admin space of every
//!   node that enables it (`@/<zid>/<whatami>/metrics`): payload bytes through SHM vs network.
//! * [`host`]: the kernel's view: loopback bytes (`/proc/net/dev`, what `iftop -i lo` shows) and
//!   `/dev/shm` usage.
//! * [`exporter`]: gathers all of it at scrape time into Prometheus families.

pub mod exporter;
pub mod histogram;
pub mod host;
pub mod report;
pub mod zenoh_stats;
