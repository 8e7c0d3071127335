//! What the subcommands share that is not a command: opening sessions from the common flags,
//! message definitions for schemas, the graph for the `topic` commands, waiting for
//! SIGINT/SIGTERM, pacing loops, child processes, the log output, the metrics endpoint with its
//! status page, and reading it back, and the size of a command's runtimes and malloc arenas. Nothing here imports
//! from `cmd`.

pub mod allocator;
pub mod children;
pub mod conn_guard;
pub mod definitions;
pub mod delivery;
pub mod fibonacci;
pub mod graph;
pub mod logging;
pub mod metrics_http;
pub mod out;
pub mod runtime;
pub mod scrape;
pub mod session;
pub mod shutdown;
pub mod status_page;
pub mod ticker;

/// `.context(...)` for zenoh's results: zenoh's error is a boxed `dyn Error`, which does not
/// implement `std::error::Error` itself, so anyhow's `Context` does not apply to it directly.
/// This keeps zenoh's error as the source instead of flattening it into a string.
pub trait ZenohContext<T> {
    /// Wraps the error with `context`, keeping zenoh's error as its source.
    fn zenoh_context(self, context: &'static str) -> anyhow::Result<T>;
}

impl<T> ZenohContext<T> for Result<T, zenoh::Error> {
    fn zenoh_context(self, context: &'static str) -> anyhow::Result<T> {
        self.map_err(|err| anyhow::Error::from_boxed(err).context(context))
    }
}
