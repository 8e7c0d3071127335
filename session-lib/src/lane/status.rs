//! [`LaneStatus`] and [`LaneUnavailable`]: whether a session's zshm nodes talk through the lane,
//! and why not. One enum gives the log line, the remedy, the Prometheus label and what
//! `Session::lane_status()` returns, as [`crate::shm::ShmStatus`] does for zenoh's SHM.

use std::fmt;
use std::path::PathBuf;

/// Whether a session uses the same-host lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaneStatus {
    /// On; its iceoryx2 node is created when the first ROS publisher or subscription needs it.
    Ready {
        /// The private directory the lane will use.
        root: PathBuf,
    },
    /// On, with its iceoryx2 node in `root`.
    Active {
        /// The private directory of the lane's iceoryx2 state.
        root: PathBuf,
    },
    /// Off: everything goes through zenoh, for this reason.
    Unavailable(LaneUnavailable),
}

impl LaneStatus {
    /// True unless the lane is off.
    pub fn is_on(&self) -> bool {
        !matches!(self, LaneStatus::Unavailable(_))
    }

    /// The reason the lane is off, if it is.
    pub fn unavailable_reason(&self) -> Option<&LaneUnavailable> {
        match self {
            LaneStatus::Unavailable(reason) => Some(reason),
            _ => None,
        }
    }
}

impl fmt::Display for LaneStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneStatus::Ready { root } => {
                write!(f, "on (iceoryx2 in {}, started on first use)", root.display())
            }
            LaneStatus::Active { root } => write!(f, "on (iceoryx2 in {})", root.display()),
            LaneStatus::Unavailable(reason) if reason.is_deliberate() => write!(f, "off ({reason})"),
            LaneStatus::Unavailable(reason) => {
                write!(f, "off, using zenoh: {reason}; fix: {}", reason.remedy())
            }
        }
    }
}

/// Why the lane is off.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LaneUnavailable {
    /// `ZSHM_LANE=off`.
    DisabledByEnv,
    /// `--no-lane` (or the builder's `no_lane(true)`).
    DisabledByFlag,
    /// Shared memory is off in the config (`transport/shared_memory/enabled: false`), which
    /// turns the lane off too: the `_TCP` configs are the TCP baseline.
    ShmDisabledInConfig,
    /// `--no-shm`: everything over the network, the lane included.
    ShmDisabledByFlag,
    /// The lane's private directory cannot be created or is not private to this user.
    RootUnusable {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it.
        error: String,
    },
    /// /dev/shm is missing or not writable, so no shared memory at all.
    DevShmUnusable {
        /// What the check found.
        error: String,
    },
    /// iceoryx2 refused to create this process's node.
    NodeCreationFailed {
        /// iceoryx2's error.
        error: String,
    },
}

impl LaneUnavailable {
    /// True when the user turned the lane off (logged at INFO, not WARN).
    pub fn is_deliberate(&self) -> bool {
        matches!(
            self,
            LaneUnavailable::DisabledByEnv
                | LaneUnavailable::DisabledByFlag
                | LaneUnavailable::ShmDisabledInConfig
                | LaneUnavailable::ShmDisabledByFlag
        )
    }

    /// A stable snake_case name: the Prometheus `reason` label and the JSON field.
    pub fn label(&self) -> &'static str {
        match self {
            LaneUnavailable::DisabledByEnv => "disabled_by_env",
            LaneUnavailable::DisabledByFlag => "disabled_by_flag",
            LaneUnavailable::ShmDisabledInConfig => "shm_disabled_in_config",
            LaneUnavailable::ShmDisabledByFlag => "shm_disabled_by_flag",
            LaneUnavailable::RootUnusable { .. } => "root_unusable",
            LaneUnavailable::DevShmUnusable { .. } => "dev_shm_unusable",
            LaneUnavailable::NodeCreationFailed { .. } => "node_creation_failed",
        }
    }

    /// What the user can do about it.
    pub fn remedy(&self) -> &'static str {
        match self {
            LaneUnavailable::DisabledByEnv => "unset ZSHM_LANE (or set it to on)",
            LaneUnavailable::DisabledByFlag => "drop --no-lane",
            LaneUnavailable::ShmDisabledInConfig => {
                "set transport/shared_memory/enabled: true in the session config"
            }
            LaneUnavailable::ShmDisabledByFlag => "drop --no-shm",
            LaneUnavailable::RootUnusable { .. } => {
                "remove the directory (it must be owned by you, mode 0700), or point ZSHM_LANE_ROOT to one that is"
            }
            LaneUnavailable::DevShmUnusable { .. } => "make /dev/shm a writable tmpfs (mode 1777)",
            LaneUnavailable::NodeCreationFailed { .. } => {
                "run `zshm shm-clean`, then `zshm doctor` if it persists"
            }
        }
    }
}

impl fmt::Display for LaneUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneUnavailable::DisabledByEnv => f.write_str("disabled by ZSHM_LANE=off"),
            LaneUnavailable::DisabledByFlag => f.write_str("disabled by --no-lane"),
            LaneUnavailable::ShmDisabledInConfig => f.write_str("shared memory is disabled in the config"),
            LaneUnavailable::ShmDisabledByFlag => f.write_str("disabled by --no-shm"),
            LaneUnavailable::RootUnusable { path, error } => {
                write!(f, "cannot use {} for the lane: {error}", path.display())
            }
            LaneUnavailable::DevShmUnusable { error } => write!(f, "{error}"),
            LaneUnavailable::NodeCreationFailed { error } => {
                write!(f, "iceoryx2 could not create this process's node: {error}")
            }
        }
    }
}

impl std::error::Error for LaneUnavailable {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliberate_reasons_print_without_a_fix() {
        let off = LaneStatus::Unavailable(LaneUnavailable::DisabledByEnv);
        assert_eq!(off.to_string(), "off (disabled by ZSHM_LANE=off)");
        let broken = LaneStatus::Unavailable(LaneUnavailable::NodeCreationFailed {
            error: "InternalError".into(),
        });
        assert!(
            broken
                .to_string()
                .starts_with("off, using zenoh: iceoryx2 could not")
        );
        assert!(broken.to_string().contains("fix: run `zshm shm-clean`"));
    }

    #[test]
    fn labels_are_unique() {
        let all = [
            LaneUnavailable::DisabledByEnv,
            LaneUnavailable::DisabledByFlag,
            LaneUnavailable::ShmDisabledInConfig,
            LaneUnavailable::ShmDisabledByFlag,
            LaneUnavailable::RootUnusable {
                path: PathBuf::new(),
                error: String::new(),
            },
            LaneUnavailable::DevShmUnusable { error: String::new() },
            LaneUnavailable::NodeCreationFailed { error: String::new() },
        ];
        let labels: std::collections::BTreeSet<_> = all.iter().map(LaneUnavailable::label).collect();
        assert_eq!(labels.len(), all.len());
    }
}
