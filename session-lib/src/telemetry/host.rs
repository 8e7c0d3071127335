//! The kernel's view of the traffic: loopback bytes (`/proc/net/dev`, what `iftop -i lo` shows).
//! (`/dev/shm` usage is [`crate::shm::usage`].)

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
}
