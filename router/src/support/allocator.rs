//! How many malloc arenas a zshm process keeps.
//!
//! glibc's malloc gives each thread that allocates an arena of its own, up to eight per core,
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
//! A node's threads do the same on a smaller scale (a camera reached 8 or 9 arenas through the
//! churn soak): a `zshm listener` beside 4,101 peer sessions grew 0.19 KiB a session with the
//! default and 0.10 with one arena. One arena costs a node's per-message path nothing that the
//! benchmarks can see: in interleaved runs of the topics (T = 100, 200), subscribers (S = 8),
//! fan-out and payload sweeps, the lane nodes' CPU, p50 and p99.9 with one arena stayed within
//! each case's run-to-run spread of the default's, or below it (BENCHMARKS.md, "One malloc arena
//! in every zshm process"). Each thread still has glibc's cache of small blocks in front of
//! the arena, which is what a message's allocations mostly hit.
//!
//! So every command keeps one arena. glibc has no way to say this but `mallopt` (or the
//! environment, read before `main`): a `MALLOC_ARENA_MAX` the user set wins and is left alone. A
//! Rust node of one's own built on the `zshm` library chooses for itself (the library does not
//! reach into the process's allocator); `MALLOC_ARENA_MAX=1` in its environment does the same.

/// The arenas a zshm command keeps.
pub const ARENAS: i32 = 1;

/// Bounds glibc's malloc arenas to [`ARENAS`], unless `MALLOC_ARENA_MAX` is set. Runs first
/// thing in `main`, before any thread exists: an arena, once made, stays.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn bound_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    // SAFETY: mallopt only sets a parameter of glibc's allocator; M_ARENA_MAX takes any positive
    // count, and no other thread exists yet to race with it.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, ARENAS) };
}

/// Other C libraries have no per-thread arenas to bound.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn bound_arenas() {}
