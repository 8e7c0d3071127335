//! `zshm doctor`: checks that explain why shared memory would not work here, each with its fix.
//!
//! The checks mirror what breaks SHM in practice (docs/zenoh-shm.md, the
//! workshop's mistakes): configs that do not load or enable SHM on one side only, a missing,
//! read-only or small /dev/shm (Docker's default is 64 MB), a locked-memory limit below the pool
//! (zenoh mlocks every segment), stale segments, no router, a bad `ROS_DOMAIN_ID`, and a wall
//! clock that cannot timestamp latency (`machine.rs`); the zenoh of each running process behind
//! the router, which must share memory with this zshm's (`peers.rs`); for the same-host lane,
//! whether it is on and works for this user here (`lane.rs`); and the security posture of both configs:
//! authentication, the TLS files, a router open to the network, access control (`security.rs`).

mod lane;
mod machine;
mod peers;
mod security;

use std::path::PathBuf;

use zshm::config::{self, ConfigError, Environment, ResolvedConfig};
use zshm::internal::shm::preflight;

use self::machine::{clock, dev_shm, domain_id, memlock, other_users, router_reachable, stale_segments};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fine.
    Ok,
    /// Worth knowing; SHM still works.
    Warn,
    /// Must be fixed.
    Fail,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    /// What was checked, e.g. `/dev/shm`.
    pub name: &'static str,
    /// Verdict.
    pub severity: Severity,
    /// What was found.
    pub summary: String,
    /// What to do about it.
    pub fix: Option<String>,
}

impl Check {
    fn new(name: &'static str, severity: Severity, summary: impl Into<String>, fix: Option<String>) -> Self {
        Self {
            name,
            severity,
            summary: summary.into(),
            fix,
        }
    }
}

/// What the doctor examines.
#[derive(Debug)]
pub struct Patient {
    /// The router config, as `zshm router` would resolve it.
    pub router: Result<ResolvedConfig, ConfigError>,
    /// The nodes' config, as every node would resolve it.
    pub session: Result<ResolvedConfig, ConfigError>,
    /// The environment.
    pub env: Environment,
    /// The shared-memory directory.
    pub dev_shm: PathBuf,
}

/// Runs every check.
pub async fn examine(patient: &Patient) -> Vec<Check> {
    let mut checks = vec![
        config_check("router config", &patient.router),
        config_check("session config", &patient.session),
    ];
    let session = patient.session.as_ref().ok();
    let shm_wanted = match (&patient.router, session) {
        (Ok(router), Some(session)) => {
            checks.push(shm_sides(router, session));
            router.shm.enabled || session.shm.enabled
        }
        _ => true,
    };
    let pool = session.map_or(67_174_400, |s| s.shm.pool_size);
    checks.push(dev_shm(&patient.dev_shm, pool, shm_wanted));
    checks.push(memlock(pool, shm_wanted));
    checks.push(stale_segments(&patient.dev_shm));
    checks.push(other_users(&patient.dev_shm, shm_wanted));
    if let Some(session) = session {
        checks.push(lane::lane(&patient.env, session, &patient.dev_shm));
    }
    if let Some(session) = session {
        let (router, endpoint) = router_reachable(session).await;
        checks.push(router);
        if let Some(endpoint) = endpoint {
            checks.push(peers::zenoh_versions(session, &endpoint).await);
        }
    }
    checks.push(domain_id(&patient.env));
    checks.push(clock());
    for config in [&patient.router, &patient.session].into_iter().flatten() {
        checks.extend(security::checks(config));
    }
    checks
}

/// Resolves both configs from the usual lookup order (flags, then environment, then built-in).
pub fn patient(router_file: Option<PathBuf>, session_file: Option<PathBuf>, env: Environment) -> Patient {
    let mut router = config::ConfigRequest::new(config::Role::Router);
    router.file = router_file;
    let mut session = config::ConfigRequest::new(config::Role::Session);
    session.file = session_file;
    Patient {
        router: config::resolve(&router, &env),
        session: config::resolve(&session, &env),
        env,
        dev_shm: PathBuf::from(preflight::DEV_SHM),
    }
}

fn config_check(name: &'static str, config: &Result<ResolvedConfig, ConfigError>) -> Check {
    match config {
        Ok(resolved) => Check::new(name, Severity::Ok, format!("{} loads", resolved.source), None),
        Err(err) => Check::new(
            name,
            Severity::Fail,
            zshm::internal::text::tidy(&err.to_string()),
            Some("correct the file or the variable named above".into()),
        ),
    }
}

fn shm_sides(router: &ResolvedConfig, session: &ResolvedConfig) -> Check {
    const NAME: &str = "shared memory in configs";
    let fix = |off: &ResolvedConfig| {
        Some(format!(
            "set transport/shared_memory/enabled: true in {} too, then restart the router and the nodes",
            off.source
        ))
    };
    match (router.shm.enabled, session.shm.enabled) {
        (true, true) => Check::new(
            NAME,
            Severity::Ok,
            "enabled in both the router and the session config",
            None,
        ),
        (false, false) => Check::new(
            NAME,
            Severity::Warn,
            "disabled in both configs: everything goes over TCP (the baseline)",
            Some("set transport/shared_memory/enabled: true in both configs".into()),
        ),
        (true, false) => Check::new(
            NAME,
            Severity::Fail,
            format!(
                "enabled in the router config only; {} disables it, so nodes use TCP",
                session.source
            ),
            fix(session),
        ),
        (false, true) => Check::new(
            NAME,
            Severity::Fail,
            format!(
                "enabled in the session config only; {} disables it, so data routed through the router goes over TCP",
                router.source
            ),
            fix(router),
        ),
    }
}

/// A built-in config with shared memory on or off, for the checks' tests.
#[cfg(test)]
fn resolved(role: config::Role, enabled: bool) -> ResolvedConfig {
    let mut request = config::ConfigRequest::new(role);
    request.no_shm = !enabled;
    config::resolve(&request, &Environment::empty()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sided_shm_is_a_failure_and_both_off_a_warning() {
        let (r_on, s_on) = (
            resolved(config::Role::Router, true),
            resolved(config::Role::Session, true),
        );
        let (r_off, s_off) = (
            resolved(config::Role::Router, false),
            resolved(config::Role::Session, false),
        );
        assert_eq!(shm_sides(&r_on, &s_on).severity, Severity::Ok);
        assert_eq!(shm_sides(&r_off, &s_off).severity, Severity::Warn);
        let one_sided = shm_sides(&r_on, &s_off);
        assert_eq!(one_sided.severity, Severity::Fail);
        assert!(
            one_sided.summary.contains("router config only"),
            "{}",
            one_sided.summary
        );
        assert_eq!(shm_sides(&r_off, &s_on).severity, Severity::Fail);
    }
}
