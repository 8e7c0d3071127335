//! Whether DDS discovery works on the interfaces the bridge would use: what `zshm doctor --dds`
//! checks. Two participants of this process join the domain on those interfaces only; one
//! writes a probe topic and the other must discover it. Discovery is by multicast, so on the
//! loopback interface it needs the interface's MULTICAST flag, which Linux leaves off by default.
//! Two participants of one host also find each other by unicast, so each IPv4 interface gets a
//! multicast probe of its own too: a datagram to a multicast group, sent out through that
//! interface with a TTL of 0 (it never leaves the host) and looped back to a member socket.

use std::net::{IpAddr, Ipv4Addr, SocketAddrV4};
use std::time::{Duration, Instant};

use crate::dds::{Dds, DdsError, DdsQos};

/// How long one pair of participants is given before a fresh pair is tried.
const PAIR_PATIENCE: Duration = Duration::from_secs(4);

/// What the check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveryReport {
    /// How long the second participant took to see the first one's writer; `None`: not
    /// within the timeout.
    pub found_after: Option<Duration>,
    /// Participants of other processes seen on the domain meanwhile (DDS nodes, bridges).
    pub others: usize,
    /// Whether the loopback interface has its MULTICAST flag, when one of the interfaces is a
    /// loopback address (`None` otherwise, or when it cannot be read).
    pub loopback_multicast: Option<bool>,
    /// Per IPv4 interface, whether a multicast datagram sent through it came back; the error
    /// text when it did not.
    pub multicast: Vec<(IpAddr, Result<(), String>)>,
}

/// Runs the check on `domain` and `interfaces`, waiting at most `timeout` (it blocks).
pub fn check(domain: u16, interfaces: &[IpAddr], timeout: Duration) -> Result<DiscoveryReport, DdsError> {
    let topic = format!("zshm_doctor_{}", std::process::id());
    let qos = DdsQos {
        reliable: true,
        transient_local: false,
        depth: Some(1),
    };
    let started = Instant::now();
    // A pair that missed each other's first announcements waits for RustDDS's next ones (every
    // 10 s); a fresh pair announces at once. Seen on a loaded machine: a pair that had not met
    // after 20 s.
    let (reader_side, ours, found_after, _writer_side, _probe) = loop {
        let writer_side = Dds::join(domain, interfaces)?;
        let reader_side = Dds::join(domain, interfaces)?;
        let probe = writer_side.writer(&topic, "zshm::doctor::Probe", qos)?;
        let ours = crate::peers::hex(writer_side.guid().prefix.as_ref());
        let attempt = Instant::now();
        let found = loop {
            let seen = reader_side
                .remote_writers()
                .iter()
                .any(|w| w.topic == topic && w.participant == ours);
            if seen {
                break Some(started.elapsed());
            }
            if attempt.elapsed() >= PAIR_PATIENCE || started.elapsed() >= timeout {
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if found.is_some() || started.elapsed() >= timeout {
            break (reader_side, ours, found, writer_side, probe);
        }
    };
    // Other processes' participants answer a new one within a few hundred milliseconds on a
    // host; a second is what the doctor gives them.
    let reader_participant = crate::peers::hex(reader_side.guid().prefix.as_ref());
    let others_seen = || {
        let mut others: Vec<String> = reader_side
            .remote_writers()
            .into_iter()
            .chain(reader_side.remote_readers())
            .map(|e| e.participant)
            .filter(|p| *p != ours && *p != reader_participant)
            .collect();
        others.sort();
        others.dedup();
        others.len()
    };
    let looked = Instant::now();
    let mut others = others_seen();
    while others == 0 && found_after.is_some() && looked.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_millis(50));
        others = others_seen();
    }
    let loopback_multicast = interfaces
        .iter()
        .any(IpAddr::is_loopback)
        .then(loopback_has_multicast)
        .flatten();
    let multicast = interfaces
        .iter()
        .filter_map(|address| match address {
            IpAddr::V4(v4) => Some((*address, multicast_probe(*v4).map_err(|e| e.to_string()))),
            IpAddr::V6(_) => None,
        })
        .collect();
    Ok(DiscoveryReport {
        found_after,
        others,
        loopback_multicast,
        multicast,
    })
}

/// Sends one datagram to 239.255.0.1 (DDS's discovery group) through `interface`, TTL 0, on a
/// port of its own, and waits up to a second for it to loop back.
fn multicast_probe(interface: Ipv4Addr) -> std::io::Result<()> {
    use socket2::{Domain, Protocol, Socket, Type};
    let group = Ipv4Addr::new(239, 255, 0, 1);
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    socket.bind(&SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0).into())?;
    socket.join_multicast_v4(&group, &interface)?;
    socket.set_multicast_if_v4(&interface)?;
    socket.set_multicast_ttl_v4(0)?;
    socket.set_multicast_loop_v4(true)?;
    socket.set_read_timeout(Some(Duration::from_secs(1)))?;
    let port = socket
        .local_addr()?
        .as_socket_ipv4()
        .map_or(0, |address| address.port());
    let socket = std::net::UdpSocket::from(socket);
    let token = format!("zshm doctor {}", std::process::id());
    socket.send_to(token.as_bytes(), SocketAddrV4::new(group, port))?;
    let mut buffer = [0u8; 64];
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline {
        let (len, _) = socket.recv_from(&mut buffer)?;
        if &buffer[..len] == token.as_bytes() {
            return Ok(());
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        "the datagram did not come back",
    ))
}

/// The MULTICAST flag (`IFF_MULTICAST`, 0x1000) of `lo`, from sysfs.
fn loopback_has_multicast() -> Option<bool> {
    let flags = std::fs::read_to_string("/sys/class/net/lo/flags").ok()?;
    let flags = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16).ok()?;
    Some(flags & 0x1000 != 0)
}
