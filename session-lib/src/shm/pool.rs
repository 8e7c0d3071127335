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
                        return Err(LoanFallback::PoolExhausted);
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
