//! Validation of `ZENOH_RUNTIME` before zenoh reads it.
//!
//! zenoh 1.10.2 parses this variable lazily, on its first runtime use, and `unwrap`s the result
//! (`zenoh-runtime/src/lib.rs`, `ZRUNTIME_PARAM`): a malformed value, even an empty one, panics
//! deep inside `zenoh::open`. The parser's types are private, so this module mirrors their shape
//! (five runtimes, three fields each, RON with implicit `Some`) to refuse bad input up front with a
//! message. It must be kept in step with the pinned zenoh version.

use serde::Deserialize;

/// Why `ZENOH_RUNTIME` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeEnvError {
    /// The variable is set to an empty string; zenoh panics on that. Unset it instead.
    #[error(
        "ZENOH_RUNTIME is set but empty; unset it or give a RON value such as `(app: (worker_threads: 2))`"
    )]
    Empty,
    /// The value is not what zenoh accepts.
    #[error(
        "ZENOH_RUNTIME is not valid: {message}; expected RON such as `(app: (worker_threads: 2), rx: (handover: app))` with runtimes app, acc, tx, rx, net"
    )]
    Invalid {
        /// What the parser or the value check reported.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Fields exist to be validated, never read.
struct RuntimeEnv {
    #[serde(default)]
    app: Option<RuntimeParam>,
    #[serde(default)]
    acc: Option<RuntimeParam>,
    #[serde(default)]
    tx: Option<RuntimeParam>,
    #[serde(default)]
    rx: Option<RuntimeParam>,
    #[serde(default)]
    net: Option<RuntimeParam>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuntimeParam {
    worker_threads: Option<usize>,
    max_blocking_threads: Option<usize>,
    #[allow(dead_code)] // Validated by deserialization only.
    handover: Option<RuntimeName>,
}

#[derive(Deserialize)]
#[allow(non_camel_case_types, dead_code)] // The names are zenoh's RON spellings.
enum RuntimeName {
    app,
    acc,
    tx,
    rx,
    net,
}

/// Checks a `ZENOH_RUNTIME` value the way zenoh will parse it, plus the zero thread counts
/// that make tokio panic.
///
/// ```
/// use zshm::config::runtime_env::validate;
/// assert!(validate("(app: (worker_threads: 2), rx: (handover: app))").is_ok());
/// assert!(validate("").is_err());
/// assert!(validate("(bogus: ())").is_err());
/// ```
pub fn validate(value: &str) -> Result<(), RuntimeEnvError> {
    if value.trim().is_empty() {
        return Err(RuntimeEnvError::Empty);
    }
    let parsed: RuntimeEnv = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(value)
        .map_err(|err| RuntimeEnvError::Invalid {
            message: err.to_string(),
        })?;
    let params = [parsed.app, parsed.acc, parsed.tx, parsed.rx, parsed.net];
    for param in params.iter().flatten() {
        if param.worker_threads == Some(0) || param.max_blocking_threads == Some(0) {
            return Err(RuntimeEnvError::Invalid {
                message: "thread counts must be at least 1".into(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_zenoh_documentation_example() {
        let doc = "(\n rx: (handover: app),\n acc: (handover: app),\n app: (worker_threads: 2),\n tx: (max_blocking_threads: 1)\n)";
        validate(doc).unwrap();
        validate("()").unwrap();
    }

    #[test]
    fn refuses_what_makes_zenoh_panic() {
        assert_eq!(validate(""), Err(RuntimeEnvError::Empty));
        assert_eq!(validate("   "), Err(RuntimeEnvError::Empty));
        for bad in [
            "(",
            "(app: (worker_threads: -1))",
            "(app: (threads: 1))",
            "(bogus: ())",
            "(rx: (handover: nowhere))",
            "(app: (worker_threads: 0))",
        ] {
            assert!(
                matches!(validate(bad), Err(RuntimeEnvError::Invalid { .. })),
                "{bad}"
            );
        }
    }
}
