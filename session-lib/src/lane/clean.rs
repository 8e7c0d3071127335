//! What the lane leaves on the host, and removing what nobody uses (`zshm shm-clean`).
//!
//! A process that exits normally removes its iceoryx2 files. One that is killed leaves its
//! node's files under the domain's root and its segments in /dev/shm; iceoryx2 detects such a
//! node as dead at once (its lock is gone) and removes its resources when another process of
//! the domain creates a node, opens a service, or asks ([`clean`]). Until then a dead
//! subscriber still counts as a subscriber of its publishers.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use iceoryx2::node::{DeadNodeView, NodeView};
use iceoryx2::prelude::*;

use super::Svc;
use super::domain;
use super::status::LaneUnavailable;

/// What [`clean`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CleanReport {
    /// Dead processes whose resources were removed.
    pub dead_nodes: usize,
    /// Processes of the domain still running (their files are kept).
    pub alive_nodes: usize,
    /// Files removed that no live process owned: left by a crash in the middle of a creation,
    /// or doorbells of dead processes.
    pub orphans: usize,
    /// Bytes those held in /dev/shm.
    pub orphan_bytes: u64,
}

/// Files younger than this are never taken for orphans: a process may be creating them.
const ORPHAN_AGE: Duration = Duration::from_secs(10);

/// The processes of the domain rooted at `root`: (running, dead with files left). Changes nothing.
pub fn survey(root: &Path) -> Result<(usize, usize), LaneUnavailable> {
    let (alive, dead) = list(root)?;
    Ok((alive, dead.len()))
}

fn list(root: &Path) -> Result<(usize, Vec<DeadNodeView<Svc>>), LaneUnavailable> {
    if !root.is_dir() {
        return Ok((0, Vec::new())); // the lane never ran here
    }
    let config = domain::iceoryx2_config(root)?;
    let (mut alive, mut dead) = (0, Vec::new());
    let listed = Node::<Svc>::list(&config, |state| {
        match state {
            NodeState::Dead(view) => dead.push(view),
            // Another user's node, or one being created: never remove its files blindly.
            NodeState::Alive(_) | NodeState::Inaccessible(_) | NodeState::Undefined(_) => alive += 1,
        }
        CallbackProgression::Continue
    });
    listed.map_err(|err| LaneUnavailable::NodeCreationFailed {
        error: format!("cannot list the lane's processes: {err:?}"),
    })?;
    Ok((alive, dead))
}

/// Removes what dead processes of the domain rooted at `root` left. With `orphans`, and only when
/// no process of the domain runs, also removes the domain's other files in /dev/shm and under
/// `root` that are older than a few seconds (left by a crash half-way through a creation).
pub fn clean(root: &Path, dev_shm: &Path, orphans: bool) -> Result<CleanReport, LaneUnavailable> {
    let (alive_nodes, dead) = list(root)?;
    let mut report = CleanReport {
        alive_nodes,
        ..CleanReport::default()
    };
    for view in dead {
        let node = format!("{:?}", view.id());
        match view.blocking_remove_stale_resources(Duration::from_secs(1)) {
            Ok(()) => report.dead_nodes += 1,
            Err(err) => tracing::warn!(
                node,
                "lane: a dead node's resources could not be removed: {err:?}"
            ),
        }
    }
    // Doorbells nobody reads: their process died (a live one is always read).
    let bells = domain::bells_dir_of(dev_shm, nix::unistd::geteuid().as_raw(), root);
    report.orphans += super::doorbell::remove_dead_bells(&bells);
    if orphans && report.alive_nodes == 0 {
        let prefix = domain::prefix(root);
        for entry in std::fs::read_dir(dev_shm).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) && is_old(&entry.path()) {
                report.orphan_bytes += entry.metadata().map_or(0, |m| m.blocks() * 512);
                if std::fs::remove_file(entry.path()).is_ok() {
                    report.orphans += 1;
                }
            }
        }
        // Gone only when empty: a process may be creating its doorbell there right now.
        let _ = std::fs::remove_dir(&bells);
        // Only this host's state directory: another /dev/shm's processes may share the root
        // (see `domain`), and theirs are not ours to judge.
        let state = domain::state_dir(root);
        for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
            let path = entry.path();
            let removed = if path == state {
                remove_files_under(&path)
            } else if path.is_dir() {
                0
            } else if is_old(&path) {
                std::fs::remove_file(&path).map(|()| 1).unwrap_or(0)
            } else {
                0
            };
            report.orphans += removed;
        }
    }
    Ok(report)
}

/// Removes the files under `dir` (iceoryx2's `nodes/` and `services/`), keeping the directories.
fn remove_files_under(dir: &Path) -> usize {
    let mut removed = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            removed += remove_files_under(&path);
            let _ = std::fs::remove_dir(&path);
        } else if is_old(&path) && std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn is_old(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|meta| meta.modified())
        .is_ok_and(|modified| {
            SystemTime::now()
                .duration_since(modified)
                .is_ok_and(|age| age >= ORPHAN_AGE)
        })
}

/// Files in `dev_shm` of every lane domain of every user (`z<uid>_<6 hex>_...`), and the bytes
/// they really hold (allocated blocks: segments are sparse).
pub fn dev_shm_usage(dev_shm: &Path) -> (u64, u64) {
    let (mut files, mut bytes) = (0, 0);
    for entry in std::fs::read_dir(dev_shm).into_iter().flatten().flatten() {
        if is_lane_file(&entry.file_name().to_string_lossy()) {
            files += 1;
            bytes += entry.metadata().map_or(0, |m| m.blocks() * 512);
        }
    }
    (files, bytes)
}

fn is_lane_file(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('z') else {
        return false;
    };
    let Some((uid, rest)) = rest.split_once('_') else {
        return false;
    };
    let Some((hash, _)) = rest.split_once('_') else {
        return false;
    };
    !uid.is_empty()
        && uid.bytes().all(|b| b.is_ascii_digit())
        && hash.len() == 6
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_files_are_recognised_by_their_prefix() {
        assert!(is_lane_file("z0_a1b2c3_0123.data"));
        assert!(is_lane_file("z1000_ffffff_x"));
        assert!(!is_lane_file("1234.zenoh"));
        assert!(!is_lane_file("zx_a1b2c3_"));
        assert!(!is_lane_file("z0_a1b2_x"));
        assert!(!is_lane_file("iox2_abc"));
    }

    #[test]
    fn cleaning_a_root_that_never_existed_does_nothing() {
        let report = clean(Path::new("/nonexistent/zshm-lane"), Path::new("/dev/shm"), true).unwrap();
        assert_eq!(report, CleanReport::default());
    }
}
