//! The machine's side of `zshm doctor`: /dev/shm, locked memory, stale segments, the router,
//! the ROS domain and the clock.

use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Check, Severity};
use zshm::config::{self, Environment, ResolvedConfig};
use zshm::internal::shm::preflight;
use zshm::internal::text::human_bytes;

pub(super) fn dev_shm(dir: &Path, pool: usize, wanted: bool) -> Check {
    const NAME: &str = "/dev/shm";
    let needed = preflight::bytes_needed(pool);
    let severity = if wanted { Severity::Fail } else { Severity::Warn };
    if let Err(reason) = preflight::check_dev_shm(dir, needed) {
        return Check::new(NAME, severity, reason.to_string(), Some(reason.remedy().into()));
    }
    let usage = zshm::internal::shm::usage::dev_shm(dir).unwrap_or_default();
    let summary = format!(
        "{} ({} free); the pool needs {}",
        human_bytes(usage.size_bytes),
        human_bytes(usage.free_bytes),
        human_bytes(needed)
    );
    Check::new(NAME, Severity::Ok, summary, None)
}

pub(super) fn memlock(pool: usize, wanted: bool) -> Check {
    const NAME: &str = "locked memory";
    let needed = preflight::bytes_needed(pool);
    let limit = preflight::memlock_limit();
    let capable = preflight::has_cap_ipc_lock();
    match preflight::memlock_verdict(limit, capable, needed) {
        Ok(()) => {
            let why = match (limit, capable) {
                (None, _) => "unlimited".to_owned(),
                (Some(_), true) => "CAP_IPC_LOCK (no limit applies)".to_owned(),
                (Some(limit), false) => format!("limit {}", human_bytes(limit)),
            };
            Check::new(
                NAME,
                Severity::Ok,
                format!("{why}; zenoh must lock {}", human_bytes(needed)),
                None,
            )
        }
        Err(reason) => Check::new(
            NAME,
            if wanted { Severity::Fail } else { Severity::Warn },
            reason.to_string(),
            Some(reason.remedy().into()),
        ),
    }
}

pub(super) fn stale_segments(dir: &Path) -> Check {
    const NAME: &str = "stale segments";
    let (mut count, mut bytes) = (0u64, 0u64);
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if !entry.file_name().to_string_lossy().ends_with(".zenoh") {
            continue;
        }
        // zenoh holds a shared flock on every segment in use: an exclusive lock means stale.
        let Ok(file) = File::open(entry.path()) else {
            continue;
        };
        if nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock).is_ok() {
            count += 1;
            bytes += entry
                .metadata()
                .map(|m| std::os::unix::fs::MetadataExt::blocks(&m) * 512)
                .unwrap_or(0);
        }
    }
    if count == 0 {
        Check::new(NAME, Severity::Ok, "no orphaned *.zenoh segment", None)
    } else {
        Check::new(
            NAME,
            Severity::Warn,
            format!(
                "{count} orphaned *.zenoh segments hold {} (left by crashed or killed processes)",
                human_bytes(bytes)
            ),
            Some("run `zshm shm-clean` (zshm router also removes them at start)".into()),
        )
    }
}

/// Segments of other users in /dev/shm: zenoh makes them private to their owner, so processes of
/// different users on this host exchange copies over TCP.
pub(super) fn other_users(dir: &Path, wanted: bool) -> Check {
    const NAME: &str = "users sharing memory";
    let me = nix::unistd::geteuid().as_raw();
    let others = zshm::internal::shm::usage::foreign_segment_owners(dir);
    if others.is_empty() || !wanted {
        return Check::new(
            NAME,
            Severity::Ok,
            format!("every zenoh segment in /dev/shm belongs to this user (uid {me})"),
            None,
        );
    }
    Check::new(
        NAME,
        Severity::Warn,
        format!(
            "segments of uid {others:?} are in /dev/shm: zenoh makes them private to their owner (mode 0600), so \
             their processes and this user's (uid {me}) exchange copies over TCP"
        ),
        Some(zshm::stats::LinkShmCause::OtherUser.remedy().into()),
    )
}

/// The router check, and the endpoint where the router answered.
pub(super) async fn router_reachable(session: &ResolvedConfig) -> (Check, Option<String>) {
    const NAME: &str = "router";
    let endpoints = connect_endpoints(&session.zenoh);
    if endpoints.is_empty() {
        let check = Check::new(
            NAME,
            Severity::Warn,
            "the session config connects to no router",
            Some("set connect/endpoints, e.g. [\"tcp/localhost:7447\"]".into()),
        );
        return (check, None);
    }
    for endpoint in &endpoints {
        let Some(address) = endpoint
            .strip_prefix("tcp/")
            .map(|a| a.split(['#', '?']).next().unwrap_or(a))
        else {
            continue;
        };
        let connect = tokio::net::TcpStream::connect(address.to_owned());
        if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(1), connect).await {
            let check = Check::new(NAME, Severity::Ok, format!("reachable at {endpoint}"), None);
            return (check, Some(endpoint.clone()));
        }
    }
    let check = Check::new(
        NAME,
        Severity::Warn,
        format!("nothing answers at {}", endpoints.join(", ")),
        Some("start it: `just router` or `zshm router` (or rmw_zenohd)".into()),
    );
    (check, None)
}

/// `connect/endpoints` as a flat list, whether plain or per mode (`{peer: [...], ...}`).
pub(super) fn connect_endpoints(config: &zenoh::Config) -> Vec<String> {
    let Ok(json) = config.get_json("connect/endpoints") else {
        return Vec::new();
    };
    match serde_json::from_str::<serde_json::Value>(&json) {
        Ok(serde_json::Value::Array(list)) => list
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Ok(serde_json::Value::Object(modes)) => modes
            .get("peer")
            .and_then(|v| v.as_array())
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

pub(super) fn domain_id(env: &Environment) -> Check {
    const NAME: &str = "ROS_DOMAIN_ID";
    match env.get(config::env::ROS_DOMAIN_ID).map(str::trim) {
        None | Some("") => Check::new(NAME, Severity::Ok, "unset: domain 0, as rmw_zenoh", None),
        Some(raw) => match raw.parse::<u32>() {
            Ok(id) => Check::new(
                NAME,
                Severity::Ok,
                format!("{id}; every node and probe must use the same"),
                None,
            ),
            Err(_) => Check::new(
                NAME,
                Severity::Fail,
                format!("`{raw}` is not a number"),
                Some("export ROS_DOMAIN_ID=0 (or unset it)".into()),
            ),
        },
    }
}

pub(super) fn clock() -> Check {
    const NAME: &str = "clock";
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    // 2020-01-01: a wall clock before it was never set (no RTC, no NTP).
    if since_epoch < Duration::from_secs(1_577_836_800) {
        return Check::new(
            NAME,
            Severity::Fail,
            "the wall clock is before 2020: never set",
            Some("synchronise it (NTP, chrony, timedatectl set-ntp true)".into()),
        );
    }
    let (wall, mono) = (SystemTime::now(), Instant::now());
    std::thread::sleep(Duration::from_millis(20));
    let wall_step = wall.elapsed().unwrap_or_default();
    let drift = wall_step.abs_diff(mono.elapsed());
    if drift > Duration::from_millis(5) {
        return Check::new(
            NAME,
            Severity::Warn,
            format!("the wall clock jumped {drift:?} during the check"),
            Some("latency windows that include a clock step are wrong; let NTP settle".into()),
        );
    }
    Check::new(
        NAME,
        Severity::Ok,
        "wall clock usable for latency; publishers must stamp with it (use_wall_time:=True)",
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::super::resolved;
    use super::*;

    #[test]
    fn endpoints_are_read_plain_or_per_mode() {
        let plain = resolved(config::Role::Session, true);
        assert_eq!(connect_endpoints(&plain.zenoh), ["tcp/localhost:7447"]);
        let mut per_mode = plain.zenoh.clone();
        per_mode
            .insert_json5(
                "connect/endpoints",
                r#"{ peer: ["tcp/10.0.0.1:7447"], router: [] }"#,
            )
            .unwrap();
        assert_eq!(connect_endpoints(&per_mode), ["tcp/10.0.0.1:7447"]);
    }

    #[test]
    fn bad_domain_ids_fail() {
        assert_eq!(domain_id(&Environment::empty()).severity, Severity::Ok);
        assert_eq!(
            domain_id(&Environment::empty().with("ROS_DOMAIN_ID", "7")).severity,
            Severity::Ok
        );
        assert_eq!(
            domain_id(&Environment::empty().with("ROS_DOMAIN_ID", "seven")).severity,
            Severity::Fail
        );
    }

    #[test]
    fn a_missing_dev_shm_fails_only_when_shm_is_wanted() {
        let missing = Path::new("/nonexistent/zshm-doctor");
        assert_eq!(dev_shm(missing, 1 << 20, true).severity, Severity::Fail);
        assert_eq!(dev_shm(missing, 1 << 20, false).severity, Severity::Warn);
    }

    #[test]
    fn stale_segments_are_found_by_their_missing_lock() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.zenoh"), vec![0u8; 4096]).unwrap();
        let held = File::open(dir.path().join("1.zenoh")).unwrap();
        std::fs::write(dir.path().join("2.zenoh"), vec![0u8; 4096]).unwrap();
        let _lock = nix::fcntl::Flock::lock(
            File::open(dir.path().join("2.zenoh")).unwrap(),
            nix::fcntl::FlockArg::LockSharedNonblock,
        )
        .unwrap();
        let check = stale_segments(dir.path());
        assert_eq!(check.severity, Severity::Warn);
        assert!(check.summary.starts_with("1 orphaned"), "{}", check.summary);
        drop(held);
    }
}
