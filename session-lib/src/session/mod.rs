//! [`Session`]: a zenoh session opened from an rmw_zenoh-compatible config, with its SHM pool or
//! a reported reason why there is none.
//!
//! Opening follows this sequence, so that shared memory problems degrade to TCP instead of
//! failing or panicking inside zenoh 1.10.2:
//!
//! 1. resolve the config ([`crate::config`]) and refuse a `ZENOH_RUNTIME` zenoh would panic on;
//! 2. check /dev/shm and the locked-memory limit ([`crate::shm::preflight`]); on failure, turn
//!    SHM off (and `mode` to `lazy`, which zenoh needs to not panic) before opening;
//! 3. open; if that fails with SHM on, reopen once with SHM off;
//! 4. for nodes, check for a router `ZENOH_ROUTER_CHECK_ATTEMPTS` times, as rmw_zenoh does.
//!
//! The SHM pool is created by the first loan that needs it, sized from that message
//! ([`crate::shm::ShmPool`]), and the
//! same-host lane's iceoryx2 node by the first ROS endpoint ([`Session::lane_status`]).
//! Each fallback is logged once at WARN with its remedy and kept in [`Session::shm_status`] or
//! [`Session::lane_status`].

pub(crate) mod admin;
mod lane;
pub mod links;
pub mod report;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use self::lane::LaneSlot;
use self::links::LinkWatch;
pub use self::links::{HandshakeTrouble, LinkShmProblem};
use self::report::{Histograms, ReportSource};
use crate::config::{self, ConfigError, ConfigRequest, ConfigSource, Environment, Role};
use crate::lane::{LaneContext, LaneStatus, LaneUnavailable};
use crate::shm::{self, ShmPool, ShmStatus, ShmUnavailable};
use crate::stats::SessionStats;
use crate::stats::histogram::LatencyHistogram;

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The config, an override or an environment variable is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// zenoh refused to open, even without shared memory (e.g. the listen port is taken).
    #[error("zenoh could not open the session")]
    Zenoh {
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
}

impl OpenError {
    /// True when the caller's input is at fault (config, override, environment variable).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, OpenError::Config(_))
    }
}

/// Why closing a session failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CloseError {
    /// zenoh could not close the session cleanly (its links or tasks did not stop).
    #[error("zenoh could not close the session")]
    Zenoh {
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
}

/// Builds a [`Session`]; see [`Session::builder`].
#[derive(Debug, Clone)]
pub struct SessionBuilder {
    request: ConfigRequest,
    env: Environment,
    dev_shm: PathBuf,
    no_lane: bool,
}

impl SessionBuilder {
    /// Uses this config file instead of the environment variable or the built-in default.
    pub fn config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.request.file = Some(path.into());
        self
    }

    /// Replaces `listen/endpoints`.
    pub fn listen(mut self, endpoints: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.request.listen = endpoints.into_iter().map(Into::into).collect();
        self
    }

    /// Replaces `connect/endpoints`.
    pub fn connect(mut self, endpoints: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.request.connect = endpoints.into_iter().map(Into::into).collect();
        self
    }

    /// Turns shared memory off whatever the config says.
    pub fn no_shm(mut self, no_shm: bool) -> Self {
        self.request.no_shm = no_shm;
        self
    }

    /// Turns the same-host lane off (zshm nodes then talk through zenoh, as with `ZSHM_LANE=off`).
    pub fn no_lane(mut self, no_lane: bool) -> Self {
        self.no_lane = no_lane;
        self
    }

    /// Reads the `ZENOH_*` and `ZSHM_*` variables from `env` instead of the process environment.
    pub fn environment(mut self, env: Environment) -> Self {
        self.env = env;
        self
    }

    /// Resolves the config without opening anything: what `open` would use.
    pub fn resolve(&self) -> Result<config::ResolvedConfig, ConfigError> {
        config::resolve(&self.request, &self.env)
    }

    /// Opens the session (see the module docs for the sequence).
    pub async fn open(self) -> Result<Session, OpenError> {
        let resolved = self.resolve()?;
        if let Some(value) = self.env.get(config::env::ZENOH_RUNTIME) {
            config::runtime_env::validate(value).map_err(ConfigError::from)?;
        }
        let router_checks = router_check_attempts(&self.env)?;
        let ros_domain_id = ros_domain_id(&self.env)?;
        let settings = resolved.shm.clone();
        let lane_settings = crate::lane::domain::settings(&self.env, &settings, self.no_lane)?;

        let mut verdict = shm::plan(&settings, &self.dev_shm);
        let mut zenoh_config = resolved.zenoh.clone();
        if verdict.is_err() {
            disable_shm(&mut zenoh_config);
        }
        // zshm allocates every SHM message itself; zenoh's own pool would pin its full size in
        // every process (see crate::shm). The key exists in zenoh's schema.
        let _ = zenoh_config.insert_json5("transport/shared_memory/transport_optimization/enabled", "false");
        let session = match zenoh::open(zenoh_config.clone()).await {
            Ok(session) => session,
            Err(err) if verdict.is_ok() && mentions_shm(&err.to_string()) => {
                verdict = Err(ShmUnavailable::OpenFailed {
                    error: crate::text::tidy(&err.to_string()),
                });
                disable_shm(&mut zenoh_config);
                zenoh::open(zenoh_config)
                    .await
                    .map_err(|source| OpenError::Zenoh { source })?
            }
            Err(source) => return Err(OpenError::Zenoh { source }),
        };

        let stats = Arc::new(SessionStats::default());
        // No pool yet: the first loan at or above the threshold creates one sized from that
        // message (issue 12), so a node that never publishes a large message pins nothing.
        let (shm_status, pool) = match verdict.map(|()| ShmPool::new(settings.pool_size, stats.clone())) {
            Ok(pool) => (
                ShmStatus::Active {
                    pool_size: settings.pool_size,
                    threshold: settings.message_size_threshold,
                },
                Some(Arc::new(pool)),
            ),
            Err(reason) => {
                log_unavailable(&reason);
                (ShmStatus::Unavailable(reason), None)
            }
        };
        let zid = session.zid().to_string();
        let lane = Arc::new(LaneSlot::new(
            lane_settings,
            self.dev_shm.clone(),
            &zid,
            stats.clone(),
        ));

        // Links to this host that silently carry TCP are only worth watching when this process
        // could do SHM itself.
        let (links, link_task) = if shm_status.is_active() {
            let (watch, task) = links::watch(&session, stats.clone(), self.dev_shm.clone())
                .await
                .map_err(|source| OpenError::Zenoh { source })?;
            (Some(watch), Some(task))
        } else {
            (None, None)
        };
        let session = Session {
            shared: Arc::new(Shared {
                zenoh: session,
                links,
                link_task,
                role: resolved.role,
                source: resolved.source,
                shm_status,
                pool,
                lane,
                threshold: settings.message_size_threshold,
                stats,
                ros_domain_id,
                next_entity_id: AtomicU32::new(0),
                histograms: Arc::new(Histograms::default()),
                routes: Arc::new(report::RouteSlot::default()),
            }),
        };
        session
            .declare_report()
            .await
            .map_err(|source| OpenError::Zenoh { source })?;
        if resolved.role == Role::Session {
            session.check_for_router(router_checks).await;
        }
        Ok(session)
    }
}

/// Whether an open error comes from zenoh's SHM setup (segment creation, the SHM init).
fn mentions_shm(error: &str) -> bool {
    let error = error.to_ascii_lowercase();
    ["shm", "shared memory", "segment"]
        .iter()
        .any(|word| error.contains(word))
}

fn disable_shm(config: &mut zenoh::Config) {
    // Both keys exist in zenoh's schema, so these inserts cannot fail.
    let _ = config.insert_json5("transport/shared_memory/enabled", "false");
    let _ = config.insert_json5("transport/shared_memory/mode", "\"lazy\"");
}

fn log_unavailable(reason: &ShmUnavailable) {
    if reason.is_deliberate() {
        tracing::info!(
            cause = reason.label(),
            "shared memory off ({reason}); using the network"
        );
    } else {
        tracing::warn!(
            cause = reason.label(),
            "shared memory unavailable, falling back to TCP: {reason}; fix: {}",
            reason.remedy()
        );
    }
}

/// How many router checks to make: `None` skips them, `Some(u64::MAX)` means forever.
fn router_check_attempts(env: &Environment) -> Result<Option<u64>, ConfigError> {
    let Some(raw) = env.get(config::env::ROUTER_CHECK_ATTEMPTS) else {
        return Ok(Some(1));
    };
    let value: i64 = raw.trim().parse().map_err(|_| ConfigError::EnvVar {
        name: config::env::ROUTER_CHECK_ATTEMPTS,
        value: raw.to_owned(),
        expected: "an integer (0 waits forever, a negative value skips the check)",
    })?;
    Ok(match value {
        v if v < 0 => None,
        0 => Some(u64::MAX),
        v => Some(v as u64),
    })
}

/// `ROS_DOMAIN_ID`, 0 when unset or empty (as rcl does).
fn ros_domain_id(env: &Environment) -> Result<u32, ConfigError> {
    match env.get(config::env::ROS_DOMAIN_ID).map(str::trim) {
        None | Some("") => Ok(0),
        Some(raw) => raw.parse().map_err(|_| ConfigError::EnvVar {
            name: config::env::ROS_DOMAIN_ID,
            value: raw.to_owned(),
            expected: "a non-negative integer domain id",
        }),
    }
}

/// An open zenoh session with zshm's SHM handling. Cloning is cheap and shares the session.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let session = zshm::Session::builder().connect(["tcp/127.0.0.1:7447"]).open().await?;
/// println!("shared memory: {}", session.shm_status());
/// let publisher = session.declare_publisher("demo/cloud", Default::default()).await?;
/// let mut loan = publisher.loan(4 << 20).await;
/// loan.fill(7);
/// publisher.publish_loan(loan).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Session {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    zenoh: zenoh::Session,
    links: Option<Arc<LinkWatch>>,
    /// The link watcher holds a handle of the zenoh session: stopped with the last clone.
    link_task: Option<tokio::task::AbortHandle>,
    role: Role,
    source: ConfigSource,
    shm_status: ShmStatus,
    pool: Option<Arc<ShmPool>>,
    lane: Arc<LaneSlot>,
    threshold: usize,
    stats: Arc<SessionStats>,
    ros_domain_id: u32,
    next_entity_id: AtomicU32,
    histograms: Arc<Histograms>,
    routes: Arc<report::RouteSlot>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(task) = &self.link_task {
            task.abort();
        }
    }
}

impl Session {
    /// A builder for a node session (peer mode, `ZENOH_SESSION_CONFIG_URI`).
    pub fn builder() -> SessionBuilder {
        Self::builder_for(Role::Session)
    }

    /// A builder for the given role; [`Role::Router`] reads `ZENOH_ROUTER_CONFIG_URI`.
    pub fn builder_for(role: Role) -> SessionBuilder {
        SessionBuilder {
            request: ConfigRequest::new(role),
            env: Environment::from_process(),
            dev_shm: PathBuf::from(shm::preflight::DEV_SHM),
            no_lane: false,
        }
    }

    /// The zenoh id, formatted as rmw_zenoh and `rmw_zenohd` print it.
    pub fn zid(&self) -> String {
        self.shared.zenoh.zid().to_string()
    }

    /// Router or node.
    pub fn role(&self) -> Role {
        self.shared.role
    }

    /// Where the config came from.
    pub fn config_source(&self) -> &ConfigSource {
        &self.shared.source
    }

    /// Whether this session publishes through shared memory, and if not, why.
    pub fn shm_status(&self) -> &ShmStatus {
        &self.shared.shm_status
    }

    /// Whether zshm nodes on this host talk through the same-host lane, and if not, why.
    pub fn lane_status(&self) -> LaneStatus {
        self.shared.lane.status()
    }

    /// The session's lane node, created on the first call (it blocks for a few milliseconds:
    /// call it from a blocking context). `Err` says why the lane is off; that is logged once.
    pub fn lane(&self) -> Result<Arc<LaneContext>, LaneUnavailable> {
        self.shared.lane.context()
    }

    /// The latest link to a process of this host found carrying copies over TCP although this
    /// process has shared memory, with its cause; `None` when every such link uses SHM.
    pub fn shm_link_problem(&self) -> Option<LinkShmProblem> {
        self.shared.links.as_ref().and_then(|watch| watch.last())
    }

    /// The problem of the link to the process `zid` (a zenoh id), if that link was found
    /// carrying copies over TCP although this process has shared memory.
    pub fn shm_link_problem_of(&self, zid: &str) -> Option<LinkShmProblem> {
        self.shared.links.as_ref().and_then(|watch| watch.of(zid))
    }

    /// Waits until the links opened so far have been examined (each link's cause is found a
    /// couple of seconds after it opens, see [`shm_link_problem_of`](Self::shm_link_problem_of)),
    /// or `within` passed: before a summary that names causes.
    pub async fn settle_link_problems(&self, within: std::time::Duration) {
        if let Some(watch) = &self.shared.links {
            watch.settled(within).await;
        }
    }

    /// The SHM pool, when shared memory is active.
    pub fn shm_pool(&self) -> Option<&Arc<ShmPool>> {
        self.shared.pool.as_ref()
    }

    /// Payloads of at least this many bytes go through the pool.
    pub fn shm_threshold(&self) -> usize {
        self.shared.threshold
    }

    /// `ROS_DOMAIN_ID` at open (0 when unset).
    pub fn ros_domain_id(&self) -> u32 {
        self.shared.ros_domain_id
    }

    /// The next ROS entity id of this session: nodes, publishers and subscriptions all draw from
    /// one counter starting at 0, as in rmw_zenoh (`get_next_entity_id`).
    pub(crate) fn next_entity_id(&self) -> u32 {
        self.shared.next_entity_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Live counters of this session.
    pub fn stats(&self) -> &Arc<SessionStats> {
        &self.shared.stats
    }

    /// The underlying zenoh session, for what zshm does not wrap.
    pub fn zenoh(&self) -> &zenoh::Session {
        &self.shared.zenoh
    }

    /// The locators this session listens on, with real ports when the config asked for port 0.
    /// When zenoh lists none, the configured listen endpoints: zenoh expands a wildcard endpoint
    /// (rmw_zenoh's router listens on `tcp/[::]:7447`) into the host's addresses but leaves the
    /// loopback ones out, so on a host with loopback only it lists nothing.
    pub async fn locators(&self) -> Vec<String> {
        let listed: Vec<String> = self
            .shared
            .zenoh
            .info()
            .locators()
            .await
            .into_iter()
            .map(|l| l.to_string())
            .collect();
        if !listed.is_empty() {
            return listed;
        }
        let config = self.shared.zenoh.config();
        let mode = config.get("mode").unwrap_or_default();
        configured_endpoints(
            &config.get("listen/endpoints").unwrap_or_default(),
            mode.trim_matches('"'),
        )
    }

    /// Closes the session (for every clone), releasing its SHM segments for reuse.
    pub async fn close(&self) -> Result<(), CloseError> {
        self.shared
            .zenoh
            .close()
            .await
            .map_err(|source| CloseError::Zenoh { source })
    }

    /// The latency histogram of `topic`, exported by the metrics exporter (created on first use).
    pub fn latency_histogram(&self, topic: &str) -> Arc<LatencyHistogram> {
        self.shared.histograms.for_topic(topic)
    }

    /// Makes `source` the session's routes in its report, so the exporter shows what a
    /// forwarding component (`zshm bridge`) carries. The session holds it weakly: dropping the
    /// last `Arc` removes the routes from the report.
    pub fn report_routes(&self, source: &Arc<report::RouteSource>) {
        self.shared.routes.set(source);
    }

    async fn declare_report(&self) -> Result<(), zenoh::Error> {
        let shared = &self.shared;
        let source = ReportSource {
            zid: self.zid(),
            role: match shared.role {
                Role::Router => "router".into(),
                Role::Session => "peer".into(),
            },
            shm_active: shared.shm_status.is_active(),
            shm_reason: shared
                .shm_status
                .unavailable_reason()
                .map(|r| r.label().to_owned()),
            pool: shared.pool.as_ref().map(Arc::downgrade),
            lane: Arc::downgrade(&shared.lane),
            stats: Arc::downgrade(&shared.stats),
            histograms: Arc::downgrade(&shared.histograms),
            routes: Arc::downgrade(&shared.routes),
        };
        report::declare(&shared.zenoh, source).await
    }

    async fn check_for_router(&self, attempts: Option<u64>) {
        let Some(attempts) = attempts else { return };
        for attempt in 1..=attempts {
            if self.shared.zenoh.info().routers_zid().await.next().is_some() {
                return;
            }
            if attempt < attempts {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
        tracing::warn!(
            attempts,
            "no zenoh router found; peers will not discover each other until a router is started (zshm router)"
        );
    }
}

/// The endpoints of a `listen/endpoints` value as zenoh returns it in JSON: a list, or a list per
/// mode (`{"router": […], "peer": […]}`), of which `mode`'s.
fn configured_endpoints(json: &str, mode: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(json) else {
        return Vec::new();
    };
    let list = match &value {
        serde_json::Value::Object(per_mode) => per_mode.get(mode),
        list => Some(list),
    };
    list.and_then(serde_json::Value::as_array)
        .map(|l| l.iter().filter_map(|e| e.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn configured_endpoints_are_read_as_a_list_or_per_mode() {
        assert_eq!(
            super::configured_endpoints(r#"["tcp/[::]:7447"]"#, "router"),
            ["tcp/[::]:7447"]
        );
        let per_mode = r#"{"router":["tcp/[::]:7447"],"peer":["tcp/[::]:0"]}"#;
        assert_eq!(super::configured_endpoints(per_mode, "peer"), ["tcp/[::]:0"]);
        assert!(super::configured_endpoints(per_mode, "client").is_empty());
        assert!(super::configured_endpoints("", "router").is_empty());
    }

    use super::*;

    /// The retry without SHM depends on the words of zenoh's error: pin them to what zenoh
    /// really says when it cannot create a segment (here one far larger than any machine maps).
    #[test]
    fn zenoh_segment_errors_are_recognised_as_shm_errors() {
        use zenoh::Wait;
        let Err(err) = zenoh::shm::ShmProviderBuilder::default_backend(1 << 50).wait() else {
            panic!("no machine maps a 1 PiB segment");
        };
        let text = err.to_string();
        assert!(mentions_shm(&text), "zenoh's words changed: {text}");
        crate::shm::cleanup_orphaned_segments();
    }

    #[test]
    fn other_open_errors_are_not_shm_errors() {
        assert!(!mentions_shm(
            "Can not create a new TCP listener bound to tcp/127.0.0.1:7447: Address in use"
        ));
        assert!(!mentions_shm("Unable to connect to any of [tcp/127.0.0.1:7447]"));
    }
}
