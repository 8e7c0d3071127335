//! Shared memory: whether it can be used here, the pool loans come from, and the loans.
//!
//! A session gets its pool from zenoh's own transport provider (`Session::get_shm_provider`),
//! as rmw_zenoh ≥ 0.2.10 does: one pool per process, shared by zshm's loans and zenoh's implicit
//! copy of large payloads, sized by `transport_optimization/pool_size`. When the config turns
//! `transport_optimization` off, zshm builds a provider of the same size itself.

pub mod preflight;
pub mod usage;

mod loan;
mod pool;
mod status;

use std::sync::Arc;
use std::time::Duration;

use zenoh::Wait;
use zenoh::shm::{PosixShmProviderBackend, ShmProvider, ShmProviderBuilder, ShmProviderState};

pub use loan::RawLoan;
pub use pool::{RETRY_BUDGET, ShmPool};
pub use status::{ShmStatus, ShmUnavailable};

use crate::config::ShmSettings;

/// How long to wait for zenoh to create its pool at session open.
const POOL_CREATION_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Gets the session's pool, creating it now so the first message does not pay for it (and does
/// not go out over TCP while the pool is being created).
pub(crate) async fn acquire_provider(
    session: &zenoh::Session,
    settings: &ShmSettings,
) -> Result<Arc<ShmProvider<PosixShmProviderBackend>>, ShmUnavailable> {
    let state = session.get_shm_provider();
    if matches!(state, ShmProviderState::Disabled) {
        // transport_optimization is off: zenoh has no pool of its own, so build one.
        return build_provider(settings.pool_size).map(Arc::new);
    }
    match tokio::time::timeout(POOL_CREATION_TIMEOUT, state.into_future()).await {
        Ok(Some(provider)) => Ok(provider),
        // zenoh logs the cause but does not return it; rebuilding a pool reproduces the error.
        Ok(None) => Err(match build_provider(settings.pool_size) {
            Err(err) => err,
            Ok(_) => ShmUnavailable::PoolCreationFailed {
                error: "zenoh reported no SHM provider".into(),
            },
        }),
        Err(_) => Err(ShmUnavailable::PoolCreationFailed {
            error: format!("zenoh did not create its pool within {POOL_CREATION_TIMEOUT:?}"),
        }),
    }
}

fn build_provider(pool_size: usize) -> Result<ShmProvider<PosixShmProviderBackend>, ShmUnavailable> {
    ShmProviderBuilder::default_backend(pool_size)
        .wait()
        .map_err(|err| ShmUnavailable::PoolCreationFailed {
            error: crate::text::tidy(&err.to_string()),
        })
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
