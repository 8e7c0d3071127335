//! `zshm exporter`: the Prometheus endpoint alone, for robots that run stock `rmw_zenohd`. It
//! joins the zenoh network (connect it to the router with `-e`) and answers scrapes with the
//! same series as `zshm router`.

use std::process::ExitCode;

use crate::cli::SessionArgs;
use crate::support::out::outln;
use crate::support::{metrics_http, session, shutdown};

/// `zshm exporter`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Config file and the router to connect to (-e).
    #[command(flatten)]
    pub session: SessionArgs,
    /// Serve Prometheus metrics at http://ADDR/metrics (port 0: any free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9477")]
    pub metrics: std::net::SocketAddr,
}

/// Serves until SIGINT or SIGTERM.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = session::open(&args.session).await?;
    let socket = metrics_http::bind(args.metrics).await?;
    outln!("zshm exporter: metrics at http://{}/metrics", socket.addr);
    let server = metrics_http::serve(socket, session.clone());
    shutdown::signal().await?;
    let _ = tokio::time::timeout(metrics_http::SCRAPE_DEADLINE, server).await;
    session::close(&session).await?;
    Ok(ExitCode::SUCCESS)
}
