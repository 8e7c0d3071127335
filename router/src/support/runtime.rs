//! The async runtimes of a command, sized for what it does.
//!
//! A node process (a talker, a camera, a benchmark's node) runs one zenoh session and a few
//! entities. tokio's default gives it a worker per core, and zenoh's own runtimes (app, acc,
//! tx, rx, net) start at least six more threads, whatever the node does: 16 to 35 threads and
//! their stacks per node in the topics sweep, where an iceoryx2 process has 4. So a node
//! command gets one tokio worker, zenoh's transmit and receive runtimes one worker each, and
//! zenoh's accept and network runtimes handed over to one `app` runtime of one worker (zenoh's
//! own `ZENOH_RUNTIME` setting, documented in zenoh-runtime). The router, the bridge and the
//! tools that watch a whole graph keep the defaults: their work grows with the graph, not with
//! one node.
//!
//! The receive work must not run on the worker that drives the links' sockets, nor the transmit
//! work on the receive worker. A blocking `put` (reliable KEEP_ALL) waits for room in a link's
//! queue while holding that queue's lock, and only the transmit task empties the queue. A message
//! that arrives meanwhile and needs a reply on the same link (a peer's admin-space query) blocks
//! its receive task on that lock, synchronously, and with it the worker running it. Two cycles
//! follow, both seen with gdb in a `zshm pub` of 4 MiB messages over TCP beside busy loops, its
//! main thread in `StageIn::push_network_message`, and zenoh closing the link 60 s later:
//! * with transmit and receive on one worker, the transmit task cannot run at all (5 December);
//! * with transmit on a worker of its own but receive on `app`, the transmit task waits for its
//!   socket to become writable, and that readiness comes from the reactor of the runtime the
//!   socket was accepted or connected on (`acc` and `net`, handed over to `app`), which only the
//!   blocked `app` worker drives (6 December: 3 of 50 loaded runs with one malloc arena, whose
//!   timing made it likelier, 0 of 50 with the receive runtime on a worker of its own).
//!
//! So receive keeps a worker of its own: a receive task blocked on a queue's lock stalls nothing
//! but itself until the transmit task, woken by `app`'s reactor, frees the queue.
//!
//! A `ZENOH_RUNTIME` the user set always wins, and blocking work (zenoh's `block_in_place`, the
//! lane's set-up) still gets threads on demand from the blocking pools.

use std::time::Duration;

/// How much runtime a command gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Footprint {
    /// One node's worth: one tokio worker, zenoh's runtimes folded into two (transmit, the rest).
    Node,
    /// tokio's and zenoh's defaults.
    Full,
}

/// What a node command sets `ZENOH_RUNTIME` to when the user did not: zenoh's accept and network
/// runtimes handed over to `app`, which runs one worker, and the transmit and receive runtimes on
/// one worker each (see the module's note on why).
pub const NODE_ZENOH_RUNTIME: &str = "(app: (worker_threads: 1), acc: (handover: app), tx: (worker_threads: 1), rx: (worker_threads: 1), net: (handover: app))";

/// How long an idle blocking thread stays (tokio's default is 10 s): the lane's set-up and
/// zenoh's `block_in_place` come in bursts at start-up, and a node should not keep their
/// threads through its measured life.
const BLOCKING_KEEP_ALIVE: Duration = Duration::from_secs(1);

/// Sizes zenoh's runtimes for `footprint`. zenoh reads `ZENOH_RUNTIME` once, on its first use of
/// a runtime, so this runs first thing in `main`, before any other thread exists (setting an
/// environment variable is only sound while no other thread may read the environment).
// zenoh takes this setting from the environment only; there is no API to pass it.
#[allow(unsafe_code)]
pub fn size_zenoh(footprint: Footprint) {
    if footprint == Footprint::Node && std::env::var_os("ZENOH_RUNTIME").is_none() {
        // SAFETY: called from `main` before the runtime, the logger or anything else has
        // started a thread, so nothing reads the environment concurrently.
        unsafe { std::env::set_var("ZENOH_RUNTIME", NODE_ZENOH_RUNTIME) };
    }
}

/// The tokio runtime for `footprint`.
pub fn build(footprint: Footprint) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if footprint == Footprint::Node {
        builder.worker_threads(1).thread_keep_alive(BLOCKING_KEEP_ALIVE);
    }
    builder.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_setting_is_one_zenoh_accepts() {
        zshm::config::runtime_env::validate(NODE_ZENOH_RUNTIME).unwrap();
    }
}
