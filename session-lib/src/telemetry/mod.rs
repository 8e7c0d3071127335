//! Telemetry: what the Prometheus exporter collects, and from where.
//!
//! * the node reports ([`crate::session::report`]): each zshm session answers
//!   `@zshm/<zid>/report` with its SHM status, pool, fallbacks, rejected samples and probe
//!   histograms.
//! * [`zenoh_stats`]: zenoh's own statistics (built with `stats`), from the admin space of every
//!   node that enables it (`@/<zid>/<whatami>/metrics`): payload bytes through SHM vs network.
//! * [`host`]: the kernel's view: loopback bytes (`/proc/net/dev`, what `iftop -i lo` shows),
//!   and `/dev/shm` usage ([`crate::shm::usage`]).
//! * [`exporter`]: gathers all of it at scrape time into Prometheus families.

pub mod exporter;
pub mod host;
pub mod zenoh_stats;

use std::time::Duration;

use zenoh::query::{ConsolidationMode, QueryTarget};

/// Asks every node answering `selector` and returns their samples (an unanswered or failed
/// query gives none: a scrape reports what it could gather).
pub(crate) async fn query_all(
    session: &zenoh::Session,
    selector: &str,
    timeout: Duration,
) -> Vec<zenoh::sample::Sample> {
    let replies = match session
        .get(selector)
        .target(QueryTarget::All)
        .consolidation(ConsolidationMode::None)
        .timeout(timeout)
        .await
    {
        Ok(replies) => replies,
        Err(err) => {
            tracing::debug!("`{selector}` not queried: {err}");
            return Vec::new();
        }
    };
    let mut samples = Vec::new();
    while let Ok(reply) = replies.recv_async().await {
        if let Ok(sample) = reply.into_result() {
            samples.push(sample);
        }
    }
    samples
}
