//! [`ShmStatus`] and [`ShmUnavailable`]: which path a session's data takes, and why.
//!
//! One enum is the single source of the WARN text, the remedy, the Prometheus label and what
//! `Session::shm_status()` returns, so the three can never disagree.

use std::fmt;

use crate::text::human_bytes;

/// Whether a session publishes through shared memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShmStatus {
    /// Messages at or above `threshold` bytes, and every loan, come from the SHM pool, which
    /// the first such message creates.
    Active {
        /// The largest pool the session may create, in bytes.
        pool_size: usize,
        /// Payloads of at least this many bytes use the pool.
        threshold: usize,
    },
    /// Everything goes over the network (TCP loopback on one host), for the given reason.
    Unavailable(ShmUnavailable),
}

impl ShmStatus {
    /// True when the SHM pool is in use.
    pub fn is_active(&self) -> bool {
        matches!(self, ShmStatus::Active { .. })
    }

    /// The reason SHM is off, if it is.
    pub fn unavailable_reason(&self) -> Option<&ShmUnavailable> {
        match self {
            ShmStatus::Active { .. } => None,
            ShmStatus::Unavailable(reason) => Some(reason),
        }
    }
}

impl fmt::Display for ShmStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShmStatus::Active { pool_size, threshold } => write!(
                f,
                "on (pool up to {}, created on first use; messages >= {threshold} B)",
                human_bytes(*pool_size as u64)
            ),
            ShmStatus::Unavailable(reason) if reason.is_deliberate() => write!(f, "off ({reason})"),
            ShmStatus::Unavailable(reason) => {
                write!(f, "off, falling back to TCP: {reason}; fix: {}", reason.remedy())
            }
        }
    }
}

/// Why shared memory is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShmUnavailable {
    /// `transport/shared_memory/enabled` is false in the config.
    DisabledInConfig,
    /// `--no-shm` was given.
    DisabledByFlag,
    /// The shared-memory directory does not exist (a container without /dev/shm).
    DevShmMissing {
        /// The directory checked.
        path: String,
    },
    /// The shared-memory directory is mounted read-only.
    DevShmReadOnly {
        /// The directory checked.
        path: String,
    },
    /// A file cannot be created in the shared-memory directory.
    DevShmNotWritable {
        /// The directory checked.
        path: String,
        /// The operating system's error.
        error: String,
    },
    /// The shared-memory filesystem has less free space than the pool needs.
    DevShmTooSmall {
        /// Free bytes.
        free: u64,
        /// Bytes needed (pool plus zenoh's metadata segment).
        needed: u64,
    },
    /// zenoh locks every segment in RAM and the locked-memory limit is below the pool size.
    MemlockTooLow {
        /// `RLIMIT_MEMLOCK` soft limit in bytes.
        limit: u64,
        /// Bytes needed.
        needed: u64,
    },
    /// zenoh could not open a session with SHM on; it was reopened without.
    OpenFailed {
        /// zenoh's error.
        error: String,
    },
    /// The session opened but zenoh could not create the SHM pool.
    PoolCreationFailed {
        /// zenoh's error, or what is known of it.
        error: String,
    },
}

impl ShmUnavailable {
    /// True when SHM is off because the user asked for it (config or flag), not because of a
    /// problem. Deliberate cases are logged at INFO, problems at WARN.
    pub fn is_deliberate(&self) -> bool {
        matches!(
            self,
            ShmUnavailable::DisabledInConfig | ShmUnavailable::DisabledByFlag
        )
    }

    /// A stable snake_case name, used as the Prometheus `reason` label and in JSON output.
    pub fn label(&self) -> &'static str {
        match self {
            ShmUnavailable::DisabledInConfig => "disabled_in_config",
            ShmUnavailable::DisabledByFlag => "disabled_by_flag",
            ShmUnavailable::DevShmMissing { .. } => "dev_shm_missing",
            ShmUnavailable::DevShmReadOnly { .. } => "dev_shm_read_only",
            ShmUnavailable::DevShmNotWritable { .. } => "dev_shm_not_writable",
            ShmUnavailable::DevShmTooSmall { .. } => "dev_shm_too_small",
            ShmUnavailable::MemlockTooLow { .. } => "memlock_too_low",
            ShmUnavailable::OpenFailed { .. } => "open_failed",
            ShmUnavailable::PoolCreationFailed { .. } => "pool_creation_failed",
        }
    }

    /// What the user can do about it.
    pub fn remedy(&self) -> &'static str {
        match self {
            ShmUnavailable::DisabledInConfig => {
                "set transport/shared_memory/enabled: true in both the router and the session config"
            }
            ShmUnavailable::DisabledByFlag => "drop --no-shm",
            ShmUnavailable::DevShmMissing { .. } => {
                "mount a tmpfs on /dev/shm (containers: docker run --ipc=host or --shm-size=256m)"
            }
            ShmUnavailable::DevShmReadOnly { .. } | ShmUnavailable::DevShmNotWritable { .. } => {
                "make /dev/shm a writable tmpfs (mode 1777) for this user"
            }
            ShmUnavailable::DevShmTooSmall { .. } => {
                "enlarge /dev/shm (docker run --shm-size=256m, compose shm_size) or lower ZENOH_SHM_ALLOC_SIZE"
            }
            ShmUnavailable::MemlockTooLow { .. } => {
                "raise the locked-memory limit: ulimit -l unlimited, systemd LimitMEMLOCK=infinity, compose ulimits.memlock: -1, or lower ZENOH_SHM_ALLOC_SIZE"
            }
            ShmUnavailable::OpenFailed { .. } | ShmUnavailable::PoolCreationFailed { .. } => {
                "run `zshm doctor` to see which check fails"
            }
        }
    }
}

impl fmt::Display for ShmUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShmUnavailable::DisabledInConfig => f.write_str("disabled in the config"),
            ShmUnavailable::DisabledByFlag => f.write_str("disabled by --no-shm"),
            ShmUnavailable::DevShmMissing { path } => write!(f, "{path} does not exist"),
            ShmUnavailable::DevShmReadOnly { path } => write!(f, "{path} is read-only"),
            ShmUnavailable::DevShmNotWritable { path, error } => {
                write!(f, "cannot create a file in {path}: {error}")
            }
            ShmUnavailable::DevShmTooSmall { free, needed } => write!(
                f,
                "/dev/shm has {} free but the pool needs {}",
                human_bytes(*free),
                human_bytes(*needed)
            ),
            ShmUnavailable::MemlockTooLow { limit, needed } => write!(
                f,
                "locked-memory limit is {} but zenoh must lock {}",
                human_bytes(*limit),
                human_bytes(*needed)
            ),
            ShmUnavailable::OpenFailed { error } => {
                write!(f, "zenoh could not open with shared memory: {error}")
            }
            ShmUnavailable::PoolCreationFailed { error } => {
                write!(f, "zenoh could not create the SHM pool: {error}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliberate_reasons_print_without_a_fix() {
        let off = ShmStatus::Unavailable(ShmUnavailable::DisabledByFlag);
        assert_eq!(off.to_string(), "off (disabled by --no-shm)");
        let broken = ShmStatus::Unavailable(ShmUnavailable::DevShmReadOnly {
            path: "/dev/shm".into(),
        });
        assert!(
            broken
                .to_string()
                .starts_with("off, falling back to TCP: /dev/shm is read-only; fix:")
        );
    }

    #[test]
    fn labels_are_unique() {
        let all = [
            ShmUnavailable::DisabledInConfig,
            ShmUnavailable::DisabledByFlag,
            ShmUnavailable::DevShmMissing { path: String::new() },
            ShmUnavailable::DevShmReadOnly { path: String::new() },
            ShmUnavailable::DevShmNotWritable {
                path: String::new(),
                error: String::new(),
            },
            ShmUnavailable::DevShmTooSmall { free: 0, needed: 0 },
            ShmUnavailable::MemlockTooLow { limit: 0, needed: 0 },
            ShmUnavailable::OpenFailed { error: String::new() },
            ShmUnavailable::PoolCreationFailed { error: String::new() },
        ];
        let labels: std::collections::BTreeSet<_> = all.iter().map(ShmUnavailable::label).collect();
        assert_eq!(labels.len(), all.len());
    }
}
