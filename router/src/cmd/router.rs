//! `zshm router`: a Zenoh router in the place of rmw_zenoh's `rmw_zenohd`.
//!
//! It prints `Started Zenoh router with id <zid>` exactly as rmw_zenohd does, then one status
//! line with the listen locators, the config used and the shared-memory state, and runs until
//! SIGINT or SIGTERM.

use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{MetricsArgs, SessionArgs};
use crate::support::out::outln;
use crate::support::{metrics_http, session, shutdown};

/// `zshm router`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// The Prometheus endpoint.
    #[command(flatten)]
    pub metrics: MetricsArgs,
}

/// Runs the router until a signal arrives.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = session::interruptible(session::builder(zshm::Role::Router, &args.session))
        .await
        .context("cannot start the router")?;
    if session.shm_status().is_active() {
        // Segments left in /dev/shm by processes that crashed since the last run.
        let (segments, bytes) = zshm::internal::shm::cleanup_orphaned_segments();
        if segments > 0 {
            tracing::info!(segments, bytes, "removed orphaned zenoh segments from /dev/shm");
        }
    }
    // Everything that can fail happens before the announcement: a launch file or script waiting
    // for `Started Zenoh router` must be able to trust it. A taken metrics port is not worth
    // stopping a robot's router for: it routes without metrics and says so.
    let socket = if args.metrics.no_metrics {
        Err("off".to_owned())
    } else {
        metrics_http::bind(args.metrics.metrics).await.map_err(|err| {
            tracing::warn!("{err:#}; routing without metrics (use --metrics ADDR or --no-metrics)");
            format!("off ({err:#})")
        })
    };
    outln!("Started Zenoh router with id {}", session.zid());
    let (metrics, server) = match socket {
        Ok(socket) => {
            let url = format!("http://{}/metrics", socket.addr);
            (url, Some(metrics_http::serve(socket, session.clone())))
        }
        Err(off) => (off, None),
    };
    outln!(
        "zshm router: listening on {}; config {}; shared memory {}; metrics {metrics}",
        session.locators().await.join(", "),
        session.config_source(),
        session.shm_status()
    );
    let signal = shutdown::signal().await?;
    tracing::info!("{signal} received, closing the router");
    if let Some(server) = server {
        // The endpoint stops on the same signal; let in-flight scrapes finish first.
        let _ = tokio::time::timeout(metrics_http::SCRAPE_DEADLINE, server).await;
    }
    session.close().await.context("cannot close the router")?;
    Ok(ExitCode::SUCCESS)
}
