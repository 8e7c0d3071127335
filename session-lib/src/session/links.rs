//! Which links to other processes on this host carry shared memory, and why not when they do
//! not. zenoh negotiates SHM per link when it opens: if the other process cannot map this one's
//! segments (or the reverse), the link silently carries copies over TCP. The classic case is two
//! users on one host: zenoh creates segments with mode 0600, private to their owner.
//!
//! The session watches its links: a link to this host whose transport is not SHM, while this
//! process has shared memory, is counted and logged once per cause with its fix, and its cause
//! is kept for [`super::Session::shm_link_problem`].

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::stats::{LinkShmCause, SessionStats};

/// Why a link to a process on this host carries no shared memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkShmProblem {
    /// The other process's zenoh id.
    pub peer: String,
    /// The cause.
    pub cause: LinkShmCause,
    /// With [`LinkShmCause::OtherUser`]: the owners (uids) of segments this user cannot map.
    pub other_uids: Vec<u32>,
}

impl fmt::Display for LinkShmProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.cause {
            LinkShmCause::OtherUser => write!(
                f,
                "the link to {} carries copies over TCP: it belongs to another user (segments of uid {:?} in /dev/shm), \
                 and zenoh's segments are private to their owner (mode 0600)",
                self.peer, self.other_uids
            ),
            LinkShmCause::PeerWithoutShm => write!(
                f,
                "the link to {} carries copies over TCP: that process has shared memory off (its config, --no-shm, \
                 or its own fallback)",
                self.peer
            ),
        }
    }
}

impl LinkShmProblem {
    /// What to do about it.
    pub fn remedy(&self) -> &'static str {
        self.cause.remedy()
    }
}

/// What the watcher shares with the session.
#[derive(Debug, Default)]
pub(crate) struct LinkWatch {
    last: Mutex<Option<LinkShmProblem>>,
    seen: Mutex<HashSet<String>>,
}

impl LinkWatch {
    pub(crate) fn last(&self) -> Option<LinkShmProblem> {
        self.last
            .lock()
            .expect("no panics while holding the link problem")
            .clone()
    }
}

/// Starts watching the links of `session`: a background listener, and a task the caller must
/// abort with the session (it holds a handle of the session).
pub(crate) async fn watch(
    session: &zenoh::Session,
    stats: Arc<SessionStats>,
    dev_shm: std::path::PathBuf,
) -> Result<(Arc<LinkWatch>, tokio::task::AbortHandle), zenoh::Error> {
    let state = Arc::new(LinkWatch::default());
    let (tx, rx) = flume::unbounded::<zenoh::session::ZenohId>();
    session
        .info()
        .link_events_listener()
        .history(true)
        .callback(move |event| {
            if event.kind() == zenoh::sample::SampleKind::Put && same_host(event.link()) {
                // The receiver lives as long as the session's task; a closed one means shutdown.
                let _ = tx.send(*event.link().zid());
            }
        })
        .background()
        .await?;
    let (session, watch) = (session.clone(), state.clone());
    let task = tokio::spawn(async move {
        while let Ok(zid) = rx.recv_async().await {
            let Some(shm) = session
                .info()
                .transports()
                .await
                .find(|t| t.zid() == &zid)
                .map(|t| t.is_shm())
            else {
                continue;
            };
            if !shm {
                record(&watch, &stats, &dev_shm, zid.to_string());
            }
        }
    });
    Ok((state, task.abort_handle()))
}

fn record(watch: &LinkWatch, stats: &SessionStats, dev_shm: &std::path::Path, peer: String) {
    if !watch
        .seen
        .lock()
        .expect("no panics while holding the seen set")
        .insert(peer.clone())
    {
        return;
    }
    let other_uids = crate::shm::usage::foreign_segment_owners(dev_shm);
    let cause = if other_uids.is_empty() {
        LinkShmCause::PeerWithoutShm
    } else {
        LinkShmCause::OtherUser
    };
    let problem = LinkShmProblem {
        peer,
        cause,
        other_uids,
    };
    if stats.link_without_shm(cause) {
        match cause {
            LinkShmCause::OtherUser => tracing::warn!(
                cause = cause.label(),
                "{problem}; fix: {} (counted; later links are not logged)",
                problem.remedy()
            ),
            LinkShmCause::PeerWithoutShm => tracing::info!(
                cause = cause.label(),
                "{problem} (counted; later links are not logged)"
            ),
        }
    }
    *watch
        .last
        .lock()
        .expect("no panics while holding the link problem") = Some(problem);
}

/// A link to this host: over loopback, or a local socket.
fn same_host(link: &zenoh::session::Link) -> bool {
    let dst = link.dst().to_string();
    let address = dst.split_once('/').map_or("", |(_, rest)| rest);
    link.interfaces().iter().any(|i| i == "lo")
        || dst.starts_with("unixsock-stream/")
        || address.starts_with("127.")
        || address.starts_with("[::1]")
        || address.starts_with("localhost:")
}
