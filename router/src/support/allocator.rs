//! How many malloc arenas a zshm process keeps.
//!
//! glibc's malloc gives threads that contend for it arenas of their own, up to eight per core,
//! and an arena keeps what its threads freed for later, in pieces it rarely gives back. A router
//! runs every session's set-up and teardown on whichever worker of tokio's and zenoh's runtimes
//! is free, so over a workshop day each of its 12 to 15 arenas keeps a little more than it uses:
//! most of what the router still grew by with every session that came and went
//! (docs/RELIABILITY.md, "What was left: malloc's arenas"). Measured with rclpy and zshm callers
//! churning against routers side by side, over 500 sessions after warm-up: 1.0 to 1.8 KiB of RSS
//! a session with glibc's default (14 arenas), 0.3 to 0.75 KiB with one, for the same memory in
//! use (2.0 to 2.4 MB); the memory glibc's arenas held was 5.6 to 6.0 MB with the default, 2.9
//! to 3.4 MB with one.
//!
//! So the commands of [`Footprint::Full`] keep one arena: those that live as long as the robot
//! and whose threads grow with the graph (the router, the bridge, the exporter, Foxglove), and
//! the short tools that watch a whole graph. Each thread still has glibc's cache of small blocks
//! in front of it.
//!
//! Node commands keep glibc's default, although they reach 8 or 9 arenas too (a camera through
//! the churn soak). One arena cost them nothing in the benchmarks (BENCHMARKS.md, "One malloc
//! arena in node commands: measured, not kept") but bought them little in the churn soak (0.76
//! and 1.09 MiB an hour against 0.7 and 0.8), and its timing exposed a stall in the node runtime,
//! since fixed (`runtime.rs`; docs/RELIABILITY.md, "A transmit stall that one arena made
//! likelier"). With the gain that small, nodes stay on the configuration their loaded test runs
//! have validated.
//!
//! glibc has no way to say this but `mallopt` (or the environment, read before `main`): a
//! `MALLOC_ARENA_MAX` the user set wins and is left alone.

use super::runtime::Footprint;

/// The arenas a [`Footprint::Full`] command keeps.
pub const FULL_ARENAS: i32 = 1;

/// Bounds glibc's malloc arenas for `footprint`, unless `MALLOC_ARENA_MAX` is set. Runs first
/// thing in `main`, before any thread exists: an arena, once made, stays.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn bound_arenas(footprint: Footprint) {
    if footprint != Footprint::Full || std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    // SAFETY: mallopt only sets a parameter of glibc's allocator; M_ARENA_MAX takes any positive
    // count, and no other thread exists yet to race with it.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, FULL_ARENAS) };
}

/// Other C libraries have no per-thread arenas to bound.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn bound_arenas(_footprint: Footprint) {}
