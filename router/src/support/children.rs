//! Child `zshm` processes, for the subcommands that orchestrate others (`demo`, `bench`): start
//! them, read their stdout, start a router and read back its addresses, and stop them, always.
//!
//! A child is never left behind, whatever path the parent takes:
//!
//! * [`stop`] interrupts a child and waits for it (its session closes, its pool is freed).
//! * An early return, a `?` or a cancelled future drops a [`ChildProc`] still running: the drop
//!   interrupts it (SIGINT, never SIGKILL, which would leave its segments in /dev/shm) and hands
//!   it to [`finish`], which the program runs after every command: it waits for those children,
//!   kills what does not stop within [`PATIENCE`] (at once after a second signal) and removes
//!   the segments they left.
//! * Children follow their parent: each one asks the kernel for SIGTERM when its parent dies
//!   ([`follow_parent`]), so even a SIGKILLed `zshm demo` leaves nothing running.

use std::collections::HashSet;
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How long a child may take to start, print a line, or stop.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// The environment variable that tells a child which process is its parent ([`follow_parent`]).
const PARENT_VAR: &str = "ZSHM_PARENT_PID";

/// Children dropped while running, interrupted and waiting for [`finish`].
static ORPHANS: Mutex<Vec<Child>> = Mutex::new(Vec::new());

/// Every child not yet known to have exited, for the last resort of [`kill_everything_now`].
static LIVE: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

/// Whether this process ever started a child (then [`finish`] cleans up their segments).
static STARTED_ANY: AtomicBool = AtomicBool::new(false);

fn track(pid: Option<u32>, live: bool) {
    let Some(pid) = pid else { return };
    let mut set = LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let set = set.get_or_insert_with(HashSet::new);
    if live {
        set.insert(pid);
    } else {
        set.remove(&pid);
    }
}

/// A running child process that is stopped whatever happens (see the module docs). Use it as a
/// [`tokio::process::Child`].
#[derive(Debug)]
pub struct ChildProc {
    child: Option<Child>,
    // Kept apart: tokio forgets the pid once the child has been waited for.
    pid: Option<u32>,
    /// Where a child started with [`Logs::Hidden`] writes its errors (an unlinked file).
    errors: Option<std::fs::File>,
}

impl Deref for ChildProc {
    type Target = Child;

    fn deref(&self) -> &Child {
        self.child.as_ref().expect("the child is only taken out by drop")
    }
}

impl DerefMut for ChildProc {
    fn deref_mut(&mut self) -> &mut Child {
        self.child.as_mut().expect("the child is only taken out by drop")
    }
}

impl Drop for ChildProc {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Ok(Some(_)) = child.try_wait() {
            track(self.pid, false);
            return;
        }
        interrupt(&child);
        ORPHANS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(child);
    }
}

impl ChildProc {
    fn start(mut command: Command, what: &str) -> anyhow::Result<Self> {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .env(PARENT_VAR, std::process::id().to_string())
            // Stopping is ours to do, gently (see `Drop`); SIGKILL would leave segments behind.
            .kill_on_drop(false);
        let child = command.spawn().with_context(|| format!("cannot start {what}"))?;
        STARTED_ANY.store(true, Ordering::Relaxed);
        let pid = child.id();
        track(pid, true);
        Ok(Self {
            child: Some(child),
            pid,
            errors: None,
        })
    }

    /// The last lines of the errors a [`Logs::Hidden`] child logged (its `zshm: error: ...`
    /// among them), to say why it failed; empty when it logged none.
    pub fn errors_tail(&self) -> String {
        use std::io::{Read, Seek, SeekFrom};
        let Some(file) = &self.errors else {
            return String::new();
        };
        let mut text = String::new();
        let mut file = file;
        if file.seek(SeekFrom::Start(0)).is_err() || file.read_to_string(&mut text).is_err() {
            return String::new();
        }
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(5)..].join(" | ")
    }

    /// `err`, with what the child said ([`errors_tail`](Self::errors_tail)) when it said
    /// anything.
    pub fn explained(&self, err: anyhow::Error) -> anyhow::Error {
        let said = self.errors_tail();
        if said.is_empty() {
            err
        } else {
            err.context(format!("it said: {said}"))
        }
    }

    /// Reads the child's stdout in the background from now on, so the child never blocks on a
    /// full pipe however long it runs; resolves to its last JSON line once stdout closes.
    pub fn drain_json(&mut self) -> anyhow::Result<tokio::task::JoinHandle<Option<String>>> {
        let stdout = self.stdout.take().context("stdout is piped")?;
        Ok(tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            let mut last = None;
            while let Ok(Some(line)) = lines.next_line().await {
                if line.starts_with('{') {
                    last = Some(line);
                }
            }
            last
        }))
    }
}

/// How a child's logs are handled.
#[derive(Debug, Clone, Copy)]
pub enum Logs {
    /// Warnings and errors reach our stderr (a user watches).
    Shown,
    /// Only errors and zshm's once-logged warnings, kept in a file for
    /// [`ChildProc::errors_tail`] (a measurement must not pay for logs, but a failed process or
    /// a lossy case must say why).
    Hidden,
}

/// Starts `exe args...` with stdout piped and `env` added.
pub fn spawn(exe: &Path, args: &[&str], env: &[(&str, &str)], logs: Logs) -> anyhow::Result<ChildProc> {
    let mut command = Command::new(exe);
    command.args(args);
    let errors = match logs {
        Logs::Shown => {
            command
                .stderr(Stdio::inherit())
                .env("RUST_LOG", "warn,zenoh_config=error");
            None
        }
        Logs::Hidden => {
            let file = tempfile::tempfile().context("cannot make a file for a child's errors")?;
            command
                .stderr(file.try_clone().context("cannot share a file with a child")?)
                // zshm's own warnings (targets `zshm` and `zshm_cli`: a filter's target is a
                // prefix) are each logged once (a drop, a fallback), and so is zenoh-shm's for a
                // buffer it could not read: cheap, and they say why a measured case lost messages.
                .env("RUST_LOG", "error,zshm=warn,zenoh_shm=warn");
            Some(file)
        }
    };
    command.envs(env.iter().copied());
    let mut child = ChildProc::start(command, &format!("zshm {}", args.first().unwrap_or(&"")))?;
    child.errors = errors;
    Ok(child)
}

/// When started by another zshm ([`spawn`]), asks the kernel to send this process SIGTERM when
/// that parent dies, so that a parent killed with SIGKILL leaves no child running; exits at once
/// if the parent is already gone.
pub fn follow_parent() -> anyhow::Result<()> {
    let Ok(parent) = std::env::var(PARENT_VAR) else {
        return Ok(());
    };
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGTERM)
        .context("cannot ask to be stopped with the parent process")?;
    // The parent may have died before the request: then nobody will send the signal.
    if nix::unistd::getppid().as_raw().to_string() != parent {
        anyhow::bail!("the zshm process that started this one ({parent}) is gone");
    }
    Ok(())
}

/// Reads the child's stdout until a line matches (within [`PATIENCE`]); the rest of its stdout
/// stays readable.
pub async fn first_line_matching(
    child: &mut Child,
    matches: impl Fn(&str) -> bool,
    what: &str,
) -> anyhow::Result<String> {
    line_matching_within(child, matches, what, PATIENCE).await
}

/// [`first_line_matching`] within `wait` instead of [`PATIENCE`]: for a line that comes after
/// work of its own (a report).
pub async fn line_matching_within(
    child: &mut Child,
    matches: impl Fn(&str) -> bool,
    what: &str,
    wait: Duration,
) -> anyhow::Result<String> {
    let stdout = child.stdout.take().context("stdout is piped")?;
    let mut lines = BufReader::new(stdout).lines();
    let found = tokio::time::timeout(wait, async {
        while let Some(line) = lines.next_line().await? {
            if matches(&line) {
                return Ok::<_, anyhow::Error>(line);
            }
        }
        anyhow::bail!("no {what}: the process exited first")
    })
    .await
    .with_context(|| format!("no {what} within {wait:?}"))??;
    child.stdout = Some(lines.into_inner().into_inner());
    Ok(found)
}

/// A router started by [`start_router`].
pub struct ChildRouter {
    /// The process.
    pub child: ChildProc,
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
    .await
    .map_err(|err| child.explained(err))?;
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

/// Interrupts the child and waits for it, killing it if it does not stop within [`PATIENCE`].
pub async fn stop(child: &mut Child) {
    let pid = child.id();
    interrupt(child);
    if tokio::time::timeout(PATIENCE, child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
    track(pid, false);
}

/// Stops every child a dropped [`ChildProc`] left running, then removes the segments the
/// children left in /dev/shm (see [`stop_orphans`]). The program runs this after every command.
pub async fn finish(hurry: impl Future<Output = ()>) {
    stop_orphans(hurry).await;
    if STARTED_ANY.load(Ordering::Relaxed) {
        remove_their_segments();
    }
}

/// Waits up to [`PATIENCE`] for the children dropped [`ChildProc`]s left running (they were
/// interrupted already), or until `hurry` resolves (a second signal), and kills the rest.
async fn stop_orphans(hurry: impl Future<Output = ()>) {
    let orphans: Vec<Child> =
        std::mem::take(&mut *ORPHANS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    let mut hurry = std::pin::pin!(hurry);
    // Once `hurry` resolved it must not be polled again, and the children left are killed at once.
    let mut hurried = false;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    for mut child in orphans {
        let pid = child.id();
        if !hurried {
            tokio::select! {
                _ = child.wait() => {}
                _ = tokio::time::sleep_until(deadline) => {}
                _ = &mut hurry => hurried = true,
            }
        }
        if !matches!(child.try_wait(), Ok(Some(_))) {
            tracing::warn!(pid, "a child did not stop in time: killed");
            let _ = child.kill().await;
        }
        track(pid, false);
    }
}

/// Last resort when the program must exit now (it did not finish after a second signal): kills
/// every child not yet known to have exited, and removes the segments they leave.
pub fn kill_everything_now() {
    let live: Vec<u32> = LIVE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take()
        .map(|set| set.into_iter().collect())
        .unwrap_or_default();
    for pid in &live {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    // A killed process releases its segment locks as it dies; give the kernel a moment.
    for pid in &live {
        let path = format!("/proc/{pid}/stat");
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        while std::time::Instant::now() < deadline
            && std::fs::read_to_string(&path).is_ok_and(|stat| !stat.contains(") Z "))
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    if STARTED_ANY.load(Ordering::Relaxed) {
        remove_their_segments();
    }
}

/// Removes the segments our children left in /dev/shm once they all exited: zenoh unlinks a
/// segment only when no process maps it, so the last child to exit can leave one behind.
pub fn remove_their_segments() {
    let (segments, bytes) = zshm::internal::shm::cleanup_orphaned_segments();
    tracing::debug!(segments, bytes, "removed the children's leftover segments");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression test for issue 11 ("demo reads the camera's piped stdout only at the end"):
    /// a child that prints far more than a pipe holds finishes on its own once drained, and its
    /// last JSON line is kept.
    #[tokio::test]
    async fn a_drained_child_never_blocks_on_its_stdout() {
        let script = "i=0; while [ $i -lt 20000 ]; do echo \"cam-pub: rate line $i\"; i=$((i+1)); done; \
                      echo '{\"published\":20000}'";
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        let mut child = ChildProc::start(command, "sh").unwrap();
        let report = child.drain_json().unwrap();
        let status = tokio::time::timeout(PATIENCE, child.wait())
            .await
            .expect("the child finished without anyone reading it explicitly")
            .unwrap();
        assert!(status.success());
        assert_eq!(report.await.unwrap().as_deref(), Some("{\"published\":20000}"));
    }

    /// A child dropped while running is interrupted, then stopped by `finish`.
    #[tokio::test]
    async fn a_dropped_child_is_interrupted_and_reaped_by_finish() {
        let mut command = Command::new("sh");
        command.args(["-c", "trap 'exit 7' INT; while :; do sleep 0.05; done"]);
        let child = ChildProc::start(command, "sh").unwrap();
        let pid = child.id().unwrap();
        drop(child);
        stop_orphans(std::future::pending()).await;
        assert!(
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_err(),
            "the child is gone and reaped"
        );
        assert!(!LIVE.lock().unwrap().as_ref().unwrap().contains(&pid));
    }
}
