//! What `zshm bench` measures: the transport modes, and the cases of a sweep.

use std::fmt;

/// How a message travels.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// zshm with shared memory disabled: TCP loopback.
    Tcp,
    /// zshm with SHM, ordinary publish: one copy of the data into the SHM buffer (the lane off).
    ShmCopy,
    /// zshm with SHM, the message built in place in a loaned SHM buffer (the lane off).
    ShmLoan,
    /// zshm with the same-host lane (iceoryx2 between zshm nodes), the message built in place in
    /// the lane's buffer.
    Lane,
    /// Plain zenoh without zshm, SHM disabled (baseline of `tcp`).
    ZenohTcp,
    /// Plain zenoh without zshm, explicit SHM buffers (baseline of `shm-loan`).
    ZenohShm,
    /// iceoryx2 with event-driven wake-up: the floor of shared-memory IPC (feature `iceoryx2`).
    Iceoryx2,
}

impl Mode {
    /// Whether the sessions run with shared memory.
    pub fn shm(self) -> bool {
        !matches!(self, Mode::Tcp | Mode::ZenohTcp)
    }

    /// The name used in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Tcp => "tcp",
            Mode::ShmCopy => "shm-copy",
            Mode::ShmLoan => "shm-loan",
            Mode::Lane => "lane",
            Mode::ZenohTcp => "zenoh-tcp",
            Mode::ZenohShm => "zenoh-shm",
            Mode::Iceoryx2 => "iceoryx2",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which question a case answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sweep {
    /// Latency against payload size, one subscriber.
    Payload,
    /// Latency against the number of subscribers.
    Subscribers,
    /// As many messages as the path carries.
    Throughput,
}

/// One measured configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Case {
    /// The question.
    pub sweep: Sweep,
    /// The path.
    pub mode: Mode,
    /// Serialized message size in bytes.
    pub payload: usize,
    /// Subscriber processes.
    pub subscribers: usize,
    /// Messages per second (0: as fast as possible).
    pub rate: f64,
    /// Measured messages.
    pub count: u64,
    /// Messages sent first and not measured.
    pub warmup: u64,
}

/// The payload axis: 64 B to 16 MiB.
pub const PAYLOADS: [usize; 9] = [
    64,
    1 << 10,
    4 << 10,
    16 << 10,
    64 << 10,
    256 << 10,
    1 << 20,
    4 << 20,
    16 << 20,
];
/// The subscriber axis.
pub const SUBSCRIBERS: [usize; 5] = [1, 2, 4, 8, 16];

/// What to run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Modes of the payload sweep.
    pub modes: Vec<Mode>,
    /// Payload sizes.
    pub payloads: Vec<usize>,
    /// Subscriber counts (at 4 MiB, 30 Hz).
    pub subscribers: Vec<usize>,
    /// Rate of the payload sweep.
    pub rate: f64,
    /// Messages per case.
    pub count: u64,
    /// Include the throughput sweep.
    pub throughput: bool,
    /// Include the payload sweep.
    pub payload_sweep: bool,
}

impl Plan {
    /// Every case, in the order they run.
    pub fn cases(&self) -> Vec<Case> {
        let warmup = 10;
        let mut cases = Vec::new();
        for &payload in self.payloads.iter().filter(|_| self.payload_sweep) {
            for &mode in &self.modes {
                cases.push(Case {
                    sweep: Sweep::Payload,
                    mode,
                    payload,
                    subscribers: 1,
                    rate: self.rate,
                    count: self.count,
                    warmup,
                });
            }
        }
        let fan_out_modes: Vec<Mode> = self
            .modes
            .iter()
            .copied()
            .filter(|m| matches!(m, Mode::Tcp | Mode::ShmLoan | Mode::Lane))
            .collect();
        for &subscribers in &self.subscribers {
            for &mode in &fan_out_modes {
                // The "16 subscribers x 4 MiB at 30 Hz, nothing lost" target.
                cases.push(Case {
                    sweep: Sweep::Subscribers,
                    mode,
                    payload: 4 << 20,
                    subscribers,
                    rate: 30.0,
                    count: self.count.min(150),
                    warmup,
                });
            }
        }
        if self.throughput {
            for payload in [64, 64 << 10, 4 << 20] {
                for &mode in &fan_out_modes {
                    cases.push(Case {
                        sweep: Sweep::Throughput,
                        mode,
                        payload,
                        subscribers: 1,
                        rate: 0.0,
                        count: self.count * 3,
                        warmup,
                    });
                }
            }
        }
        cases
    }
}
