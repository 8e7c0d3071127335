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

/// One process's (one session's) presence in the lane domain.
#[derive(Debug)]
pub struct LaneContext {
    node: Node<Svc>,
    root: PathBuf,
    stats: Arc<SessionStats>,
    /// When the last periodic cleanup was claimed (see [`LaneContext::cleanup_due`]).
    last_cleanup: Mutex<Instant>,
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
            last_cleanup: Mutex::new(Instant::now()),
            doorbells: settings.doorbells,
            rings: Rings::default(),
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

    /// True, once per `period` for the whole process, to the first caller: the periodic cleanup
    /// is the node's, so one publisher of the process runs it, not each (20 lane publishers
    /// each running it every second kept a thread of tokio's blocking pool busy for each).
    pub fn cleanup_due(&self, period: Duration) -> bool {
        let mut last = self.last_cleanup.lock().unwrap_or_else(PoisonError::into_inner);
        if last.elapsed() < period {
            return false;
        }
        *last = Instant::now();
        true
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
