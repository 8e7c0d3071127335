// zshm patch (PATCHES.md, 1): the reader-side caches of mapped segments forget the ones no
// buffer uses any more and that have not been used for `IDLE`, so that a process receiving
// shared memory from publishers that come and go (restarted, SIGKILLed) does not keep every one
// of their segments mapped and locked for the rest of its life (eclipse-zenoh/zenoh#2787).

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, OnceLock,
    },
    time::{Duration, Instant},
};

/// How long a segment no buffer uses stays mapped after its last use: a live publisher's
/// segment is used at each message; one quiet for longer is mapped again at its next message.
pub(crate) const IDLE: Duration = Duration::from_secs(30);

/// Seconds since the first call, on a monotonic clock.
fn now() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs()
}

/// A cached segment and when it was last handed out.
#[derive(Debug)]
pub(crate) struct Cached<T: ?Sized> {
    pub(crate) value: Arc<T>,
    last_used: AtomicU64,
}

impl<T: ?Sized> Cached<T> {
    pub(crate) fn new(value: Arc<T>) -> Self {
        Self {
            value,
            last_used: AtomicU64::new(now()),
        }
    }

    /// The segment, marked as used now.
    pub(crate) fn get(&self) -> Arc<T> {
        self.last_used.store(now(), Ordering::Relaxed);
        self.value.clone()
    }

    /// Whether the cache may forget it: nothing but the cache (and `other_holders` others that
    /// follow the cache) holds it, and it has been idle for `IDLE`. Called under the cache's
    /// write lock, so no one can take a new reference meanwhile.
    pub(crate) fn is_stale(&self, other_holders: usize) -> bool {
        Arc::strong_count(&self.value) <= 1 + other_holders
            && now().saturating_sub(self.last_used.load(Ordering::Relaxed)) >= IDLE.as_secs()
    }
}
