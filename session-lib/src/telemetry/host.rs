//! The kernel's view of the traffic: loopback bytes (`/proc/net/dev`, what `iftop -i lo` shows)
//! and `/dev/shm` usage, including the bytes zenoh's segments hold.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

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

/// The shared-memory filesystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DevShm {
    /// Filesystem size.
    pub size_bytes: u64,
    /// Free bytes.
    pub free_bytes: u64,
    /// Bytes allocated to `*.zenoh` segments.
    pub zenoh_bytes: u64,
    /// Number of `*.zenoh` segments.
    pub zenoh_segments: u64,
}

/// Reads the usage of `dir` (normally /dev/shm).
pub fn dev_shm(dir: &Path) -> Option<DevShm> {
    let stat = nix::sys::statvfs::statvfs(dir).ok()?;
    let mut usage = DevShm {
        size_bytes: stat.blocks().saturating_mul(stat.fragment_size()),
        free_bytes: stat.blocks_available().saturating_mul(stat.fragment_size()),
        ..DevShm::default()
    };
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        if entry.file_name().to_string_lossy().ends_with(".zenoh")
            && let Ok(meta) = entry.metadata()
        {
            usage.zenoh_segments += 1;
            // Allocated blocks, not the apparent size: what the segment really takes from RAM.
            usage.zenoh_bytes += meta.blocks() * 512;
        }
    }
    Some(usage)
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
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.zenoh"), vec![1u8; 8192]).unwrap();
        std::fs::write(dir.path().join("other"), b"x").unwrap();
        let usage = dev_shm(dir.path()).unwrap();
        assert_eq!(usage.zenoh_segments, 1);
        assert!(usage.zenoh_bytes >= 8192);
        assert!(usage.size_bytes >= usage.free_bytes);
    }
}
