//! The same-host lane between sessions of this process: a router session and node sessions on
//! ephemeral loopback ports, real iceoryx2 in a private root per test (removed afterwards, with
//! the root's files in /dev/shm).

// Delivery through the lane, foreign subscribers, switching paths, publisher restarts.
mod paths;
// QoS through the lane: transient-local history, KEEP_ALL, depths above the lane's, lane off.
mod qos;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use zshm::config::Environment;
use zshm::ros::{Node, NodeOptions};
use zshm::{Role, Session};

use crate::test_env;

pub const DEADLINE: Duration = Duration::from_secs(30);

/// A private lane domain: its root, and its files in /dev/shm, are removed when it drops.
pub struct Domain {
    root: PathBuf,
}

impl Domain {
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Self {
            root: PathBuf::from(format!("/tmp/zl-it-{}-{n}", std::process::id())),
        }
    }

    pub fn root(&self) -> &std::path::Path {
        &self.root
    }

    pub fn env(&self) -> Environment {
        test_env()
            .with("ZSHM_LANE", "on")
            .with("ZSHM_LANE_ROOT", &self.root.display().to_string())
    }
}

impl Drop for Domain {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
        let prefix = zshm::internal::lane::domain::prefix(&self.root);
        for entry in std::fs::read_dir("/dev/shm").into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// A router session and the locator nodes connect to, as on a robot.
pub struct Net {
    env: Environment,
    locator: String,
    _router: Session,
}

impl Net {
    pub async fn start(env: Environment) -> Self {
        let router = Session::builder_for(Role::Router)
            .environment(env.clone())
            .listen(["tcp/127.0.0.1:0"])
            .connect(Vec::<String>::new())
            .open()
            .await
            .unwrap();
        let locator = router.locators().await.into_iter().next().unwrap();
        Self {
            env,
            locator,
            _router: router,
        }
    }

    /// The router's locator.
    pub fn locator(&self) -> &str {
        &self.locator
    }

    /// A node in its own session (its own process, as far as zenoh and the lane can tell).
    /// It publishes no `/parameter_events`: the lane tests count every message their sessions
    /// publish, and the node's own events would be among them.
    pub async fn node(&self, name: &str) -> (Session, Node) {
        let session = self.session().await;
        let options = NodeOptions {
            start_parameter_event_publisher: false,
            ..NodeOptions::default()
        };
        let node = Node::new(&session, name, options).await.unwrap();
        (session, node)
    }

    pub async fn session(&self) -> Session {
        self.session_with_lane(true).await
    }

    /// A session with the lane on or off (a zshm node that is reached through zenoh only).
    pub async fn session_with_lane(&self, lane: bool) -> Session {
        Session::builder()
            .environment(self.env.clone())
            .no_lane(!lane)
            .listen(["tcp/127.0.0.1:0"])
            .connect([self.locator.clone()])
            .open()
            .await
            .unwrap()
    }
}

/// Polls `done` every few milliseconds until it holds; panics with `what` at the deadline.
pub async fn until(what: &str, done: impl FnMut() -> bool) {
    until_or(done, || format!("{what} did not happen within {DEADLINE:?}")).await
}

/// [`until`], with the failure message built when it fails (to show the state then).
pub async fn until_or(mut done: impl FnMut() -> bool, failure: impl Fn() -> String) {
    let deadline = Instant::now() + DEADLINE;
    while !done() {
        assert!(Instant::now() < deadline, "{}", failure());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Sequence numbers received from one publisher are contiguous from the first, without repeats.
pub fn assert_contiguous(seqs: &[i64]) {
    for pair in seqs.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "a gap or a repeat in {seqs:?}");
    }
}
