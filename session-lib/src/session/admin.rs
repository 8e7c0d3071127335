//! Queries of the admin space of every process that answers (zenoh's `@/<zid>/<whatami>/…`):
//! their versions, sessions and statistics.

use std::time::Duration;

use zenoh::query::{ConsolidationMode, QueryTarget};

/// Asks every node answering `selector` and returns their samples (an unanswered or failed
/// query gives none: a scrape reports what it could gather).
pub async fn query_all(
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
