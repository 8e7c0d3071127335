//! `zshm shm-clean`: removes zenoh segments from /dev/shm that no running process uses.
//!
//! zenoh unlinks a segment only when no process maps it; a crash, a `kill -9` or a receiver that
//! outlived the publisher leaves `*.zenoh` files behind (docs/zenoh-shm.md, "Segments").
//! Segments still in use are locked by their processes and kept.

use std::process::ExitCode;

use crate::support::out::outln;

/// Cleans and says what it removed.
pub fn run() -> anyhow::Result<ExitCode> {
    let (segments, bytes) = zshm::shm::cleanup_orphaned_segments();
    outln!(
        "removed {segments} orphaned zenoh segments ({})",
        zshm::text::human_bytes(bytes)
    );
    Ok(ExitCode::SUCCESS)
}
