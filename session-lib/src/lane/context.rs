//! [`LaneContext`]: a session's iceoryx2 node in its user's lane domain, created on first use,
//! and the dead-node cleanup every lane object relies on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use iceoryx2::prelude::*;

use super::Svc;
use super::domain::{self, LaneSettings};
use super::doorbell::Rings;
use super::status::LaneUnavailable;
use crate::stats::SessionStats;

/// Free space /dev/shm must have for the lane to start. iceoryx2 sizes its segments when it
/// creates them but tmpfs gives pages only when they are first written, and a write to a full
/// tmpfs kills the process (SIGBUS): with /dev/shm (nearly) full, the lane stays off and the
/// session uses zenoh, which says why.
pub const MIN_FREE_DEV_SHM: u64 = 16 << 20;

/// How often the cleanup runs while a subscriber left lately.
const CLEANUP_AFTER_LEAVE: Duration = Duration::from_secs(1);

/// How long after a subscriber left the cleanup runs every [`CLEANUP_AFTER_LEAVE`].
const LEAVE_WINDOW: Duration = Duration::from_secs(10);

/// How often the cleanup runs otherwise: a backstop. A dead process's ports are found by its
/// tokens going, which ends every zenoh session that dies; looking every second regardless cost
/// each lane process 0.37 ms of CPU a second with two processes in the domain (iceoryx2 reads
/// every node's files to list them), more with more, while nothing died (BENCHMARKS.md).
const CLEANUP_BACKSTOP: Duration = Duration::from_secs(30);

/// When the process's cleanup last ran, and when a subscriber last left.
#[derive(Debug)]
struct CleanupClock {
    last: Instant,
    last_leave: Option<Instant>,
}

/// One process's (one session's) presence in the lane domain.
#[derive(Debug)]
pub struct LaneContext {
    node: Node<Svc>,
    root: PathBuf,
    stats: Arc<SessionStats>,
    /// When the cleanup last ran and a subscriber last left (see [`LaneContext::cleanup_due`]).
    cleanup: Mutex<CleanupClock>,
    /// Whether subscriptions ask their executor for a doorbell (`ZSHM_LANE_WAKE`).
    doorbells: bool,
    /// The doorbells this process's publishers ring.
    rings: Rings,
}

impl LaneContext {
    /// Creates the node, after checking /dev/shm and the private directory. Blocks for a few
    /// milliseconds (iceoryx2 writes files and cleans what dead nodes of the domain left).
    pub fn start(
        settings: &LaneSettings,
        dev_shm: &Path,
        name: &str,
        stats: Arc<SessionStats>,
    ) -> Result<Arc<Self>, LaneUnavailable> {
        if let Some(off) = &settings.off {
            return Err(off.clone());
        }
        crate::shm::preflight::check_dev_shm(dev_shm, MIN_FREE_DEV_SHM).map_err(|reason| {
            LaneUnavailable::DevShmUnusable {
                error: reason.to_string(),
            }
        })?;
        domain::ensure_private_dir(&settings.root)?;
        let config = domain::iceoryx2_config(&settings.root)?;
        domain::install_as_global(&config, &settings.root);
        let node = domain::create_node(&config, name)?;
        tracing::debug!(root = %settings.root.display(), "lane: iceoryx2 node created");
        Ok(Arc::new(Self {
            node,
            root: settings.root.clone(),
            stats,
            cleanup: Mutex::new(CleanupClock {
                last: Instant::now(),
                last_leave: None,
            }),
            doorbells: settings.doorbells,
            rings: Rings::new(domain::bells_dir(&settings.root)),
        }))
    }

    /// The iceoryx2 node.
    pub fn node(&self) -> &Node<Svc> {
        &self.node
    }

    /// The domain's private directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether this session's subscriptions are woken through their executor's doorbell
    /// ([`super::doorbell`]) rather than through each publisher's own event.
    pub fn doorbells(&self) -> bool {
        self.doorbells
    }

    /// The doorbells this process's publishers ring.
    pub fn rings(&self) -> &Rings {
        &self.rings
    }

    /// The session's counters.
    pub fn stats(&self) -> &Arc<SessionStats> {
        &self.stats
    }

    /// True to the first caller once the process's next cleanup is due: every
    /// [`CLEANUP_AFTER_LEAVE`] for [`LEAVE_WINDOW`] after a subscriber left
    /// ([`subscriber_left`](Self::subscriber_left)), every [`CLEANUP_BACKSTOP`] otherwise. The
    /// cleanup is the node's, so one publisher of the process runs it, not each.
    pub fn cleanup_due(&self) -> bool {
        let mut clock = self.cleanup.lock().unwrap_or_else(PoisonError::into_inner);
        let left_lately = clock.last_leave.is_some_and(|at| at.elapsed() < LEAVE_WINDOW);
        let period = if left_lately {
            CLEANUP_AFTER_LEAVE
        } else {
            CLEANUP_BACKSTOP
        };
        if clock.last.elapsed() < period {
            return false;
        }
        clock.last = Instant::now();
        true
    }

    /// A subscriber's token went: the caller cleans up now, and the cleanup is due often for a
    /// while, in case the process was not dead yet when its token went.
    pub fn subscriber_left(&self) {
        let mut clock = self.cleanup.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        clock.last = now;
        clock.last_leave = Some(now);
    }

    /// Removes what dead processes of the domain left (their ports stay registered, and counted
    /// as subscribers, until someone does). Takes a fraction of a millisecond when none died.
    pub fn cleanup_dead_nodes(&self) {
        let state = self.node.try_cleanup_dead_nodes();
        if state.cleanups > 0 || state.failed_cleanups > 0 {
            tracing::info!(
                cleaned = state.cleanups,
                failed = state.failed_cleanups,
                "lane: removed what dead processes left"
            );
        }
    }
}
