//! `zshm bridge`: DDS-based ROS 2 nodes and rmw_zenoh / zshm nodes on one graph. Parses the
//! flags into a [`zshm_bridge::BridgeConfig`], opens the session, and prints one line per route
//! as it appears or disappears (the library decides the routes); on SIGINT/SIGTERM removes every
//! route and prints what each carried.

use std::process::ExitCode;

use anyhow::Context;
use zshm_bridge::{Bridge, BridgeConfig, RouteEvent};

use crate::cli::{FlagError, SessionArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm bridge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Config file, endpoints and shared memory of the zenoh side (-e tcp/ROUTER:7447 to name
    /// the router; default: the session config's).
    #[command(flatten)]
    pub session: SessionArgs,
    /// ROS domain, on both sides (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
    /// A local IP address DDS may use for discovery and data (repeatable). Default: 127.0.0.1
    /// only, so that nothing leaves the host unless you say so.
    #[arg(long = "dds-interface", value_name = "IP")]
    pub dds_interfaces: Vec<String>,
    /// Bridge only the topics matching: KIND=REGEX, KIND publisher (DDS publishers, routes
    /// DDS -> zenoh), subscriber (DDS subscriptions, routes zenoh -> DDS), service_server (DDS
    /// servers, for zenoh clients) or service_client (DDS clients, to zenoh servers). Repeatable.
    #[arg(long, value_name = "KIND=REGEX")]
    pub allow: Vec<String>,
    /// Never bridge the topics matching: KIND=REGEX, as --allow. Repeatable.
    #[arg(long, value_name = "KIND=REGEX")]
    pub deny: Vec<String>,
    /// At most HZ messages per second on the topics matching REGEX, either way; the rest are
    /// dropped and counted. Repeatable; the first match counts.
    #[arg(long = "max-frequency", value_name = "REGEX=HZ")]
    pub max_frequency: Vec<String>,
}

fn config(args: &Args, default_domain: u32) -> Result<BridgeConfig, zshm_bridge::ConfigError> {
    let mut config = BridgeConfig::new(args.domain.unwrap_or(default_domain))?
        .interfaces(args.dds_interfaces.iter().map(String::as_str))?;
    for rule in &args.allow {
        config = config.rule(rule, true)?;
    }
    for rule in &args.deny {
        config = config.rule(rule, false)?;
    }
    for cap in &args.max_frequency {
        config = config.max_frequency(cap)?;
    }
    Ok(config)
}

fn print(event: &RouteEvent) {
    match event {
        RouteEvent::Up(route) => outln!("route up: {route}"),
        RouteEvent::Down(route, summary) => outln!("route down: {route}: {summary}"),
        RouteEvent::Skipped { topic, reason } => tracing::info!(topic, "{reason}"),
        RouteEvent::Standby { active } => outln!(
            "standby: bridge {active} is older and bridges this DDS domain and zenoh network; taking over when it goes"
        ),
        RouteEvent::TakingOver { after } => outln!("taking over: bridge {after} went"),
    }
}

/// Bridges until SIGINT/SIGTERM.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    // The flags are checked before anything is opened, so a typo costs nothing.
    let domain_from_env = std::env::var("ROS_DOMAIN_ID")
        .ok()
        .and_then(|d| d.trim().parse().ok())
        .unwrap_or(0);
    let config = config(&args, domain_from_env).map_err(|e| FlagError(e.to_string()))?;
    let session = session::open(&args.session).await?;
    let interfaces: Vec<String> = config.interfaces.iter().map(ToString::to_string).collect();
    let domain = config.domain;
    let mut bridge = Bridge::start(&session, config)
        .await
        .context("cannot start the bridge")?;
    outln!(
        "zshm bridge: DDS domain {domain} on {}, zenoh {} ({})",
        interfaces.join(", "),
        session.zid(),
        session.shm_status()
    );
    let signal = shutdown::signal();
    tokio::pin!(signal);
    let stopped = loop {
        for event in bridge.reconcile().await {
            print(&event);
        }
        tokio::select! {
            signal = &mut signal => break signal,
            _ = bridge.changed() => {}
        }
    };
    for event in bridge.shutdown().await {
        print(&event);
    }
    session::close(&session).await?;
    tracing::info!("{} received: every route removed", stopped?);
    Ok(ExitCode::SUCCESS)
}
