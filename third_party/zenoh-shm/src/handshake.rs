// zshm patch (PATCHES.md, 6): when two processes open a link, each reads the other's small
// handshake segment (zenoh-transport's `AuthSegment`, an `ArrayInSHM` of `u64`s) to agree on
// shared memory. Upstream, a segment that cannot be opened (removed from /dev/shm while its
// owner runs, or private to another user) ends the agreement with a `trace!` line, and the link
// silently carries copies; the process whose own segment was removed cannot tell at all. Here
// each process keeps the names of its own handshake segments and the last ones it could not
// open, so that zshm can name the true cause of a link without shared memory.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

/// A handshake segment of another process that this one could not open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFailure {
    /// Its file name in /dev/shm (`<id>.zenoh`).
    pub file: String,
    /// Why, as zenoh-shm said it.
    pub error: String,
    /// When.
    pub at: Instant,
}

/// Failures kept: a process opens handshake segments only as links open.
const KEPT: usize = 16;

static OWN: Mutex<Vec<String>> = Mutex::new(Vec::new());
static FAILED: Mutex<VecDeque<OpenFailure>> = Mutex::new(VecDeque::new());

/// The file names in /dev/shm of this process's own handshake segments (one per zenoh session
/// with shared memory). A link opened after one of them left /dev/shm cannot share memory.
pub fn own_segments() -> Vec<String> {
    OWN.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The handshake segments of other processes this one failed to open at or after `since`,
/// oldest first (the last 16 at most).
pub fn open_failures_since(since: Instant) -> Vec<OpenFailure> {
    FAILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|f| f.at >= since)
        .cloned()
        .collect()
}

/// Whether an `ArrayInSHM` of `Elem` is a handshake segment: zenoh-transport's `AuthSegment`
/// is the only array of 8-byte elements (data segments are arrays of bytes).
pub(crate) const fn is_handshake<Elem>() -> bool {
    std::mem::size_of::<Elem>() == std::mem::size_of::<u64>()
}

pub(crate) fn created(id: impl std::fmt::Display) {
    OWN.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{id}.zenoh"));
}

pub(crate) fn dropped(id: impl std::fmt::Display) {
    let file = format!("{id}.zenoh");
    OWN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|own| *own != file);
}

pub(crate) fn open_failed(id: impl std::fmt::Display, error: &dyn std::fmt::Display) {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.len() == KEPT {
        failed.pop_front();
    }
    failed.push_back(OpenFailure {
        file: format!("{id}.zenoh"),
        error: error.to_string(),
        at: Instant::now(),
    });
}
