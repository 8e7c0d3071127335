//! `zshm exporter`: the Prometheus endpoint alone, for robots that run stock `rmw_zenohd`. It
//! joins the zenoh network (connect it to the router with `-e`) and answers scrapes with the
//! same series as `zshm router`.

use std::process::ExitCode;

use anyhow::Context;
use zshm::telemetry::exporter::Exporter;

use crate::cli::ExporterArgs;

/// Serves until SIGINT or SIGTERM.
pub async fn run(args: ExporterArgs) -> anyhow::Result<ExitCode> {
    let session = super::session_builder(zshm::Role::Session, &args.session)
        .open()
        .await
        .context("cannot open the session")?;
    let bound = super::metrics_http::serve(args.metrics, Exporter::new(session.clone())).await?;
    println!("zshm exporter: metrics at http://{bound}/metrics");
    super::shutdown_signal().await?;
    session
        .close()
        .await
        .map_err(|err| anyhow::anyhow!("closing the session: {err}"))?;
    Ok(ExitCode::SUCCESS)
}
