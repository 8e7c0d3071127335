//! Checks that shared memory can work in this process *before* zenoh is asked to use it.
//!
//! zenoh 1.10.2 does not fall back by itself (docs/zenoh-shm.md, "Fallback"): with a
//! read-only /dev/shm `zenoh::open` fails, with `mode: "init"` it panics, and with a full
//! /dev/shm or a low locked-memory limit every message silently goes over TCP. These checks turn
//! each of those into a [`ShmUnavailable`] reason the session can report, log and count.

use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::status::ShmUnavailable;

/// Where POSIX shared memory lives on Linux (`shm_open` creates its files here).
pub const DEV_SHM: &str = "/dev/shm";

/// zenoh's metadata segment (1.25 MiB per process) comes on top of the pool.
pub const METADATA_SEGMENT_BYTES: u64 = 1_310_720;

/// Headroom for zenoh's small auth and handoff segments (12 KiB per SHM link).
const SEGMENT_HEADROOM_BYTES: u64 = 1 << 20;

/// `CAP_IPC_LOCK` lets a process lock memory beyond `RLIMIT_MEMLOCK` (capabilities(7)).
const CAP_IPC_LOCK_BIT: u32 = 14;

/// Bytes zenoh will create in /dev/shm and lock in RAM for a pool of `pool_size` bytes.
pub fn bytes_needed(pool_size: usize) -> u64 {
    pool_size as u64 + METADATA_SEGMENT_BYTES + SEGMENT_HEADROOM_BYTES
}

/// Runs every check against `dev_shm` for a pool of `pool_size` bytes.
///
/// ```
/// use zshm::internal::shm::preflight::check;
/// // A directory that does not exist can never hold a pool.
/// assert!(check("/nonexistent/zshm".as_ref(), 1 << 20).is_err());
/// ```
pub fn check(dev_shm: &Path, pool_size: usize) -> Result<(), ShmUnavailable> {
    let needed = bytes_needed(pool_size);
    check_dev_shm(dev_shm, needed)?;
    memlock_verdict(memlock_limit(), has_cap_ipc_lock(), needed)
}

/// The /dev/shm part of [`check`]: the directory exists, is writable and has `needed` bytes free.
pub fn check_dev_shm(dev_shm: &Path, needed: u64) -> Result<(), ShmUnavailable> {
    check_directory(dev_shm)?;
    check_free_space(dev_shm, needed)
}

fn check_directory(dev_shm: &Path) -> Result<(), ShmUnavailable> {
    let path = dev_shm.display().to_string();
    match std::fs::metadata(dev_shm) {
        Ok(meta) if meta.is_dir() => {}
        _ => return Err(ShmUnavailable::DevShmMissing { path }),
    }
    let probe = probe_path(dev_shm);
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            // Best effort: the probe is empty and named after this process.
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(err) if err.kind() == ErrorKind::ReadOnlyFilesystem => {
            Err(ShmUnavailable::DevShmReadOnly { path })
        }
        Err(err) => Err(ShmUnavailable::DevShmNotWritable {
            path,
            error: err.to_string(),
        }),
    }
}

fn probe_path(dev_shm: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dev_shm.join(format!(".zshm-probe-{}-{n}", std::process::id()))
}

fn check_free_space(dev_shm: &Path, needed: u64) -> Result<(), ShmUnavailable> {
    let Ok(stat) = nix::sys::statvfs::statvfs(dev_shm) else {
        // The directory was writable a moment ago; an unreadable statvfs is not worth refusing SHM.
        return Ok(());
    };
    let free = stat.blocks_available().saturating_mul(stat.fragment_size());
    if free < needed {
        return Err(ShmUnavailable::DevShmTooSmall { free, needed });
    }
    Ok(())
}

/// The soft `RLIMIT_MEMLOCK` in bytes, `None` when unlimited or unreadable.
pub fn memlock_limit() -> Option<u64> {
    use nix::sys::resource::{RLIM_INFINITY, Resource, getrlimit};
    match getrlimit(Resource::RLIMIT_MEMLOCK) {
        Ok((soft, _hard)) if soft != RLIM_INFINITY => Some(soft),
        _ => None,
    }
}

/// Whether the process may lock memory beyond its limit (root usually can).
pub fn has_cap_ipc_lock() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << CAP_IPC_LOCK_BIT) != 0)
}

/// Decides whether zenoh can lock `needed` bytes under `limit` (None = unlimited).
pub fn memlock_verdict(limit: Option<u64>, cap_ipc_lock: bool, needed: u64) -> Result<(), ShmUnavailable> {
    match limit {
        Some(limit) if !cap_ipc_lock && limit < needed => {
            Err(ShmUnavailable::MemlockTooLow { limit, needed })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_is_reported() {
        let err = check_directory(Path::new("/nonexistent/zshm-dev-shm")).unwrap_err();
        assert_eq!(
            err,
            ShmUnavailable::DevShmMissing {
                path: "/nonexistent/zshm-dev-shm".into()
            }
        );
    }

    #[test]
    fn a_regular_file_is_not_a_shm_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, b"x").unwrap();
        assert!(matches!(
            check_directory(&file),
            Err(ShmUnavailable::DevShmMissing { .. })
        ));
    }

    #[test]
    fn a_writable_directory_passes_and_the_probe_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        check_directory(dir.path()).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_pool_larger_than_the_filesystem_is_too_small() {
        let dir = tempfile::tempdir().unwrap();
        let err = check_free_space(dir.path(), u64::MAX / 2).unwrap_err();
        assert!(matches!(err, ShmUnavailable::DevShmTooSmall { .. }));
    }

    #[test]
    fn memlock_limits_apply_only_without_the_capability() {
        assert!(memlock_verdict(None, false, 1 << 30).is_ok());
        assert!(memlock_verdict(Some(8 << 20), true, 1 << 30).is_ok());
        assert!(memlock_verdict(Some(1 << 30), false, 1 << 29).is_ok());
        assert_eq!(
            memlock_verdict(Some(8 << 20), false, 64 << 20),
            Err(ShmUnavailable::MemlockTooLow {
                limit: 8 << 20,
                needed: 64 << 20
            })
        );
    }
}
