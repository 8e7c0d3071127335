//! The environment variables zshm reads, captured once as plain data.
//!
//! Resolution code never calls `std::env::var` itself: it receives an [`Environment`], so tests
//! can pass any environment and the process environment is read in exactly one place.

use std::collections::BTreeMap;

/// `ZENOH_ROUTER_CONFIG_URI`: the router's config file (rmw_zenoh's name).
pub const ROUTER_CONFIG_URI: &str = "ZENOH_ROUTER_CONFIG_URI";
/// `ZENOH_SESSION_CONFIG_URI`: every node's session config file (rmw_zenoh's name).
pub const SESSION_CONFIG_URI: &str = "ZENOH_SESSION_CONFIG_URI";
/// `ZENOH_CONFIG_OVERRIDE`: `key/path=json5value;...`, applied on top of the file.
pub const CONFIG_OVERRIDE: &str = "ZENOH_CONFIG_OVERRIDE";
/// `ZENOH_SHM_ALLOC_SIZE`: overrides the SHM pool size in bytes when greater than 0.
pub const SHM_ALLOC_SIZE: &str = "ZENOH_SHM_ALLOC_SIZE";
/// `ZENOH_SHM_MESSAGE_SIZE_THRESHOLD`: overrides the SHM threshold when greater than 0.
pub const SHM_MESSAGE_SIZE_THRESHOLD: &str = "ZENOH_SHM_MESSAGE_SIZE_THRESHOLD";
/// `ZENOH_ROUTER_CHECK_ATTEMPTS`: how many times a session checks for a router at open.
pub const ROUTER_CHECK_ATTEMPTS: &str = "ZENOH_ROUTER_CHECK_ATTEMPTS";
/// `ZENOH_RUNTIME`: zenoh's own thread-pool settings (RON); zenoh panics when it is malformed.
pub const ZENOH_RUNTIME: &str = "ZENOH_RUNTIME";
/// `ROS_DOMAIN_ID`: the ROS 2 domain, 0 when unset.
pub const ROS_DOMAIN_ID: &str = "ROS_DOMAIN_ID";
/// `ZSHM_LANE`: `off` turns the same-host lane off (`on`, the default, leaves it on).
pub const ZSHM_LANE: &str = "ZSHM_LANE";
/// `ZSHM_LANE_ROOT`: the lane's private iceoryx2 directory instead of the per-user default.
pub const ZSHM_LANE_ROOT: &str = "ZSHM_LANE_ROOT";
/// `ZSHM_LANE_WAKE`: how lane subscriptions are woken: `doorbell` (the default, one wake-up
/// event per executor) or `publisher` (one per publisher and subscription, as before 6 December).
pub const ZSHM_LANE_WAKE: &str = "ZSHM_LANE_WAKE";
/// `XDG_RUNTIME_DIR`: the user's private runtime directory, where the lane lives by default.
pub const XDG_RUNTIME_DIR: &str = "XDG_RUNTIME_DIR";

/// Every variable in this list is captured by [`Environment::from_process`].
pub const ALL: &[&str] = &[
    ROUTER_CONFIG_URI,
    SESSION_CONFIG_URI,
    CONFIG_OVERRIDE,
    SHM_ALLOC_SIZE,
    SHM_MESSAGE_SIZE_THRESHOLD,
    ROUTER_CHECK_ATTEMPTS,
    ZENOH_RUNTIME,
    ROS_DOMAIN_ID,
    ZSHM_LANE,
    ZSHM_LANE_ROOT,
    ZSHM_LANE_WAKE,
    XDG_RUNTIME_DIR,
];

/// A snapshot of the environment variables that influence a zshm session.
///
/// ```
/// let env = zshm::config::Environment::empty().with("ROS_DOMAIN_ID", "3");
/// assert_eq!(env.get("ROS_DOMAIN_ID"), Some("3"));
/// assert_eq!(env.get("ZENOH_CONFIG_OVERRIDE"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: BTreeMap<String, String>,
}

impl Environment {
    /// An environment with no variable set.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Captures the variables listed in [`ALL`] from the current process.
    ///
    /// A variable whose value is not valid UTF-8 is kept with its invalid bytes replaced, so the
    /// parse that follows fails with a message instead of the variable being silently ignored.
    pub fn from_process() -> Self {
        let mut vars = BTreeMap::new();
        for name in ALL {
            if let Some(value) = std::env::var_os(name) {
                vars.insert((*name).to_owned(), value.to_string_lossy().into_owned());
            }
        }
        Self { vars }
    }

    /// Returns a copy with `name` set to `value`.
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.vars.insert(name.to_owned(), value.to_owned());
        self
    }

    /// Returns a copy without `name`.
    pub fn without(mut self, name: &str) -> Self {
        self.vars.remove(name);
        self
    }

    /// The value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}
