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
    /// `tcp` with the subscription's callback run inline, on zenoh's receive thread
    /// (`SubscriptionOptions::inline`): no hand-off to the executor.
    TcpInline,
    /// `shm-loan` with the subscription's callback run inline, on zenoh's receive thread.
    ShmInline,
    /// zshm with the same-host lane (iceoryx2 between zshm nodes), the message built in place in
    /// the lane's buffer.
    Lane,
    /// `lane` with the subscription's callback run inline, on the thread that reads the lane
    /// (the executor's), as the iceoryx2 floor runs its own: no queue, no second look.
    LaneInline,
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
        !matches!(self, Mode::Tcp | Mode::TcpInline | Mode::ZenohTcp)
    }

    /// Whether zshm's subscription runs its callback inline, on the receiving thread.
    pub fn inline(self) -> bool {
        matches!(self, Mode::TcpInline | Mode::ShmInline | Mode::LaneInline)
    }

    /// Whether zshm's nodes talk through the same-host lane.
    pub fn lane(self) -> bool {
        matches!(self, Mode::Lane | Mode::LaneInline)
    }

    /// Whether the publisher builds its message in place in a loaned buffer.
    pub fn loans(self) -> bool {
        matches!(
            self,
            Mode::ShmLoan | Mode::ShmInline | Mode::Lane | Mode::LaneInline
        )
    }

    /// The name used in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Tcp => "tcp",
            Mode::ShmCopy => "shm-copy",
            Mode::ShmLoan => "shm-loan",
            Mode::TcpInline => "tcp-inline",
            Mode::ShmInline => "shm-inline",
            Mode::Lane => "lane",
            Mode::LaneInline => "lane-inline",
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
    /// Latency against the number of subscribers of one 4 MiB topic at 30 Hz.
    #[serde(rename = "fan-out")]
    FanOut,
    /// The topics sweep's workload at T = 10 against the subscribers of each topic, S = 1 to
    /// 32 (only when asked for: it takes minutes).
    Subscribers,
    /// As many messages as the path carries.
    Throughput,
    /// A robot-sized workload: many topics over a fixed set of node processes (only when asked
    /// for: it takes minutes).
    Topics,
    /// Service round trips, zshm against plain zenoh, SHM against TCP (only when asked for).
    Service,
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
    /// The round it belongs to, from 0 (see [`Plan::cases`]).
    #[serde(default)]
    pub round: usize,
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
/// The subscriber axis of the fan-out sweep.
pub const FAN_OUT: [usize; 5] = [1, 2, 4, 8, 16];

/// What to run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Modes of the payload sweep.
    pub modes: Vec<Mode>,
    /// Payload sizes.
    pub payloads: Vec<usize>,
    /// Subscriber counts of the fan-out sweep (at 4 MiB, 30 Hz).
    pub fan_out: Vec<usize>,
    /// Rate of the payload sweep.
    pub rate: f64,
    /// Messages per case.
    pub count: u64,
    /// Include the throughput sweep.
    pub throughput: bool,
    /// Include the payload sweep.
    pub payload_sweep: bool,
    /// Rounds of the payload sweep (at least 1).
    pub rounds: usize,
}

impl Plan {
    /// Every case, in the order they run. The payload sweep, whose cases the targets compare,
    /// runs in interleaved rounds (every mode at every size, then all of it again), so that a
    /// slow minute of a shared machine slows one round of every mode rather than all rounds of
    /// one; a ratio is then taken per round and judged on its median ([`super::spread`]). The
    /// fan-out and throughput sweeps run once, after the rounds.
    pub fn cases(&self) -> Vec<Case> {
        let warmup = 10;
        let mut cases = Vec::new();
        for round in (0..self.rounds.max(1)).filter(|_| self.payload_sweep) {
            for &payload in &self.payloads {
                for &mode in &self.modes {
                    cases.push(Case {
                        sweep: Sweep::Payload,
                        mode,
                        payload,
                        subscribers: 1,
                        rate: self.rate,
                        count: self.count,
                        warmup,
                        round,
                    });
                }
            }
        }
        let fan_out_modes: Vec<Mode> = self
            .modes
            .iter()
            .copied()
            .filter(|m| matches!(m, Mode::Tcp | Mode::ShmLoan | Mode::Lane))
            .collect();
        for &subscribers in &self.fan_out {
            for &mode in &fan_out_modes {
                // The "16 subscribers x 4 MiB at 30 Hz, nothing lost" target.
                cases.push(Case {
                    sweep: Sweep::FanOut,
                    mode,
                    payload: 4 << 20,
                    subscribers,
                    rate: 30.0,
                    count: self.count.min(150),
                    warmup,
                    round: 0,
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
                        round: 0,
                    });
                }
            }
        }
        cases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(rounds: usize) -> Plan {
        Plan {
            modes: vec![Mode::ShmLoan, Mode::ZenohShm, Mode::Iceoryx2],
            payloads: vec![64, 4 << 20],
            fan_out: vec![],
            rate: 100.0,
            count: 10,
            throughput: false,
            payload_sweep: true,
            rounds,
        }
    }

    #[test]
    fn rounds_interleave_the_modes_they_compare() {
        let order: Vec<(usize, usize, Mode)> = plan(2)
            .cases()
            .iter()
            .map(|c| (c.round, c.payload, c.mode))
            .collect();
        let (a, b, c) = (Mode::ShmLoan, Mode::ZenohShm, Mode::Iceoryx2);
        let big = 4 << 20;
        assert_eq!(
            order,
            [
                (0, 64, a),
                (0, 64, b),
                (0, 64, c),
                (0, big, a),
                (0, big, b),
                (0, big, c),
                (1, 64, a),
                (1, 64, b),
                (1, 64, c),
                (1, big, a),
                (1, big, b),
                (1, big, c),
            ]
        );
    }

    #[test]
    fn zero_rounds_still_run_one() {
        assert_eq!(plan(0).cases().len(), 6);
    }
}
