//! Which links to other processes on this host carry shared memory, and why not when they do
//! not. zenoh negotiates SHM per link when it opens: if the other process cannot map this one's
//! segments (or the reverse), or speaks another version of the handshake, the link silently
//! carries copies over TCP. The classic cases are two users on one host (zenoh creates segments
//! with mode 0600, private to their owner) and two zenoh lines (1.10 against an earlier release,
//! [`crate::shm::compat`]): the other process's zenoh version is read from its admin space.
//!
//! The session watches its links: a link to this host whose transport is not SHM, while this
//! process has shared memory, is counted and logged once per cause with its fix, and its cause
//! is kept for [`super::Session::shm_link_problem`].

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::shm::compat::{VersionMismatch, ZenohVersion};
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
    /// The other process's zenoh, when its admin space said (with [`LinkShmCause::ZenohVersion`]
    /// it always did).
    pub peer_zenoh: Option<ZenohVersion>,
    /// With [`LinkShmCause::HandshakeSegment`]: which segment could not be opened.
    pub handshake: Option<HandshakeTrouble>,
}

/// Which handshake segment could not be opened ([`LinkShmCause::HandshakeSegment`]). When a link
/// opens, each process opens the other's small handshake segment in /dev/shm (zenoh's
/// `<id>.zenoh`, made when its session starts); if either cannot, the link carries copies. zshm's
/// copy of zenoh-shm records both sides of it (`third_party/zenoh-shm/PATCHES.md`, 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandshakeTrouble {
    /// This process's own handshake segment left /dev/shm while it runs: no link it opens from
    /// now on can share memory, whatever the other side does.
    OwnGone {
        /// Its file in /dev/shm.
        file: String,
    },
    /// This process could not open the handshake segment the other process named.
    PeerUnreadable {
        /// Its file in /dev/shm.
        file: String,
        /// Why: "it is not in /dev/shm", or the system's error.
        error: String,
    },
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
                 or its own fallback){}",
                self.peer,
                match self.peer_zenoh {
                    Some(v) => format!("; it runs zenoh {v}, which can share memory with this one"),
                    None => format!(
                        ", or it runs {}, whose shared-memory handshake this process's zenoh {} does not speak \
                         (its admin space did not say its version)",
                        other_line(ZenohVersion::ours()).releases(),
                        ZenohVersion::ours()
                    ),
                }
            ),
            LinkShmCause::HandshakeSegment => match &self.handshake {
                Some(HandshakeTrouble::OwnGone { file }) => write!(
                    f,
                    "the link to {} carries copies over TCP: this process's shared-memory handshake segment \
                     /dev/shm/{file} was removed while it runs, so no link it opens can share memory",
                    self.peer
                ),
                Some(HandshakeTrouble::PeerUnreadable { file, error }) => write!(
                    f,
                    "the link to {} carries copies over TCP: this process could not open that process's \
                     shared-memory handshake segment /dev/shm/{file} ({error})",
                    self.peer
                ),
                None => write!(
                    f,
                    "the link to {} carries copies over TCP: a shared-memory handshake segment could not be opened",
                    self.peer
                ),
            },
            LinkShmCause::ZenohVersion => match self.mismatch() {
                Some(mismatch) => write!(f, "the link to {} carries copies over TCP: {mismatch}", self.peer),
                None => write!(
                    f,
                    "the link to {} carries copies over TCP: its zenoh differs",
                    self.peer
                ),
            },
        }
    }
}

impl LinkShmProblem {
    /// What to do about it.
    pub fn remedy(&self) -> String {
        match self.mismatch() {
            Some(mismatch) => mismatch.remedy(),
            None => self.cause.remedy().to_owned(),
        }
    }

    fn mismatch(&self) -> Option<VersionMismatch> {
        let theirs = self.peer_zenoh?;
        (self.cause == LinkShmCause::ZenohVersion).then_some(VersionMismatch {
            ours: ZenohVersion::ours(),
            theirs,
        })
    }
}

/// What the watcher shares with the session.
#[derive(Debug, Default)]
pub(crate) struct LinkWatch {
    problems: Mutex<Vec<LinkShmProblem>>,
    seen: Mutex<HashSet<String>>,
    /// Links opened and not examined yet (their peer's version is asked a while later).
    pending: std::sync::atomic::AtomicUsize,
}

impl LinkWatch {
    /// Waits until every link opened so far has been examined, or `within` passed.
    pub(crate) async fn settled(&self, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        while self.pending.load(std::sync::atomic::Ordering::Acquire) > 0
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The last problem found.
    pub(crate) fn last(&self) -> Option<LinkShmProblem> {
        self.problems
            .lock()
            .expect("no panics while holding the link problems")
            .last()
            .cloned()
    }

    /// The problem of the link to `peer` (a zenoh id), if it has one.
    pub(crate) fn of(&self, peer: &str) -> Option<LinkShmProblem> {
        self.problems
            .lock()
            .expect("no panics while holding the link problems")
            .iter()
            .rev()
            .find(|p| p.peer == peer)
            .cloned()
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
    let (tx, rx) = flume::unbounded::<(zenoh::session::ZenohId, tokio::time::Instant)>();
    let counted = state.clone();
    session
        .info()
        .link_events_listener()
        .history(true)
        .callback(move |event| {
            if event.kind() == zenoh::sample::SampleKind::Put && same_host(event.link()) {
                // The receiver lives as long as the session's task; a closed one means shutdown.
                counted.pending.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
                let _ = tx.send((*event.link().zid(), tokio::time::Instant::now()));
            }
        })
        .background()
        .await?;
    let (session, watch) = (session.clone(), state.clone());
    let task = tokio::spawn(async move {
        while let Ok((zid, opened)) = rx.recv_async().await {
            tokio::time::sleep_until(opened + VERSION_QUERY_DELAY).await;
            let shm = session
                .info()
                .transports()
                .await
                .find(|t| t.zid() == &zid)
                .map(|t| t.is_shm());
            if shm == Some(false) {
                let peer_zenoh = peer_zenoh_version(&session, &zid.to_string()).await;
                let handshake = handshake_trouble(&dev_shm, opened.into_std());
                record(&watch, &stats, &dev_shm, zid.to_string(), peer_zenoh, handshake);
            }
            watch.pending.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    });
    Ok((state, task.abort_handle()))
}

/// The handshake this process does not speak.
fn other_line(ours: ZenohVersion) -> crate::shm::compat::ShmHandshake {
    use crate::shm::compat::ShmHandshake;
    match ours.handshake() {
        ShmHandshake::BeforeHandoff => ShmHandshake::Handoff,
        ShmHandshake::Handoff => ShmHandshake::BeforeHandoff,
    }
}

/// How long after a link opens its peer's admin space is asked. When a link opens, each side
/// sends the other every declaration it has; a zenoh 1.10.2 peer answering an admin-space query
/// at that moment can wedge its routing for good (it replies holding its tables' read lock and
/// takes it again per reply, eclipse-zenoh/zenoh#2619). A peer whose subscriber never heard of
/// zshm's declarations was seen once in the suite, the query sent at the link's opening. Asked a
/// little later, past the burst of declarations, the query meets a quieter peer; later still
/// and short-lived peers (a probe of a few clouds) are gone before they are asked.
const VERSION_QUERY_DELAY: Duration = Duration::from_millis(500);

/// How long the other process's admin space is asked for its version.
const VERSION_QUERY_TIMEOUT: Duration = Duration::from_secs(3);

/// The zenoh version the process `zid` reports in its admin space (`@/<zid>/<whatami>`), if it
/// answers: rmw_zenoh's configs and zshm's enable the admin space; others may not.
pub(crate) async fn peer_zenoh_version(session: &zenoh::Session, zid: &str) -> Option<ZenohVersion> {
    let selector = format!("@/{zid}/*");
    super::admin::query_all(session, &selector, VERSION_QUERY_TIMEOUT)
        .await
        .iter()
        .find_map(|sample| version_of(&sample.payload().to_bytes()))
}

/// The `version` of an admin-space reply (`{"zid": …, "version": "v1.8.0-… built with …", …}`).
pub fn version_of(reply: &[u8]) -> Option<ZenohVersion> {
    let json: serde_json::Value = serde_json::from_slice(reply).ok()?;
    ZenohVersion::parse(json.get("version")?.as_str()?)
}

fn record(
    watch: &LinkWatch,
    stats: &SessionStats,
    dev_shm: &std::path::Path,
    peer: String,
    peer_zenoh: Option<ZenohVersion>,
    handshake: Option<HandshakeTrouble>,
) {
    {
        let mut seen = watch.seen.lock().expect("no panics while holding the seen set");
        if seen.len() >= SEEN_BOUND {
            // Forgetting old peers only risks counting a link twice; the set stays bounded.
            seen.clear();
        }
        if !seen.insert(peer.clone()) {
            return;
        }
    }
    let other_uids = crate::shm::usage::foreign_segment_owners(dev_shm);
    let cause = if peer_zenoh.is_some_and(|theirs| !ZenohVersion::ours().shares_memory_with(theirs)) {
        LinkShmCause::ZenohVersion
    } else if handshake.is_some() && other_uids.is_empty() {
        LinkShmCause::HandshakeSegment
    } else if other_uids.is_empty() {
        LinkShmCause::PeerWithoutShm
    } else {
        LinkShmCause::OtherUser
    };
    let problem = LinkShmProblem {
        peer,
        cause,
        other_uids,
        peer_zenoh,
        handshake: handshake.filter(|_| cause == LinkShmCause::HandshakeSegment),
    };
    if stats.link_without_shm(cause) {
        match cause {
            LinkShmCause::OtherUser | LinkShmCause::ZenohVersion | LinkShmCause::HandshakeSegment => {
                tracing::warn!(
                    cause = cause.label(),
                    "{problem}; fix: {} (counted; later links are not logged)",
                    problem.remedy()
                )
            }
            LinkShmCause::PeerWithoutShm => tracing::info!(
                cause = cause.label(),
                "{problem} (counted; later links are not logged)"
            ),
        }
    }
    let mut problems = watch
        .problems
        .lock()
        .expect("no panics while holding the link problems");
    if problems.len() == KEPT_PROBLEMS {
        problems.remove(0);
    }
    problems.push(problem);
}

/// Whether a handshake segment kept the link opened at `opened` from sharing memory: this
/// process's own left `dev_shm`, or it failed to open the other's while the link opened.
fn handshake_trouble(dev_shm: &std::path::Path, opened: std::time::Instant) -> Option<HandshakeTrouble> {
    if let Some(file) = zenoh_shm::handshake::own_segments()
        .into_iter()
        .find(|file| !dev_shm.join(file).exists())
    {
        return Some(HandshakeTrouble::OwnGone { file });
    }
    // The link event comes after the handshake; a failure of the same handshake is a little older.
    let since = opened.checked_sub(HANDSHAKE_WINDOW).unwrap_or(opened);
    let failure = zenoh_shm::handshake::open_failures_since(since).pop()?;
    let error = if dev_shm.join(&failure.file).exists() {
        failure.error
    } else {
        "it is not in /dev/shm".to_owned()
    };
    Some(HandshakeTrouble::PeerUnreadable {
        file: failure.file,
        error,
    })
}

/// How long before a link's event its handshake may have failed to open the other's segment.
const HANDSHAKE_WINDOW: Duration = Duration::from_secs(2);

/// Link problems kept for [`LinkWatch::of`]: a router sees a new zenoh id for every restart of
/// every node, so the list is bounded (each cause stays counted in the stats).
const KEPT_PROBLEMS: usize = 64;

/// Peers remembered as already recorded, at most.
const SEEN_BOUND: usize = 4096;

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
