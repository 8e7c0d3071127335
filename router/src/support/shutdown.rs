//! SIGINT and SIGTERM: caught once for the whole program, so that every long-running command
//! can wait for the first one and end cleanly (children stopped, sessions closed, segments
//! released) instead of being killed.

use std::sync::OnceLock;

use anyhow::Context;
use tokio::sync::watch;

/// The first SIGINT/SIGTERM, once received.
static SHUTDOWN: OnceLock<watch::Receiver<Option<&'static str>>> = OnceLock::new();

/// Catches SIGINT and SIGTERM from now on, so that a signal arriving before a subcommand waits
/// for it still ends the subcommand cleanly instead of killing the process. A second signal
/// exits at once (130), for a user whose clean shutdown hangs.
pub fn install() -> anyhow::Result<()> {
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
pub async fn signal() -> anyhow::Result<&'static str> {
    let mut rx = SHUTDOWN.get().context("signal handler not installed")?.clone();
    let name = rx.wait_for(Option::is_some).await?;
    Ok(name.expect("wait_for returned a value that is Some"))
}
