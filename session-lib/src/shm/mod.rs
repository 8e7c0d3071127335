//! Shared memory: whether zenoh can use it here, and the pool zshm's loans come from.
//!
//! zshm builds its own pool ([`ShmPool`]) on the first loan that needs one, sized from what is
//! published and at most `transport_optimization/pool_size`. zenoh's implicit copy of large
//! plain payloads into a pool of its own (`transport_optimization/enabled`) is turned off when
//! the session opens: zshm puts every large message in shared memory itself, and zenoh's pool
//! would pin its full size in /dev/shm and in locked memory in every process, publishing or not.

pub mod compat;
pub mod preflight;
pub mod usage;

mod pool;
mod status;

pub use pool::{RETRY_BUDGET, ShmPool};
pub use status::{ShmStatus, ShmUnavailable};

use crate::config::ShmSettings;

/// Decides, before opening, whether zenoh may be asked to use shared memory.
pub(crate) fn plan(settings: &ShmSettings, dev_shm: &std::path::Path) -> Result<(), ShmUnavailable> {
    if settings.disabled_by_flag {
        return Err(ShmUnavailable::DisabledByFlag);
    }
    if !settings.enabled {
        return Err(ShmUnavailable::DisabledInConfig);
    }
    preflight::check(dev_shm, settings.pool_size)
}

/// Removes `/dev/shm/*.zenoh` segments that no live process maps any more (left by crashed or
/// exited processes). Safe to call at any time: segments in use are locked and kept.
///
/// Returns the segments removed and the bytes they held.
pub fn cleanup_orphaned_segments() -> (u64, u64) {
    let before = crate::shm::usage::dev_shm(std::path::Path::new(preflight::DEV_SHM)).unwrap_or_default();
    zenoh::shm::cleanup_orphaned_shm_segments();
    let after = crate::shm::usage::dev_shm(std::path::Path::new(preflight::DEV_SHM)).unwrap_or_default();
    (
        before.zenoh_segments.saturating_sub(after.zenoh_segments),
        before.zenoh_bytes.saturating_sub(after.zenoh_bytes),
    )
}
