//! One module per subcommand, plus what they share: opening a session from the common flags,
//! waiting for SIGINT/SIGTERM, and telling input errors apart.

pub mod bench;
mod cam_latency;
mod cam_pub;
mod children;
mod demo;
mod doctor;
mod exporter;
mod graph;
mod listener;
mod metrics_http;
mod publish;
mod router;
mod scrape;
mod shm_clean;
mod subscribe;
mod talker;
mod traffic;

use std::process::ExitCode;

use std::sync::OnceLock;

use anyhow::Context;
use tokio::sync::watch;

use crate::cli::{Command, SessionArgs};

/// Runs one subcommand.
pub async fn run(command: Command) -> anyhow::Result<ExitCode> {
    install_shutdown_handler()?;
    match command {
        Command::Router(args) => router::run(args).await,
        Command::Pub(args) => publish::run(args).await,
        Command::Sub(args) => subscribe::run(args).await,
        Command::Talker(args) => talker::run(args).await,
        Command::Listener(args) => listener::run(args).await,
        Command::Topics(args) => graph::topics(args).await,
        Command::Nodes(args) => graph::nodes(args).await,
        Command::CamPub(args) => cam_pub::run(args).await,
        Command::CamLatency(args) => cam_latency::run(args).await,
        Command::Exporter(args) => exporter::run(args).await,
        Command::Traffic(args) => traffic::run(args).await,
        Command::ShmClean => shm_clean::run(),
        Command::Doctor(args) => doctor::run(args).await,
        Command::Demo(args) => demo::run(args).await,
        Command::Bench(args) => bench::run(args).await,
        Command::BenchRole(args) => bench::role::run(args).await,
    }
}

/// True for errors caused by what the user gave us (exit code 2).
pub fn is_input_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.is::<zshm::ConfigError>()
            || cause.is::<zshm::ros::names::NameError>()
            || cause
                .downcast_ref::<zshm::ros::NodeError>()
                .is_some_and(|e| matches!(e, zshm::ros::NodeError::Name(_)))
            || cause
                .downcast_ref::<zshm::OpenError>()
                .is_some_and(|e| matches!(e, zshm::OpenError::Config(_)))
    })
}

/// A session builder from the shared flags.
pub fn session_builder(role: zshm::Role, args: &SessionArgs) -> zshm::SessionBuilder {
    let mut builder = zshm::Session::builder_for(role)
        .listen(args.listen.iter().cloned())
        .connect(args.connect.iter().cloned())
        .no_shm(args.no_shm);
    if let Some(path) = &args.config {
        builder = builder.config_file(path);
    }
    builder
}

/// Opens a node session and creates a node from the shared node flags.
pub async fn open_node(
    session: &crate::cli::SessionArgs,
    node: &crate::cli::NodeArgs,
    name: &str,
) -> anyhow::Result<zshm::ros::Node> {
    let session = session_builder(zshm::Role::Session, session)
        .open()
        .await
        .context("cannot open the session")?;
    let options = zshm::ros::NodeOptions {
        namespace: node.namespace.clone(),
        domain: node.domain,
        ..Default::default()
    };
    zshm::ros::Node::new(&session, name, options)
        .await
        .context("cannot create the node")
}

/// The first SIGINT/SIGTERM, once received.
static SHUTDOWN: OnceLock<watch::Receiver<Option<&'static str>>> = OnceLock::new();

/// Catches SIGINT and SIGTERM from now on, so that a signal arriving before a subcommand waits
/// for it still ends the subcommand cleanly instead of killing the process. A second signal
/// exits at once (130), for a user whose clean shutdown hangs.
fn install_shutdown_handler() -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let (tx, rx) = watch::channel(None);
    tokio::spawn(async move {
        let mut received = 0;
        loop {
            let name = tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            };
            received += 1;
            if received > 1 {
                eprintln!("zshm: second {name}, exiting now");
                std::process::exit(130);
            }
            let _ = tx.send(Some(name));
        }
    });
    SHUTDOWN
        .set(rx)
        .map_err(|_| anyhow::anyhow!("signal handler installed twice"))
}

/// Resolves when the process receives SIGINT or SIGTERM (or has received one already).
pub async fn shutdown_signal() -> anyhow::Result<&'static str> {
    let mut rx = SHUTDOWN.get().context("signal handler not installed")?.clone();
    let name = rx.wait_for(Option::is_some).await?;
    Ok(name.expect("wait_for returned a value that is Some"))
}

/// The session's SHM status as JSON, for summaries.
pub fn shm_status_json(status: &zshm::ShmStatus) -> serde_json::Value {
    match status.unavailable_reason() {
        None => serde_json::json!({ "active": true, "detail": status.to_string() }),
        Some(reason) => serde_json::json!({
            "active": false,
            "reason": reason.label(),
            "detail": reason.to_string(),
            "remedy": reason.remedy(),
        }),
    }
}
