//! Configuration: where it comes from, in which order, and what it says about shared memory.
//!
//! The lookup order is the one rmw_zenoh uses, written once here:
//!
//! 1. the file given explicitly (`--config PATH`), else
//! 2. the file named by `ZENOH_ROUTER_CONFIG_URI` (router) or `ZENOH_SESSION_CONFIG_URI` (nodes),
//!    else
//! 3. the built-in default: `configs/ROUTER_CONFIG.json5` or `configs/SESSION_CONFIG.json5`,
//!    embedded in the binary (shared memory on).
//!
//! On top of the file, in this order: `ZENOH_CONFIG_OVERRIDE` (`key/path=json5value;...`),
//! `ZENOH_SHM_ALLOC_SIZE` (pool size in bytes, when > 0), `ZENOH_SHM_MESSAGE_SIZE_THRESHOLD`
//! (bytes, when > 0; must be a power of two as in rmw_zenoh), and last the command-line flags
//! (`--listen`, `--connect`, `--no-shm`), because what a user types wins.
//!
//! Resolution is a pure function of a [`ConfigRequest`] and an [`Environment`]: it never reads
//! the process environment itself and never opens a session. Any bad input is a [`ConfigError`]
//! naming the file, line, key or variable at fault.

pub mod capabilities;
pub mod env;
pub mod overrides;
pub mod runtime_env;

mod error;
mod shm_settings;

use std::path::PathBuf;

pub use env::Environment;
pub use error::ConfigError;
pub use shm_settings::{ShmInitMode, ShmSettings};

/// The router config shipped in `configs/` and embedded as the router's default.
pub const BUILTIN_ROUTER_CONFIG: &str = include_str!("../../../configs/ROUTER_CONFIG.json5");
/// The session config shipped in `configs/` and embedded as the nodes' default.
pub const BUILTIN_SESSION_CONFIG: &str = include_str!("../../../configs/SESSION_CONFIG.json5");

/// Which process the config is for; it picks the environment variable and built-in default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `zshm router`, the drop-in for `rmw_zenohd`.
    Router,
    /// A node (peer session), like every rmw_zenoh context.
    Session,
}

impl Role {
    /// The environment variable that names this role's config file.
    pub fn config_uri_var(self) -> &'static str {
        match self {
            Role::Router => env::ROUTER_CONFIG_URI,
            Role::Session => env::SESSION_CONFIG_URI,
        }
    }

    fn builtin(self) -> (&'static str, &'static str) {
        match self {
            Role::Router => ("built-in configs/ROUTER_CONFIG.json5", BUILTIN_ROUTER_CONFIG),
            Role::Session => ("built-in configs/SESSION_CONFIG.json5", BUILTIN_SESSION_CONFIG),
        }
    }
}

/// Where the config file came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// Given with `--config`.
    Explicit(PathBuf),
    /// Named by `ZENOH_ROUTER_CONFIG_URI` or `ZENOH_SESSION_CONFIG_URI`.
    EnvVar {
        /// The variable's name.
        var: &'static str,
        /// The file it named.
        path: PathBuf,
    },
    /// The default embedded in the binary.
    Builtin(&'static str),
}

impl std::fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigSource::Explicit(path) => write!(f, "{}", path.display()),
            ConfigSource::EnvVar { var, path } => write!(f, "{} (from {var})", path.display()),
            ConfigSource::Builtin(name) => f.write_str(name),
        }
    }
}

/// What the caller (usually the command line) asks for, before the environment is applied.
#[derive(Debug, Clone)]
pub struct ConfigRequest {
    /// Router or node.
    pub role: Role,
    /// `--config PATH`: wins over the environment variable and the built-in default.
    pub file: Option<PathBuf>,
    /// `--listen`: replaces `listen/endpoints` when not empty.
    pub listen: Vec<String>,
    /// `--connect`: replaces `connect/endpoints` when not empty.
    pub connect: Vec<String>,
    /// `--no-shm`: turns `transport/shared_memory/enabled` off.
    pub no_shm: bool,
}

impl ConfigRequest {
    /// A request with no flag given.
    pub fn new(role: Role) -> Self {
        Self {
            role,
            file: None,
            listen: Vec::new(),
            connect: Vec::new(),
            no_shm: false,
        }
    }
}

/// A config ready to open a session with, and what it says about shared memory.
#[derive(Debug, Clone)]
pub struct ResolvedConfig {
    /// Router or node.
    pub role: Role,
    /// Where the file came from.
    pub source: ConfigSource,
    /// The zenoh config with every override applied.
    pub zenoh: zenoh::Config,
    /// The shared-memory settings as configured (before any runtime check of /dev/shm).
    pub shm: ShmSettings,
}

/// Resolves the config for `request` in the documented order.
///
/// ```
/// use zshm::config::{resolve, ConfigRequest, Environment, Role};
/// let resolved = resolve(&ConfigRequest::new(Role::Router), &Environment::empty())?;
/// assert!(resolved.shm.enabled);
/// # Ok::<(), zshm::config::ConfigError>(())
/// ```
pub fn resolve(request: &ConfigRequest, env: &Environment) -> Result<ResolvedConfig, ConfigError> {
    let (source, origin, text) = load_source(request, env)?;
    let mut zenoh = parse_json5(&origin, &text)?;

    if let Some(value) = env.get(env::CONFIG_OVERRIDE) {
        for pair in overrides::parse(value)? {
            insert(&mut zenoh, &pair.key, &pair.value).map_err(|message| ConfigError::OverrideRejected {
                key: pair.key.clone(),
                value: pair.value.clone(),
                message,
            })?;
        }
    }
    if let Some(size) = positive_env(env, env::SHM_ALLOC_SIZE)? {
        insert_env(&mut zenoh, env::SHM_ALLOC_SIZE, size, shm_settings::POOL_SIZE_KEY)?;
    }
    if let Some(threshold) = positive_env(env, env::SHM_MESSAGE_SIZE_THRESHOLD)? {
        if !threshold.is_power_of_two() {
            return Err(ConfigError::EnvVar {
                name: env::SHM_MESSAGE_SIZE_THRESHOLD,
                value: threshold.to_string(),
                expected: "a power of two (rmw_zenoh ignores other values)",
            });
        }
        insert_env(
            &mut zenoh,
            env::SHM_MESSAGE_SIZE_THRESHOLD,
            threshold,
            shm_settings::THRESHOLD_KEY,
        )?;
    }
    insert_endpoints(&mut zenoh, "--listen", "listen/endpoints", &request.listen)?;
    insert_endpoints(&mut zenoh, "--connect", "connect/endpoints", &request.connect)?;
    if request.no_shm {
        insert(&mut zenoh, shm_settings::ENABLED_KEY, "false").map_err(|message| ConfigError::Invalid {
            origin: "--no-shm".into(),
            message,
        })?;
    }

    capabilities::check(&zenoh, &origin)?;
    let shm = ShmSettings::read(&zenoh, request.no_shm).map_err(|message| ConfigError::Invalid {
        origin: origin.clone(),
        message,
    })?;
    Ok(ResolvedConfig {
        role: request.role,
        source,
        zenoh,
        shm,
    })
}

fn load_source(
    request: &ConfigRequest,
    env: &Environment,
) -> Result<(ConfigSource, String, String), ConfigError> {
    let var = request.role.config_uri_var();
    let (source, path) = match (&request.file, env.get(var)) {
        (Some(path), _) => (ConfigSource::Explicit(path.clone()), path.clone()),
        (None, Some(uri)) if !uri.is_empty() => {
            let path = PathBuf::from(uri.strip_prefix("file://").unwrap_or(uri));
            (
                ConfigSource::EnvVar {
                    var,
                    path: path.clone(),
                },
                path,
            )
        }
        _ => {
            let (name, text) = request.role.builtin();
            return Ok((ConfigSource::Builtin(name), name.to_owned(), text.to_owned()));
        }
    };
    let origin = source.to_string();
    let text = std::fs::read_to_string(&path).map_err(|err| ConfigError::Read {
        path: origin.clone(),
        source: err,
    })?;
    Ok((source, origin, text))
}

/// Parses JSON5 text into a zenoh config, reporting syntax errors with their line and schema
/// errors with the key path (zenoh's own error names neither).
pub fn parse_json5(origin: &str, text: &str) -> Result<zenoh::Config, ConfigError> {
    let syntax_error = |err: json5::Error| {
        let json5::Error::Message { msg, location } = err;
        let (line, column) = location.map(|l| (l.line, l.column)).unwrap_or((0, 0));
        ConfigError::Syntax {
            origin: origin.to_owned(),
            line,
            column,
            message: pest_expectation(&msg),
        }
    };
    // A syntax-only pass first: json5 reports positions for grammar errors only.
    json5::from_str::<serde::de::IgnoredAny>(text).map_err(syntax_error)?;
    let mut json5_de = json5::Deserializer::from_str(text).map_err(syntax_error)?;
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(&mut json5_de, &mut track);
    match zenoh::Config::from_deserializer(tracked) {
        Ok(config) => Ok(config),
        Err(Ok(_)) => Err(ConfigError::Invalid {
            origin: origin.to_owned(),
            message: "the file parses but zenoh rejects the combination of values".into(),
        }),
        Err(Err(err)) => Err(ConfigError::Schema {
            origin: origin.to_owned(),
            key: track.path().to_string().replace('.', "/"),
            message: first_line(&err.to_string()),
        }),
    }
}

/// pest's messages draw the offending line with arrows; the last line (`= expected ...`) is the
/// part worth printing, as the position is already in the error.
fn pest_expectation(message: &str) -> String {
    message
        .lines()
        .rev()
        .find_map(|line| line.trim().strip_prefix("= "))
        .map(str::to_owned)
        .unwrap_or_else(|| first_line(message))
}

fn first_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn insert(config: &mut zenoh::Config, key: &str, value: &str) -> Result<(), String> {
    config
        .insert_json5(key, value)
        .map_err(|err| crate::text::tidy(&err.to_string()))
}

fn insert_env(
    config: &mut zenoh::Config,
    name: &'static str,
    value: usize,
    key: &str,
) -> Result<(), ConfigError> {
    insert(config, key, &value.to_string()).map_err(|message| ConfigError::EnvVar {
        name,
        value: format!("{value} ({message})"),
        expected: "a size zenoh accepts",
    })
}

fn insert_endpoints(
    config: &mut zenoh::Config,
    flag: &'static str,
    key: &str,
    endpoints: &[String],
) -> Result<(), ConfigError> {
    if endpoints.is_empty() {
        return Ok(());
    }
    let json = serde_json::to_string(endpoints).expect("a list of strings always serializes");
    insert(config, key, &json).map_err(|message| ConfigError::Flag {
        flag,
        value: endpoints.join(","),
        message,
    })
}

/// Reads a non-negative integer variable; 0 and unset both mean "use the config", as in rmw_zenoh.
fn positive_env(env: &Environment, name: &'static str) -> Result<Option<usize>, ConfigError> {
    let Some(raw) = env.get(name) else { return Ok(None) };
    let value: usize = raw.trim().parse().map_err(|_| ConfigError::EnvVar {
        name,
        value: raw.to_owned(),
        expected: "a non-negative integer number of bytes",
    })?;
    Ok((value > 0).then_some(value))
}

#[cfg(test)]
mod tests;
