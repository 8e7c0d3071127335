//! The running processes' side of `zshm doctor`: which zenoh each process behind the router
//! runs, read from its admin space, against this zshm's ([`zshm::internal::shm::compat`]). A process of
//! the other zenoh line cannot share memory with zshm's nodes, whatever both configs say.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{Check, Severity};
use zshm::config::ResolvedConfig;
use zshm::internal::session::version_of;
use zshm::internal::shm::compat::{VersionMismatch, ZenohVersion};
use zshm::ros::graph::{self, Graph};
use zshm::ros::liveliness;

const NAME: &str = "zenoh versions";

/// How long the processes get to answer.
const TIMEOUT: Duration = Duration::from_secs(3);

/// One process that answered: its zenoh id, role and zenoh, and the ROS nodes it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Process {
    pub zid: String,
    pub role: String,
    pub zenoh: Option<ZenohVersion>,
    pub nodes: Vec<String>,
}

/// Asks every process reachable through the router named in `session`'s config (`endpoint`,
/// already found reachable) for its zenoh version, and judges them.
pub(super) async fn zenoh_versions(session: &ResolvedConfig, endpoint: &str) -> Check {
    match processes(session, endpoint).await {
        Ok(processes) => verdict(ZenohVersion::ours(), &processes),
        Err(err) => Check::new(
            NAME,
            Severity::Warn,
            format!(
                "could not ask the processes behind {endpoint}: {}",
                zshm::internal::text::tidy(&err.to_string())
            ),
            None,
        ),
    }
}

async fn processes(session: &ResolvedConfig, endpoint: &str) -> Result<Vec<Process>, zenoh::Error> {
    // A client of the router only: no listener, no scouting, no shared memory, nothing announced.
    let mut config = session.zenoh.clone();
    for (key, value) in [
        ("mode", "\"client\"".to_owned()),
        ("connect/endpoints", serde_json::json!([endpoint]).to_string()),
        ("listen/endpoints", "[]".to_owned()),
        ("scouting/multicast/enabled", "false".to_owned()),
        ("transport/shared_memory/enabled", "false".to_owned()),
        ("adminspace/enabled", "false".to_owned()),
    ] {
        config.insert_json5(key, &value)?;
    }
    let zenoh = zenoh::open(config).await?;
    let mut found: BTreeMap<String, Process> = BTreeMap::new();
    for sample in crate::telemetry::query_all(&zenoh, "@/*/*", TIMEOUT).await {
        let mut chunks = sample.key_expr().as_str().split('/').skip(1);
        let (Some(zid), Some(role)) = (chunks.next(), chunks.next()) else {
            continue;
        };
        found.insert(
            zid.to_owned(),
            Process {
                zid: zid.to_owned(),
                role: role.to_owned(),
                zenoh: version_of(&sample.payload().to_bytes()),
                nodes: Vec::new(),
            },
        );
    }
    if let Ok(tokens) = graph::tokens_under(&zenoh, &format!("{}/**", liveliness::PREFIX), TIMEOUT).await {
        for node in Graph::from_tokens(tokens.iter().map(String::as_str)).nodes {
            if let Some(process) = found.get_mut(&node.zid) {
                process.nodes.push(node.fully_qualified_name());
            }
        }
    }
    // Closing a client cannot fail in a way the check cares about.
    let _ = zenoh.close().await;
    Ok(found.into_values().collect())
}

/// The check's verdict on what the processes reported.
pub(super) fn verdict(ours: ZenohVersion, processes: &[Process]) -> Check {
    if processes.is_empty() {
        return Check::new(
            NAME,
            Severity::Warn,
            "no process answered (is the admin space off?)",
            None,
        );
    }
    let describe = |p: &Process| {
        let zenoh = p.zenoh.map_or("zenoh ?".to_owned(), |v| format!("zenoh {v}"));
        match p.nodes.as_slice() {
            [] => format!("{} {} ({zenoh})", p.role, short(&p.zid)),
            nodes => format!("{} ({zenoh})", nodes.join(", ")),
        }
    };
    let mismatched: Vec<&Process> = processes
        .iter()
        .filter(|p| p.zenoh.is_some_and(|theirs| !ours.shares_memory_with(theirs)))
        .collect();
    if let Some(first) = mismatched.first() {
        let mismatch = VersionMismatch {
            ours,
            theirs: first.zenoh.expect("filtered on a version"),
        };
        let names: Vec<String> = mismatched.iter().map(|p| describe(p)).collect();
        return Check::new(
            NAME,
            Severity::Fail,
            format!(
                "{} of {} processes cannot share memory with this zshm (zenoh {ours}): {}",
                mismatched.len(),
                processes.len(),
                names.join("; ")
            ),
            Some(mismatch.remedy()),
        );
    }
    let mut versions: BTreeMap<String, usize> = BTreeMap::new();
    for p in processes {
        *versions
            .entry(p.zenoh.map_or("?".to_owned(), |v| v.to_string()))
            .or_default() += 1;
    }
    let counted: Vec<String> = versions.iter().map(|(v, n)| format!("{n} on {v}")).collect();
    Check::new(
        NAME,
        Severity::Ok,
        format!(
            "{} processes, all able to share memory with this zshm (zenoh {ours}): {}",
            processes.len(),
            counted.join(", ")
        ),
        None,
    )
}

/// The first 8 characters of a zenoh id, as zenoh's logs show them.
fn short(zid: &str) -> &str {
    zid.get(..8).unwrap_or(zid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(zid: &str, version: &str, nodes: &[&str]) -> Process {
        Process {
            zid: zid.to_owned(),
            role: "peer".to_owned(),
            zenoh: ZenohVersion::parse(version),
            nodes: nodes.iter().map(|n| (*n).to_owned()).collect(),
        }
    }

    #[test]
    fn processes_of_one_line_are_fine_and_counted_by_version() {
        let ours = ZenohVersion::parse("1.9.0").unwrap();
        let check = verdict(
            ours,
            &[
                process("aa", "v1.8.0-2687c513 built with rustc", &["/camera"]),
                process("bb", "v1.9.0", &[]),
                process("cc", "v1.8.0", &[]),
            ],
        );
        assert_eq!(check.severity, Severity::Ok, "{check:?}");
        assert!(
            check.summary.contains("2 on 1.8.0, 1 on 1.9.0"),
            "{}",
            check.summary
        );
    }

    #[test]
    fn a_process_of_the_other_line_fails_by_name_with_the_fix() {
        let ours = ZenohVersion::parse("1.9.0").unwrap();
        let check = verdict(
            ours,
            &[
                process("0123456789abcdef", "v1.10.1", &["/rolling_camera"]),
                process("bb", "v1.9.0", &[]),
            ],
        );
        assert_eq!(check.severity, Severity::Fail);
        assert!(
            check.summary.contains("1 of 2 processes")
                && check.summary.contains("/rolling_camera (zenoh 1.10.1)"),
            "{}",
            check.summary
        );
        assert!(check.fix.unwrap().contains("zenoh-line.sh 1.10"));
    }

    #[test]
    fn nobody_answering_is_a_warning() {
        assert_eq!(verdict(ZenohVersion::ours(), &[]).severity, Severity::Warn);
    }
}
