//! A session's place in the same-host lane: decided at open ([`LaneSettings`]), its iceoryx2
//! node created when the first ROS endpoint needs it, and the status that reports either.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::lane::domain::LaneSettings;
use crate::lane::{LaneContext, LaneStatus, LaneUnavailable};
use crate::stats::SessionStats;

/// The lane of one session.
#[derive(Debug)]
pub(crate) struct LaneSlot {
    settings: LaneSettings,
    dev_shm: PathBuf,
    node_name: String,
    stats: Arc<SessionStats>,
    context: OnceLock<Result<Arc<LaneContext>, LaneUnavailable>>,
    starting: Mutex<()>,
}

impl LaneSlot {
    pub(crate) fn new(settings: LaneSettings, dev_shm: PathBuf, zid: &str, stats: Arc<SessionStats>) -> Self {
        if let Some(off) = &settings.off {
            tracing::info!(
                cause = off.label(),
                "lane off ({off}); zshm nodes talk through zenoh"
            );
        }
        Self {
            settings,
            dev_shm,
            node_name: format!("zshm-{zid}"),
            stats,
            context: OnceLock::new(),
            starting: Mutex::new(()),
        }
    }

    /// The lane's node, created on the first call (blocking: a few milliseconds). A failure is
    /// logged once at WARN and kept: the session then uses zenoh only.
    pub(crate) fn context(&self) -> Result<Arc<LaneContext>, LaneUnavailable> {
        if let Some(done) = self.context.get() {
            return done.clone();
        }
        let _one_at_a_time = self.starting.lock().expect("no panics while starting the lane");
        self.context
            .get_or_init(|| {
                let started =
                    LaneContext::start(&self.settings, &self.dev_shm, &self.node_name, self.stats.clone());
                match &started {
                    Ok(_) => tracing::info!(root = %self.settings.root.display(), "lane on"),
                    Err(off) if off.is_deliberate() => {}
                    Err(off) => tracing::warn!(
                        cause = off.label(),
                        "lane unavailable, zshm nodes talk through zenoh: {off}; fix: {}",
                        off.remedy()
                    ),
                }
                started
            })
            .clone()
    }

    pub(crate) fn status(&self) -> LaneStatus {
        if let Some(off) = &self.settings.off {
            return LaneStatus::Unavailable(off.clone());
        }
        let root = self.settings.root.clone();
        match self.context.get() {
            None => LaneStatus::Ready { root },
            Some(Ok(_)) => LaneStatus::Active { root },
            Some(Err(off)) => LaneStatus::Unavailable(off.clone()),
        }
    }
}
