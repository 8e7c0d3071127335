//! [`ConfigError`]: everything that can be wrong with a config file, override or variable.

use super::overrides::OverrideSyntaxError;
use super::runtime_env::RuntimeEnvError;

/// Why a config could not be resolved. Every variant names the file, key or variable at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The config file could not be read (missing, a directory, no permission).
    #[error("cannot read config file {path}")]
    Read {
        /// The file, and which flag or variable named it.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON5.
    #[error("{origin}:{line}:{column}: JSON5 syntax error: {message}")]
    Syntax {
        /// The file.
        origin: String,
        /// One-based line (0 when unknown).
        line: usize,
        /// One-based column (0 when unknown).
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// A key is unknown or its value has the wrong type.
    #[error("{origin}: invalid config at `{key}`: {message}")]
    Schema {
        /// The file.
        origin: String,
        /// The key path, e.g. `transport/shared_memory/enabled` (empty for the top level).
        key: String,
        /// What zenoh expected there.
        message: String,
    },
    /// The values parse but zenoh refuses them.
    #[error("{origin}: invalid config: {message}")]
    Invalid {
        /// The file or flag.
        origin: String,
        /// zenoh's reason.
        message: String,
    },
    /// `ZENOH_CONFIG_OVERRIDE` cannot be split into `key=value` pairs.
    #[error("ZENOH_CONFIG_OVERRIDE is malformed")]
    OverrideSyntax(#[from] OverrideSyntaxError),
    /// One `ZENOH_CONFIG_OVERRIDE` pair names an unknown key or has a bad value.
    #[error("ZENOH_CONFIG_OVERRIDE: cannot set `{key}` to `{value}`: {message}")]
    OverrideRejected {
        /// The key of the pair.
        key: String,
        /// The value of the pair.
        value: String,
        /// zenoh's reason.
        message: String,
    },
    /// An environment variable has a value zshm cannot use.
    #[error("{name}={value:?} is not valid: expected {expected}")]
    EnvVar {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A command-line flag has a value zenoh refuses (e.g. a malformed endpoint).
    #[error("{flag} {value}: {message}")]
    Flag {
        /// The flag.
        flag: &'static str,
        /// Its value.
        value: String,
        /// zenoh's reason.
        message: String,
    },
    /// The config asks for something this build cannot do (an unbuilt link, plugins).
    #[error("{origin}: `{key}` is not supported: {message}")]
    Unsupported {
        /// The file, override or flag.
        origin: String,
        /// The key path.
        key: String,
        /// What is not supported and what to do instead.
        message: String,
    },
    /// `ZENOH_RUNTIME` would make zenoh panic.
    #[error(transparent)]
    RuntimeEnv(#[from] RuntimeEnvError),
}
