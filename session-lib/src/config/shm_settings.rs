//! [`ShmSettings`]: the shared-memory part of a resolved config, read back from zenoh's config.

pub(crate) const ENABLED_KEY: &str = "transport/shared_memory/enabled";
pub(crate) const MODE_KEY: &str = "transport/shared_memory/mode";
pub(crate) const OPTIMIZATION_KEY: &str = "transport/shared_memory/transport_optimization/enabled";
pub(crate) const POOL_SIZE_KEY: &str = "transport/shared_memory/transport_optimization/pool_size";
pub(crate) const THRESHOLD_KEY: &str =
    "transport/shared_memory/transport_optimization/message_size_threshold";

/// When zenoh initialises its SHM internals (`transport/shared_memory/mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShmInitMode {
    /// On first use (zenoh's default).
    Lazy,
    /// At session open. zenoh 1.10.2 panics in this mode when /dev/shm is unusable, even with
    /// SHM disabled, so zshm only passes it on after its own check of /dev/shm succeeded.
    Init,
}

/// The shared-memory settings a config asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShmSettings {
    /// `transport/shared_memory/enabled`.
    pub enabled: bool,
    /// True when `--no-shm` turned it off (as opposed to the file).
    pub disabled_by_flag: bool,
    /// `transport/shared_memory/mode`.
    pub mode: ShmInitMode,
    /// `transport_optimization/enabled`: large plain payloads are copied into SHM by zenoh.
    pub transport_optimization: bool,
    /// `transport_optimization/pool_size`: the pool every loan comes from, in bytes.
    pub pool_size: usize,
    /// `transport_optimization/message_size_threshold`: payloads of at least this many bytes go
    /// through shared memory.
    pub message_size_threshold: usize,
}

impl ShmSettings {
    pub(crate) fn read(config: &zenoh::Config, disabled_by_flag: bool) -> Result<Self, String> {
        let mode = match get::<String>(config, MODE_KEY)?.as_str() {
            "init" => ShmInitMode::Init,
            _ => ShmInitMode::Lazy,
        };
        Ok(Self {
            enabled: get(config, ENABLED_KEY)?,
            disabled_by_flag,
            mode,
            transport_optimization: get(config, OPTIMIZATION_KEY)?,
            pool_size: get(config, POOL_SIZE_KEY)?,
            message_size_threshold: get(config, THRESHOLD_KEY)?,
        })
    }
}

fn get<T: serde::de::DeserializeOwned>(config: &zenoh::Config, key: &str) -> Result<T, String> {
    let json = config.get_json(key).map_err(|err| format!("{key}: {err}"))?;
    serde_json::from_str(&json).map_err(|err| format!("{key}: {err}"))
}
