//! `zshm shm-clean`: removes what crashed processes left in shared memory: zenoh segments no
//! running process uses, and the same-host lane's files of processes that died.
//!
//! zenoh unlinks a segment only when no process maps it; a crash, a `kill -9` or a receiver that
//! outlived the publisher leaves `*.zenoh` files behind (docs/zenoh-shm.md, "Segments").
//! Segments still in use are locked by their processes and kept. The lane's iceoryx2 files are
//! removed per dead process (iceoryx2 knows which process owned which file); when no lane process
//! of this user runs, files left half-created by a crash go too.

use std::path::Path;
use std::process::ExitCode;

use zshm::internal::text::human_bytes;

use crate::support::out::outln;

/// Cleans and says what it removed.
pub fn run() -> anyhow::Result<ExitCode> {
    let (segments, bytes) = zshm::internal::shm::cleanup_orphaned_segments();
    outln!(
        "removed {segments} orphaned zenoh segments ({})",
        human_bytes(bytes)
    );
    let root = zshm::internal::lane::domain::root(&zshm::config::Environment::from_process())?;
    let dev_shm = Path::new(zshm::internal::shm::preflight::DEV_SHM);
    match zshm::internal::lane::clean::clean(&root, dev_shm, true) {
        Ok(report) => outln!(
            "lane ({}): removed the files of {} dead processes and {} orphaned files ({}); {} lane processes running",
            root.display(),
            report.dead_nodes,
            report.orphans,
            human_bytes(report.orphan_bytes),
            report.alive_nodes
        ),
        Err(err) => anyhow::bail!("cannot clean the lane in {}: {err}", root.display()),
    }
    Ok(ExitCode::SUCCESS)
}
