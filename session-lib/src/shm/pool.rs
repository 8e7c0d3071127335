//! [`ShmPool`]: allocation from a session's SHM provider with a bounded reclaim-and-retry and a
//! counted heap fallback. It never blocks for long and never fails.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use zenoh::Wait;
use zenoh::shm::{GarbageCollect, PosixShmProviderBackend, ShmProvider, ZAllocError, ZLayoutAllocError};

use super::loan::RawLoan;
use crate::stats::{LoanFallback, SessionStats};

/// How long one loan may wait for readers to release buffers before using the heap. A 15 Hz
/// camera has 66 ms between frames; waiting longer would delay the next frame instead.
pub const RETRY_BUDGET: Duration = Duration::from_millis(50);

/// The provider a session allocates loans from.
#[derive(Debug)]
pub struct ShmPool {
    provider: Arc<ShmProvider<PosixShmProviderBackend>>,
    size: usize,
    stats: Arc<SessionStats>,
    warned: [AtomicBool; LoanFallback::ALL.len()],
    reclaimed_warned: AtomicBool,
}

impl ShmPool {
    pub(crate) fn new(
        provider: Arc<ShmProvider<PosixShmProviderBackend>>,
        size: usize,
        stats: Arc<SessionStats>,
    ) -> Self {
        Self {
            provider,
            size,
            stats,
            warned: Default::default(),
            reclaimed_warned: AtomicBool::new(false),
        }
    }

    /// The pool size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// A buffer of exactly `len` bytes: from the pool when it can serve it within
    /// [`RETRY_BUDGET`], else from the heap (counted in the session stats, logged once per reason).
    pub async fn loan(&self, len: usize) -> RawLoan {
        match self.try_alloc(len).await {
            Ok(loan) => loan,
            Err(reason) => {
                self.stats.fallback(reason);
                self.warn_once(reason, len);
                RawLoan::heap(len)
            }
        }
    }

    async fn try_alloc(&self, len: usize) -> Result<RawLoan, LoanFallback> {
        if len == 0 {
            // Zero-sized SHM layouts are refused by zenoh and gain nothing.
            return Ok(RawLoan::heap(0));
        }
        if len > self.size {
            return Err(LoanFallback::LargerThanPool);
        }
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            // GarbageCollect first reclaims every chunk whose readers are gone, then retries.
            match self.provider.alloc(len).with_policy::<GarbageCollect>().wait() {
                Ok(buffer) => return Ok(RawLoan::shm(buffer)),
                Err(ZLayoutAllocError::Alloc(ZAllocError::OutOfMemory | ZAllocError::NeedDefragment)) => {
                    if started.elapsed() + pause > RETRY_BUDGET {
                        return self
                            .reclaim_from_dead_readers(len)
                            .ok_or(LoanFallback::PoolExhausted);
                    }
                    tracing::trace!(
                        len,
                        ?pause,
                        "SHM pool full, waiting for readers to release buffers"
                    );
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(8));
                }
                Err(ZLayoutAllocError::Layout(_)) => return Err(LoanFallback::LargerThanPool),
                Err(ZLayoutAllocError::Alloc(ZAllocError::Other)) => return Err(LoanFallback::AllocFailed),
            }
        }
    }

    /// Last resort when the pool stays full: frees the buffers that no live process holds any
    /// more, then tries once more.
    ///
    /// zenoh's safe garbage collection frees a buffer only when every reader released it; a
    /// reader killed while holding buffers never does, so without this the pool would stay short
    /// of those buffers (and the publisher on the heap) until the publisher restarts. zenoh marks
    /// a buffer whose holders all stopped confirming it (every 50 ms) for a validation period
    /// (100 ms) as invalidated; the unsafe collection frees those too (docs/zenoh-shm.md, "Pool
    /// and allocation").
    #[allow(unsafe_code)]
    fn reclaim_from_dead_readers(&self, len: usize) -> Option<RawLoan> {
        // SAFETY: this only frees chunks of our own pool that zenoh's watchdog invalidated, i.e.
        // that no process confirmed holding for a validation period: their readers are dead, or
        // stopped (SIGSTOP, a debugger) for longer than that. A stopped reader that resumes may
        // then read bytes of a later message in that buffer: never outside the mapped pool, and a
        // typed subscription's view was validated and bounded before (docs/RELIABILITY.md).
        let freed = unsafe { self.provider.garbage_collect_unsafe() };
        if freed < len {
            return None;
        }
        let buffer = self
            .provider
            .alloc(len)
            .with_policy::<GarbageCollect>()
            .wait()
            .ok()?;
        if !self.reclaimed_warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                len,
                "reclaimed SHM buffers held by a reader that stopped confirming them (it crashed or \
                 was stopped); later reclaims are not logged"
            );
        }
        self.stats.reclaimed();
        Some(RawLoan::shm(buffer))
    }

    fn warn_once(&self, reason: LoanFallback, len: usize) {
        if !self.warned[reason.index()].swap(true, Ordering::Relaxed) {
            tracing::warn!(
                reason = reason.label(),
                len,
                pool = self.size,
                "SHM loan fell back to the heap (counted; later ones are not logged): {}",
                reason.remedy()
            );
        }
    }
}
