//! The kernel's view of the traffic: loopback bytes (`/proc/net/dev`, what `iftop -i lo` shows)
//! and the bytes of each TCP connection (sock_diag, what `ss -ti` shows). (`/dev/shm` usage is
//! [`zshm::internal::shm::usage`].)

use std::collections::HashMap;
use std::net::SocketAddr;

use netlink_packet_core::{NLM_F_DUMP, NLM_F_REQUEST, NetlinkHeader, NetlinkMessage, NetlinkPayload};
use netlink_packet_sock_diag::SockDiagMessage;
use netlink_packet_sock_diag::constants::{AF_INET, AF_INET6, IPPROTO_TCP};
use netlink_packet_sock_diag::inet::nlas::Nla;
use netlink_packet_sock_diag::inet::{ExtensionFlags, InetRequest, SocketId, StateFlags};
use netlink_sys::protocols::NETLINK_SOCK_DIAG;

/// Bytes received and sent on the loopback interface since boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loopback {
    /// Received bytes.
    pub rx_bytes: u64,
    /// Sent bytes.
    pub tx_bytes: u64,
}

/// Reads the `lo` line of `/proc/net/dev`.
pub fn loopback() -> Option<Loopback> {
    parse_net_dev(&std::fs::read_to_string("/proc/net/dev").ok()?, "lo")
}

/// Parses `/proc/net/dev` text: `iface: rx_bytes rx_packets ... (8 rx fields) tx_bytes ...`.
pub fn parse_net_dev(text: &str, interface: &str) -> Option<Loopback> {
    let line = text
        .lines()
        .find(|l| l.trim_start().split(':').next() == Some(interface))?;
    let fields: Vec<u64> = line
        .split_once(':')?
        .1
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    Some(Loopback {
        rx_bytes: *fields.first()?,
        tx_bytes: *fields.get(8)?,
    })
}

/// What one established TCP connection carried, by the kernel's count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpBytes {
    /// Data bytes this end sent (`tcpi_bytes_sent`, retransmissions included).
    pub sent: u64,
    /// Bytes this end received (`tcpi_bytes_received`).
    pub received: u64,
}

/// The byte counts of every established TCP connection of this network namespace, by (local,
/// remote) address, from the kernel's sock_diag interface (any user may read them, as `ss -ti`
/// does). An error when the kernel has no sock_diag (a container without netlink).
pub fn tcp_connections() -> std::io::Result<HashMap<(SocketAddr, SocketAddr), TcpBytes>> {
    let mut socket = netlink_sys::Socket::new(NETLINK_SOCK_DIAG)?;
    socket.bind_auto()?;
    socket.connect(&netlink_sys::SocketAddr::new(0, 0))?;
    let mut connections = HashMap::new();
    for (family, any) in [(AF_INET, SocketId::new_v4()), (AF_INET6, SocketId::new_v6())] {
        let mut header = NetlinkHeader::default();
        header.flags = NLM_F_REQUEST | NLM_F_DUMP;
        let request = SockDiagMessage::InetRequest(InetRequest {
            family,
            protocol: IPPROTO_TCP,
            extensions: ExtensionFlags::INFO,
            states: StateFlags::ESTABLISHED,
            socket_id: any,
        });
        let mut packet = NetlinkMessage::new(header, request.into());
        packet.finalize();
        let mut buffer = vec![0; packet.buffer_len()];
        packet.serialize(&mut buffer);
        socket.send(&buffer, 0)?;
        read_dump(&socket, &mut connections)?;
    }
    Ok(connections)
}

/// Reads one sock_diag dump's answers until its end.
fn read_dump(
    socket: &netlink_sys::Socket,
    connections: &mut HashMap<(SocketAddr, SocketAddr), TcpBytes>,
) -> std::io::Result<()> {
    let invalid = |err: String| std::io::Error::new(std::io::ErrorKind::InvalidData, err);
    let mut received = vec![0u8; 64 * 1024];
    loop {
        let size = socket.recv(&mut &mut received[..], 0)?;
        let mut offset = 0;
        while offset < size {
            let message = NetlinkMessage::<SockDiagMessage>::deserialize(&received[offset..size])
                .map_err(|err| invalid(format!("sock_diag answer: {err}")))?;
            match message.payload {
                NetlinkPayload::InnerMessage(SockDiagMessage::InetResponse(response)) => {
                    let id = &response.header.socket_id;
                    let local = SocketAddr::new(id.source_address, id.source_port);
                    let remote = SocketAddr::new(id.destination_address, id.destination_port);
                    for nla in &response.nlas {
                        if let Nla::TcpInfo(info) = nla {
                            let bytes = TcpBytes {
                                // Data bytes put on the wire, retransmissions included
                                // (bytes_acked would count a client's SYN as one more).
                                sent: info.bytes_sent,
                                received: info.bytes_received,
                            };
                            connections.insert((local, remote), bytes);
                        }
                    }
                }
                NetlinkPayload::Done(_) => return Ok(()),
                NetlinkPayload::Error(err) => return Err(invalid(format!("sock_diag: {err:?}"))),
                _ => {}
            }
            let length = message.header.length as usize;
            if length == 0 {
                break;
            }
            offset += length;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_loopback_line() {
        let text = "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo: 123456     100    0    0    0     0          0         0   654321     100    0    0    0     0       0          0\n  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n";
        assert_eq!(
            parse_net_dev(text, "lo"),
            Some(Loopback {
                rx_bytes: 123456,
                tx_bytes: 654321
            })
        );
        assert_eq!(
            parse_net_dev(text, "eth0"),
            Some(Loopback {
                rx_bytes: 1,
                tx_bytes: 9
            })
        );
        assert_eq!(parse_net_dev(text, "wlan0"), None);
    }

    #[test]
    fn reads_this_machine() {
        assert!(loopback().is_some());
    }

    /// A connection of this process, 100 kB one way and 7 back: the kernel's counts are exact.
    #[test]
    fn counts_the_bytes_of_a_tcp_connection_of_this_process() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        client.write_all(&[7u8; 100_000]).unwrap();
        let mut got = vec![0u8; 100_000];
        server.read_exact(&mut got).unwrap();
        server.write_all(b"thanks!").unwrap();
        let mut back = [0u8; 7];
        client.read_exact(&mut back).unwrap();
        let client_end = (client.local_addr().unwrap(), client.peer_addr().unwrap());
        let server_end = (server.local_addr().unwrap(), server.peer_addr().unwrap());
        let expected = (
            TcpBytes {
                sent: 100_000,
                received: 7,
            },
            TcpBytes {
                sent: 7,
                received: 100_000,
            },
        );
        // The acknowledgement of the last bytes may trail their delivery by a moment.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let connections = tcp_connections().unwrap();
            let ends = (connections[&client_end], connections[&server_end]);
            if ends == expected || std::time::Instant::now() > deadline {
                assert_eq!(ends, expected);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
