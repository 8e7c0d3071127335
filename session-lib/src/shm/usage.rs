//! What the shared-memory filesystem holds: its size and free space, and the bytes zenoh's
//! `*.zenoh` segments take there.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The shared-memory filesystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DevShm {
    /// Filesystem size.
    pub size_bytes: u64,
    /// Free bytes.
    pub free_bytes: u64,
    /// Bytes allocated to `*.zenoh` segments.
    pub zenoh_bytes: u64,
    /// Number of `*.zenoh` segments.
    pub zenoh_segments: u64,
}

/// Reads the usage of `dir` (normally /dev/shm).
pub fn dev_shm(dir: &Path) -> Option<DevShm> {
    let stat = nix::sys::statvfs::statvfs(dir).ok()?;
    let mut usage = DevShm {
        size_bytes: stat.blocks().saturating_mul(stat.fragment_size()),
        free_bytes: stat.blocks_available().saturating_mul(stat.fragment_size()),
        ..DevShm::default()
    };
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        if entry.file_name().to_string_lossy().ends_with(".zenoh")
            && let Ok(meta) = entry.metadata()
        {
            usage.zenoh_segments += 1;
            // Allocated blocks, not the apparent size: what the segment really takes from RAM.
            usage.zenoh_bytes += meta.blocks() * 512;
        }
    }
    Some(usage)
}

/// The owners (uids) of `*.zenoh` segments in `dir` other than this process's user, sorted: their
/// segments are private to them (mode 0600), so this user cannot map them, nor they this user's.
pub fn foreign_segment_owners(dir: &Path) -> Vec<u32> {
    let me = nix::unistd::geteuid().as_raw();
    let mut owners: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".zenoh"))
        .filter_map(|entry| entry.metadata().ok().map(|m| m.uid()))
        .filter(|uid| *uid != me)
        .collect();
    owners.sort_unstable();
    owners.dedup();
    owners
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_zenoh_segments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.zenoh"), vec![1u8; 8192]).unwrap();
        std::fs::write(dir.path().join("other"), b"x").unwrap();
        let usage = dev_shm(dir.path()).unwrap();
        assert_eq!(usage.zenoh_segments, 1);
        assert!(usage.zenoh_bytes >= 8192);
        assert!(usage.size_bytes >= usage.free_bytes);
    }
}
