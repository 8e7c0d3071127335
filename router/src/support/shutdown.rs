//! SIGINT and SIGTERM: caught once for the whole program, so that every long-running command
//! can wait for the first one and end cleanly (children stopped, sessions closed, segments
//! released) instead of being killed.
//!
//! A second signal means "hurry": [`second_signal`] resolves, so the children still stopping are
//! killed at once, and the program still returns through its destructors. Only if it has not
//! ended [`GRACE`] after that does it kill what it started and exit (130) on the spot.

use std::sync::OnceLock;
use std::time::Duration;

use anyhow::Context;
use tokio::sync::watch;

use super::children;

/// How long the program may take to end after a second signal before it exits on the spot.
pub const GRACE: Duration = Duration::from_secs(5);

/// The signals received so far: the name of the first one, and how many.
#[derive(Debug, Clone, Copy, Default)]
struct Received {
    first: Option<&'static str>,
    count: u32,
}

static SHUTDOWN: OnceLock<watch::Sender<Received>> = OnceLock::new();

/// Catches SIGINT and SIGTERM from now on, so that a signal arriving before a subcommand waits
/// for it still ends the subcommand cleanly instead of killing the process.
pub fn install() -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let (tx, _) = watch::channel(Received::default());
    SHUTDOWN
        .set(tx)
        .map_err(|_| anyhow::anyhow!("signal handler installed twice"))?;
    let tx = SHUTDOWN.get().context("signal handler lost")?;
    tokio::spawn(async move {
        loop {
            let name = tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            };
            tx.send_modify(|received| {
                received.first.get_or_insert(name);
                received.count += 1;
            });
            if tx.borrow().count == 2 {
                eprintln!("zshm: second {name}: stopping what is left now");
                last_resort();
            }
        }
    });
    Ok(())
}

/// Asks the program to stop as a first signal would, for a reason that is not a signal (a
/// closed stdout, see `out`). Does nothing once a signal came.
pub fn request(reason: &'static str) {
    if let Some(tx) = SHUTDOWN.get() {
        tx.send_if_modified(|received| {
            let first = received.count == 0;
            if first {
                (received.first, received.count) = (Some(reason), 1);
            }
            first
        });
    }
}

/// If the program has not ended [`GRACE`] after the second signal (a shutdown that hangs), kills
/// its children, removes their segments and exits 130. A thread, so that it works even when
/// the async runtime is stuck.
fn last_resort() {
    let spawned = std::thread::Builder::new()
        .name("zshm-last-resort".into())
        .spawn(|| {
            std::thread::sleep(GRACE);
            eprintln!("zshm: still running {GRACE:?} after the second signal, exiting now");
            children::kill_everything_now();
            std::process::exit(130);
        });
    if let Err(err) = spawned {
        eprintln!("zshm: cannot watch the shutdown ({err}); exiting now");
        children::kill_everything_now();
        std::process::exit(130);
    }
}

async fn wait_for(count: u32) -> anyhow::Result<&'static str> {
    let mut rx = SHUTDOWN
        .get()
        .context("signal handler not installed")?
        .subscribe();
    let received = rx.wait_for(|r| r.count >= count).await?;
    received.first.context("a signal was counted without its name")
}

/// Resolves when the process receives SIGINT or SIGTERM (or has received one already).
pub async fn signal() -> anyhow::Result<&'static str> {
    wait_for(1).await
}

/// Resolves when the first SIGINT or SIGTERM arrives or has arrived (never, if the handler is not
/// installed, as in unit tests; [`signal`] returns an error at once there).
pub async fn first_signal() {
    if wait_for(1).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Resolves when a second SIGINT or SIGTERM arrives (never, if the handler is not installed).
pub async fn second_signal() {
    if wait_for(2).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Runs `work` unless a signal comes first (or has come already): `None` then, and `work` is
/// dropped. For the waits of a command (for subscribers, for a lingering reader) that must not
/// hold up a user who pressed Ctrl-C.
pub async fn unless_signalled<F: Future>(work: F) -> Option<F::Output> {
    tokio::select! {
        output = work => Some(output),
        _ = signal() => None,
    }
}
