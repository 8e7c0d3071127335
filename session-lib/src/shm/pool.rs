//! [`ShmPool`]: a session's SHM pool, with a bounded reclaim-and-retry and a counted fallback. It
//! never blocks for long.
//!
//! No pool exists until the first loan that needs one (issue 12: a node that never publishes a
//! message at or above the threshold pins no shared memory and no locked memory). That loan
//! creates a pool of [`POOL_MESSAGES`] messages of its size (at least [`MIN_POOL`], at most the
//! configured size), and a larger message later replaces it by one at least twice as big; zenoh's
//! receivers keep every segment they ever mapped (docs/zenoh-shm.md), so doubling bounds what the
//! old pools cost them to the size of the last one.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zenoh::Wait;
use zenoh::shm::{
    GarbageCollect, PosixShmProviderBackend, ShmProvider, ShmProviderBuilder, ZAllocError, ZLayoutAllocError,
    ZShmMut,
};

use crate::stats::{LoanFallback, SessionStats};

/// How long one loan may wait for readers to release buffers before using the heap. A 15 Hz
/// camera has 66 ms between frames; waiting longer would delay the next frame instead.
pub const RETRY_BUDGET: Duration = Duration::from_millis(50);

/// Messages of the size that created it a pool holds (the camera's 7 MiB clouds: 0.5 s at 15 Hz).
pub const POOL_MESSAGES: usize = 8;

/// The smallest pool created.
pub const MIN_POOL: usize = 1 << 20;

/// Allocator overhead: a pool of exactly N x size holds only N - 1 messages.
const ALLOCATOR_HEADROOM: usize = 64 << 10;

type Provider = Arc<ShmProvider<PosixShmProviderBackend>>;

/// The pool a session's loans come from.
pub struct ShmPool {
    max_size: usize,
    current: Mutex<Option<(Provider, usize)>>,
    stats: Arc<SessionStats>,
    warned: [AtomicBool; LoanFallback::ALL.len()],
    reclaimed_warned: AtomicBool,
    /// Set when the files of this process's segments were removed under it (see
    /// [`ShmPool::create_whole`]): no more pools are created.
    segments_removed: AtomicBool,
}

// By hand: zenoh 1.9's provider backend has no Debug.
impl std::fmt::Debug for ShmPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShmPool")
            .field("max_size", &self.max_size)
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}

impl ShmPool {
    pub(crate) fn new(max_size: usize, stats: Arc<SessionStats>) -> Self {
        Self {
            max_size,
            current: Mutex::new(None),
            stats,
            warned: Default::default(),
            reclaimed_warned: AtomicBool::new(false),
            segments_removed: AtomicBool::new(false),
        }
    }

    /// The pool's size in bytes now: 0 until it is created.
    pub fn size(&self) -> usize {
        self.current().map_or(0, |(_, size)| size)
    }

    /// The largest pool this session may create (the configured pool size).
    pub fn max_size(&self) -> usize {
        self.max_size
    }

    /// A buffer of exactly `len` bytes from the pool when it can serve it within
    /// [`RETRY_BUDGET`]; `None` otherwise, counted in the session stats and logged once per
    /// reason (the caller then uses the heap).
    pub async fn loan(&self, len: usize) -> Option<ZShmMut> {
        match self.try_alloc(len).await {
            Ok(buffer) => Some(buffer),
            Err(reason) => {
                self.stats.fallback(reason);
                self.warn_once(reason, len);
                None
            }
        }
    }

    fn current(&self) -> Option<(Provider, usize)> {
        self.current
            .lock()
            .expect("no panics while holding the pool")
            .clone()
    }

    /// The pool for a message of `len` bytes, created or grown first when needed.
    fn provider_for(&self, len: usize) -> Result<Provider, LoanFallback> {
        let mut current = self.current.lock().expect("no panics while holding the pool");
        let wanted = (len.saturating_mul(POOL_MESSAGES) + ALLOCATOR_HEADROOM)
            .max(MIN_POOL)
            .min(self.max_size);
        let size = match current.as_ref() {
            Some((provider, size)) if *size >= wanted || *size == self.max_size => {
                return Ok(provider.clone());
            }
            Some((_, size)) => wanted.max(size.saturating_mul(2)).min(self.max_size),
            None => wanted,
        };
        if self.segments_removed.load(Ordering::Relaxed) {
            return Err(LoanFallback::AllocFailed);
        }
        let provider = self.create_whole(size)?;
        tracing::debug!(size, "SHM pool created");
        let provider = Arc::new(provider);
        *current = Some((provider.clone(), size));
        Ok(provider)
    }

    /// Creates a pool of `size` bytes whose files are all still in /dev/shm.
    ///
    /// Every zenoh process removes the segments it finds unlocked when it starts and exits, and
    /// zenoh 1.10.2 creates a segment's file before it locks it: another process's cleanup can
    /// remove the file in between. The creator still maps it, but no receiver can open it, so
    /// every message in it would be lost without a word (seen once in CI: a case received 0 of
    /// 20). The first allocation also creates the process's metadata segment, so both are
    /// checked: a `.zenoh` file this process maps that was deleted meanwhile means a lost race.
    /// A new pool is tried then; when the loss stays (the metadata segment, created once per
    /// process), shared memory is given up for this session and loans use the heap (counted).
    fn create_whole(&self, size: usize) -> Result<ShmProvider<PosixShmProviderBackend>, LoanFallback> {
        const ATTEMPTS: usize = 3;
        for _ in 0..ATTEMPTS {
            let before = deleted_zenoh_files();
            let provider = ShmProviderBuilder::default_backend(size).wait().map_err(|err| {
                tracing::debug!(size, "SHM pool not created: {err}");
                LoanFallback::AllocFailed
            })?;
            drop(provider.alloc(1).wait());
            let lost: Vec<String> = deleted_zenoh_files().difference(&before).cloned().collect();
            if lost.is_empty() {
                return Ok(provider);
            }
            tracing::debug!(?lost, "a new SHM segment's file was removed by another process");
        }
        self.segments_removed.store(true, Ordering::Relaxed);
        tracing::warn!(
            "shared memory given up for this process: another zenoh process's cleanup removed the \
             files of its SHM segments as they were created (a race in zenoh 1.10.2), so no \
             receiver could read them; messages go over the network (counted as alloc_failed)"
        );
        Err(LoanFallback::AllocFailed)
    }

    async fn try_alloc(&self, len: usize) -> Result<ZShmMut, LoanFallback> {
        let mut attempt = self.first_attempt(len)?;
        loop {
            match self.attempt(&mut attempt) {
                Step::Done(result) => return result,
                Step::Wait(pause) => tokio::time::sleep(pause).await,
            }
        }
    }

    /// [`loan`](Self::loan) for threads outside the async runtime (an executor's callback
    /// replying to a service call): the same retries, waiting on the thread.
    pub fn loan_blocking(&self, len: usize) -> Option<ZShmMut> {
        let result = self.first_attempt(len).and_then(|mut attempt| {
            loop {
                match self.attempt(&mut attempt) {
                    Step::Done(result) => break result,
                    Step::Wait(pause) => std::thread::sleep(pause),
                }
            }
        });
        match result {
            Ok(buffer) => Some(buffer),
            Err(reason) => {
                self.stats.fallback(reason);
                self.warn_once(reason, len);
                None
            }
        }
    }

    fn first_attempt(&self, len: usize) -> Result<Attempt, LoanFallback> {
        if len > self.max_size {
            return Err(LoanFallback::LargerThanPool);
        }
        Ok(Attempt {
            provider: self.provider_for(len)?,
            len,
            started: Instant::now(),
            pause: Duration::from_millis(1),
        })
    }

    /// One allocation try; the caller waits (as its runtime allows) and tries again on `Wait`.
    fn attempt(&self, attempt: &mut Attempt) -> Step {
        let (provider, len) = (&attempt.provider, attempt.len);
        // GarbageCollect first reclaims every chunk whose readers are gone, then retries.
        match provider.alloc(len).with_policy::<GarbageCollect>().wait() {
            Ok(buffer) => Step::Done(Ok(buffer)),
            Err(ZLayoutAllocError::Alloc(ZAllocError::OutOfMemory | ZAllocError::NeedDefragment)) => {
                if attempt.started.elapsed() + attempt.pause > RETRY_BUDGET {
                    return Step::Done(
                        self.reclaim_from_dead_readers(provider, len)
                            .ok_or(LoanFallback::PoolExhausted),
                    );
                }
                tracing::trace!(
                    len,
                    pause = ?attempt.pause,
                    "SHM pool full, waiting for readers to release buffers"
                );
                let pause = attempt.pause;
                attempt.pause = (pause * 2).min(Duration::from_millis(8));
                Step::Wait(pause)
            }
            Err(ZLayoutAllocError::Layout(_)) => Step::Done(Err(LoanFallback::LargerThanPool)),
            Err(ZLayoutAllocError::Alloc(ZAllocError::Other)) => Step::Done(Err(LoanFallback::AllocFailed)),
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
    fn reclaim_from_dead_readers(&self, provider: &Provider, len: usize) -> Option<ZShmMut> {
        // SAFETY: this only frees chunks of our own pool that zenoh's watchdog invalidated, i.e.
        // that no process confirmed holding for a validation period: their readers are dead, or
        // stopped (SIGSTOP, a debugger) for longer than that. A stopped reader that resumes may
        // then read bytes of a later message in that buffer: never outside the mapped pool, and a
        // typed subscription's view was validated and bounded before (docs/RELIABILITY.md).
        let freed = unsafe { provider.garbage_collect_unsafe() };
        if freed < len {
            return None;
        }
        let buffer = provider.alloc(len).with_policy::<GarbageCollect>().wait().ok()?;
        if !self.reclaimed_warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                len,
                "reclaimed SHM buffers held by a reader that stopped confirming them (it crashed or \
                 was stopped); later reclaims are not logged"
            );
        }
        self.stats.reclaimed();
        Some(buffer)
    }

    fn warn_once(&self, reason: LoanFallback, len: usize) {
        if self.segments_removed.load(Ordering::Relaxed) {
            return; // said once, with its cause, when it happened
        }
        if !self.warned[reason.index()].swap(true, Ordering::Relaxed) {
            tracing::warn!(
                reason = reason.label(),
                len,
                pool = self.size(),
                "SHM loan fell back to the heap (counted; later ones are not logged): {}",
                reason.remedy()
            );
        }
    }
}

/// The `*.zenoh` files this process maps that were deleted (`/proc/self/maps` marks them so).
fn deleted_zenoh_files() -> BTreeSet<String> {
    deleted_zenoh_files_in(&std::fs::read_to_string("/proc/self/maps").unwrap_or_default())
}

fn deleted_zenoh_files_in(maps: &str) -> BTreeSet<String> {
    maps.lines()
        .filter_map(|line| line.strip_suffix(" (deleted)"))
        .filter_map(|line| line.split_whitespace().last())
        .filter(|path| path.ends_with(".zenoh"))
        .map(str::to_owned)
        .collect()
}

/// An allocation being tried: the pool, the size, and how long to wait before the next try.
struct Attempt {
    provider: Provider,
    len: usize,
    started: Instant,
    pause: Duration,
}

/// What one allocation try says.
enum Step {
    /// The buffer, or why there is none.
    Done(Result<ZShmMut, LoanFallback>),
    /// The pool is full for now: wait this long, then try again.
    Wait(Duration),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deleted_zenoh_files_are_read_from_the_maps() {
        let maps = "\
7f00 rw-s 00000000 00:1a 11 /dev/shm/1830364613.zenoh (deleted)
7f01 rw-s 00000000 00:1a 12 /dev/shm/59014.zenoh
7f02 rw-s 00000000 00:1a 13 /dev/shm/z0_46fd32_x.data (deleted)
7f03 r-xp 00000000 08:01 14 /usr/lib/libc.so.6
";
        assert_eq!(
            deleted_zenoh_files_in(maps).into_iter().collect::<Vec<_>>(),
            ["/dev/shm/1830364613.zenoh"]
        );
        // This process maps its own segments once it has a pool; none of them is deleted.
        let pool = ShmPool::new(1 << 20, Arc::default());
        assert!(pool.create_whole(1 << 20).is_ok());
    }
}
