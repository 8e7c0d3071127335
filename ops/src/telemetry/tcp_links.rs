//! What each zenoh link between two processes of this host carried over TCP, by the kernel's
//! count, and whether it negotiated shared memory: the traffic of processes that keep no
//! statistics of their own (rmw_zenoh_cpp's zenoh-c is built without them), measured from
//! outside.
//!
//! Every zenoh process lists its sessions in its admin space (`@/<zid>/<whatami>`: the other
//! process's zid, `shm` when the link negotiated shared memory, and each link's `src` and `dst`
//! addresses); the kernel counts the bytes of the TCP connection with those addresses
//! ([`super::host::tcp_connections`]). rmw_zenoh's nodes talk to each other directly (peer to
//! peer), not through the router, so the router's own statistics cannot see their messages;
//! the kernel sees every connection of its network namespace.
//!
//! Bytes are the TCP payload (zenoh's framing included): over a link with shared memory, a
//! large message crosses as a small descriptor and its bytes stay in `/dev/shm`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

/// One direction of a zenoh link: what `zid` sent to `peer_zid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkBytes {
    /// The sending process's zenoh id.
    pub zid: String,
    /// Its role (`router`, `peer`, `client`).
    pub role: String,
    /// The receiving process's zenoh id.
    pub peer_zid: String,
    /// Its role.
    pub peer_role: String,
    /// Whether the link negotiated shared memory.
    pub shm: bool,
    /// Bytes sent over the link's TCP connections, by the kernel's count.
    pub sent: u64,
}

/// A session of a process, as its admin space lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AdminSession {
    peer_zid: String,
    peer_role: String,
    shm: bool,
    /// The TCP links' (local, remote) addresses.
    links: Vec<(SocketAddr, SocketAddr)>,
}

/// The links of every process that answers through `session` whose TCP connections are in this
/// network namespace. Empty when the kernel's counts cannot be read (logged once at debug).
pub async fn query(session: &zenoh::Session, timeout: Duration) -> Vec<LinkBytes> {
    let replies = super::query_all(session, "@/*/*", timeout).await;
    let processes: Vec<(String, String, Vec<AdminSession>)> = replies
        .iter()
        .filter_map(|sample| {
            let mut chunks = sample.key_expr().as_str().split('/');
            let (Some("@"), Some(zid), Some(role), None) =
                (chunks.next(), chunks.next(), chunks.next(), chunks.next())
            else {
                return None;
            };
            let sessions = sessions_of(&sample.payload().to_bytes())?;
            Some((zid.to_owned(), role.to_owned(), sessions))
        })
        .collect();
    if processes.is_empty() {
        return Vec::new();
    }
    let connections = match tokio::task::spawn_blocking(super::host::tcp_connections).await {
        Ok(Ok(connections)) => connections,
        Ok(Err(err)) => {
            tracing::debug!("the kernel's TCP counts cannot be read: {err}");
            return Vec::new();
        }
        Err(_) => return Vec::new(),
    };
    join(&processes, &connections)
}

/// Each process's sessions with the bytes of their links' connections; a link whose connection
/// is not in this namespace (another host's process) is left out.
fn join(
    processes: &[(String, String, Vec<AdminSession>)],
    connections: &HashMap<(SocketAddr, SocketAddr), super::host::TcpBytes>,
) -> Vec<LinkBytes> {
    let mut out = Vec::new();
    for (zid, role, sessions) in processes {
        for session in sessions {
            let counted: Vec<u64> = session
                .links
                .iter()
                .filter_map(|addresses| connections.get(addresses).map(|bytes| bytes.sent))
                .collect();
            if counted.is_empty() {
                continue;
            }
            out.push(LinkBytes {
                zid: zid.clone(),
                role: role.clone(),
                peer_zid: session.peer_zid.clone(),
                peer_role: session.peer_role.clone(),
                shm: session.shm,
                sent: counted.iter().sum(),
            });
        }
    }
    out
}

/// The sessions in an admin-space reply (`{"sessions": [{"peer", "whatami", "shm", "links":
/// [{"src", "dst"}]}]}`), TCP links only.
fn sessions_of(reply: &[u8]) -> Option<Vec<AdminSession>> {
    let json: serde_json::Value = serde_json::from_slice(reply).ok()?;
    let sessions = json.get("sessions")?.as_array()?;
    Some(
        sessions
            .iter()
            .filter_map(|s| {
                let links = s
                    .get("links")?
                    .as_array()?
                    .iter()
                    .filter_map(|l| {
                        Some((
                            tcp_address(l.get("src")?.as_str()?)?,
                            tcp_address(l.get("dst")?.as_str()?)?,
                        ))
                    })
                    .collect();
                Some(AdminSession {
                    peer_zid: s.get("peer")?.as_str()?.to_owned(),
                    peer_role: s.get("whatami")?.as_str().unwrap_or_default().to_owned(),
                    shm: s.get("shm").and_then(serde_json::Value::as_bool).unwrap_or(false),
                    links,
                })
            })
            .collect(),
    )
}

/// `tcp/127.0.0.1:7447` or `tcp/[::1]:7447` (a link's resolved address, metadata after `?` or
/// `#` ignored) as a socket address; other protocols give none.
fn tcp_address(locator: &str) -> Option<SocketAddr> {
    let address = locator.strip_prefix("tcp/")?;
    let address = address.split(['?', '#']).next()?;
    address.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::host::TcpBytes;

    /// Trimmed from a real rmw_zenoh_cpp node's (zenoh 1.8.0) admin space: its link to the
    /// router and one to another node.
    const ADMIN: &str = r#"{"zid":"a1","version":"v1.8.0-2687c513","sessions":[
        {"peer":"r0","whatami":"router","links":[{"src":"tcp/127.0.0.1:40000","dst":"tcp/127.0.0.1:7447"}],"shm":true},
        {"peer":"b2","whatami":"peer","links":[{"src":"tcp/[::1]:40001","dst":"tcp/[::1]:35000"}],"shm":false},
        {"peer":"c3","whatami":"peer","links":[{"src":"udp/127.0.0.1:1","dst":"udp/127.0.0.1:2"}],"shm":false}]}"#;

    #[test]
    fn sessions_are_read_with_their_tcp_links() {
        let sessions = sessions_of(ADMIN.as_bytes()).unwrap();
        assert_eq!(sessions.len(), 3);
        assert_eq!(sessions[0].peer_role, "router");
        assert!(sessions[0].shm);
        assert_eq!(
            sessions[1].links,
            [("[::1]:40001".parse().unwrap(), "[::1]:35000".parse().unwrap())]
        );
        assert!(sessions[2].links.is_empty(), "not TCP");
        assert_eq!(sessions_of(b"{\"zid\":\"x\"}"), None);
        assert_eq!(sessions_of(b"not json"), None);
    }

    #[test]
    fn links_get_their_connections_bytes_and_other_hosts_links_are_left_out() {
        let processes = vec![(
            "a1".to_owned(),
            "peer".to_owned(),
            sessions_of(ADMIN.as_bytes()).unwrap(),
        )];
        let connections = HashMap::from([(
            ("[::1]:40001".parse().unwrap(), "[::1]:35000".parse().unwrap()),
            TcpBytes {
                sent: 7_372_800,
                received: 12,
            },
        )]);
        assert_eq!(
            join(&processes, &connections),
            [LinkBytes {
                zid: "a1".into(),
                role: "peer".into(),
                peer_zid: "b2".into(),
                peer_role: "peer".into(),
                shm: false,
                sent: 7_372_800,
            }]
        );
    }

    #[test]
    fn addresses_of_other_protocols_or_unresolved_names_are_not_tcp_connections() {
        assert_eq!(
            tcp_address("tcp/127.0.0.1:7447"),
            Some("127.0.0.1:7447".parse().unwrap())
        );
        assert_eq!(
            tcp_address("tcp/127.0.0.1:7447?iface=lo"),
            Some("127.0.0.1:7447".parse().unwrap())
        );
        assert_eq!(tcp_address("tcp/localhost:7447"), None);
        assert_eq!(tcp_address("udp/127.0.0.1:7447"), None);
    }
}
