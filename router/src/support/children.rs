//! Child `zshm` processes, for the subcommands that orchestrate others (`demo`, `bench`): start
//! them, read their stdout line by line, start a router and read back its addresses, stop them.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How long a child may take to start, print a line, or stop.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// How a child's logs are handled.
#[derive(Debug, Clone, Copy)]
pub enum Logs {
    /// Warnings and errors reach our stderr (a user watches).
    Shown,
    /// Dropped (a measurement must not pay for them).
    Hidden,
}

/// Starts `exe args...` with stdout piped and `env` added.
pub fn spawn(exe: &Path, args: &[&str], env: &[(&str, &str)], logs: Logs) -> anyhow::Result<Child> {
    let mut command = Command::new(exe);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    match logs {
        Logs::Shown => command
            .stderr(Stdio::inherit())
            .env("RUST_LOG", "warn,zenoh_config=error"),
        Logs::Hidden => command.stderr(Stdio::null()).env("RUST_LOG", "error"),
    };
    command.envs(env.iter().copied());
    command
        .spawn()
        .with_context(|| format!("cannot start zshm {}", args[0]))
}

/// Reads the child's stdout until a line matches (within [`PATIENCE`]); the rest of its stdout
/// stays readable.
pub async fn first_line_matching(
    child: &mut Child,
    matches: impl Fn(&str) -> bool,
    what: &str,
) -> anyhow::Result<String> {
    let stdout = child.stdout.take().context("stdout is piped")?;
    let mut lines = BufReader::new(stdout).lines();
    let found = tokio::time::timeout(PATIENCE, async {
        while let Some(line) = lines.next_line().await? {
            if matches(&line) {
                return Ok::<_, anyhow::Error>(line);
            }
        }
        anyhow::bail!("no {what}: the process exited first")
    })
    .await
    .with_context(|| format!("no {what} within {PATIENCE:?}"))??;
    child.stdout = Some(lines.into_inner().into_inner());
    Ok(found)
}

/// A router started by [`start_router`].
pub struct ChildRouter {
    /// The process.
    pub child: Child,
    /// Its loopback locator, e.g. `tcp/127.0.0.1:40123`.
    pub locator: String,
    /// Its metrics URL, when it serves metrics.
    pub metrics_url: Option<String>,
}

/// Starts `zshm router` on an ephemeral loopback port (plus `extra` flags) and reads back its
/// locator and metrics URL from its status line.
pub async fn start_router(exe: &Path, extra: &[&str], logs: Logs) -> anyhow::Result<ChildRouter> {
    let mut child = spawn(
        exe,
        &[&["router", "-l", "tcp/127.0.0.1:0"], extra].concat(),
        &[],
        logs,
    )?;
    let status = first_line_matching(
        &mut child,
        |l| l.starts_with("zshm router: listening on "),
        "router status line",
    )
    .await?;
    let locator = status
        .split([' ', ',', ';'])
        .find(|w| w.starts_with("tcp/127.0.0.1:"))
        .context("the router reported no loopback locator")?
        .to_owned();
    let metrics_url = status
        .rsplit("metrics ")
        .next()
        .filter(|m| m.starts_with("http"))
        .map(str::to_owned);
    Ok(ChildRouter {
        child,
        locator,
        metrics_url,
    })
}

/// Sends SIGINT to the child.
pub fn interrupt(child: &Child) {
    if let Some(pid) = child.id() {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGINT,
        );
    }
}

/// Waits up to `wait` for the child to print its JSON report and exit, interrupting it when the
/// time is up; returns the last JSON line it printed.
pub async fn last_json_line(child: &mut Child, wait: Duration) -> anyhow::Result<String> {
    let stdout = child.stdout.take().context("stdout is piped")?;
    let mut lines = BufReader::new(stdout).lines();
    let mut last = None;
    let read = async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.starts_with('{') {
                last = Some(line);
            }
        }
    };
    if tokio::time::timeout(wait, read).await.is_err() {
        interrupt(child);
        while let Ok(Ok(Some(line))) = tokio::time::timeout(PATIENCE, lines.next_line()).await {
            if line.starts_with('{') {
                last = Some(line);
            }
        }
    }
    let _ = tokio::time::timeout(PATIENCE, child.wait()).await;
    last.context("no report")
}

/// Removes the segments our children left in /dev/shm once they all exited: zenoh unlinks a
/// segment only when no process maps it, so the last child to exit can leave one behind.
pub fn remove_their_segments() {
    let (segments, bytes) = zshm::shm::cleanup_orphaned_segments();
    tracing::debug!(segments, bytes, "removed the children's leftover segments");
}

/// Interrupts the child and waits for it, killing it if it does not stop within [`PATIENCE`].
pub async fn stop(child: &mut Child) {
    interrupt(child);
    if tokio::time::timeout(PATIENCE, child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
}
