//! ROS 2 QoS profiles, their compact encoding in liveliness tokens, and how rmw_zenoh maps them
//! onto zenoh.
//!
//! Token encoding (`qos_to_keyexpr` in `rmw_zenoh_cpp/src/detail/liveliness_utils.cpp`):
//! `<rel>:<dur>:<hist>,<depth>:<deadline s>,<ns>:<lifespan s>,<ns>:<liveliness>,<lease s>,<ns>`,
//! each value the rmw enum number or integer, **empty when it equals rmw_zenoh's default**
//! (RELIABLE, VOLATILE, KEEP_LAST, depth 42, infinite durations, AUTOMATIC). rclcpp's `QoS(10)`
//! is therefore `::,10:,:,:,,`.

use std::fmt;

/// Delivery guarantee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reliability {
    /// Retransmitted until received (rmw value 1).
    Reliable,
    /// May be lost (rmw value 2).
    BestEffort,
}

/// What late joiners get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Durability {
    /// Only what is published after they join (rmw value 2).
    Volatile,
    /// The last `depth` messages too (rmw value 1).
    TransientLocal,
}

/// How many messages are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum History {
    /// The last `n` (rmw value 1).
    KeepLast(u32),
    /// All of them (rmw value 2).
    KeepAll,
    /// Not known (rmw value 3): what ROS 2 reports for an endpoint discovered through DDS, whose
    /// discovery data carries no history. The bridge announces its DDS endpoints so. Queued and
    /// congested like [`KeepAll`](History::KeepAll): a reliable writer's messages are not
    /// dropped for want of a depth.
    Unknown,
}

/// How liveliness is asserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Liveliness {
    /// By the middleware (rmw value 1).
    Automatic,
    /// By the publisher on each publish (rmw value 3).
    ManualByTopic,
}

/// A duration as rmw stores it; [`QosDuration::INFINITE`] is `RMW_DURATION_INFINITE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QosDuration {
    /// Seconds.
    pub sec: u64,
    /// Nanoseconds.
    pub nsec: u64,
}

impl QosDuration {
    /// `RMW_DURATION_INFINITE`: {9223372036 s, 854775807 ns}.
    pub const INFINITE: Self = Self {
        sec: 9_223_372_036,
        nsec: 854_775_807,
    };
}

/// A ROS 2 QoS profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QosProfile {
    /// Reliability.
    pub reliability: Reliability,
    /// Durability.
    pub durability: Durability,
    /// History and depth.
    pub history: History,
    /// Deadline (carried in the token only; rmw_zenoh does not enforce it).
    pub deadline: QosDuration,
    /// Lifespan (carried in the token only).
    pub lifespan: QosDuration,
    /// Liveliness kind.
    pub liveliness: Liveliness,
    /// Liveliness lease duration.
    pub liveliness_lease: QosDuration,
}

/// rmw_zenoh's default depth, substituted for 0 and encoded as empty.
pub const DEFAULT_DEPTH: u32 = 42;

impl QosProfile {
    /// rclcpp's `QoS(depth)`: reliable, volatile, keep last `depth`.
    pub fn keep_last(depth: u32) -> Self {
        Self {
            reliability: Reliability::Reliable,
            durability: Durability::Volatile,
            history: History::KeepLast(depth),
            deadline: QosDuration::INFINITE,
            lifespan: QosDuration::INFINITE,
            liveliness: Liveliness::Automatic,
            liveliness_lease: QosDuration::INFINITE,
        }
    }

    /// `rmw_qos_profile_services_default` (`rclcpp::ServicesQoS()`): reliable, volatile, keep
    /// last 10; what service servers and clients use.
    pub fn services_default() -> Self {
        Self::keep_last(10)
    }

    /// `rclcpp::SensorDataQoS()`: best effort, volatile, keep last 5.
    pub fn sensor_data() -> Self {
        Self {
            reliability: Reliability::BestEffort,
            ..Self::keep_last(5)
        }
    }

    /// Returns a copy with another reliability.
    pub fn reliability(self, reliability: Reliability) -> Self {
        Self { reliability, ..self }
    }

    /// Returns a copy with another durability.
    pub fn durability(self, durability: Durability) -> Self {
        Self { durability, ..self }
    }

    /// The history depth, with rmw_zenoh's substitution of 0 and KEEP_ALL by 42 (UNKNOWN too).
    pub fn depth(&self) -> u32 {
        match self.history {
            History::KeepLast(0) | History::KeepAll | History::Unknown => DEFAULT_DEPTH,
            History::KeepLast(n) => n,
        }
    }

    /// rmw_zenoh blocks a congested publisher only for RELIABLE + KEEP_ALL; otherwise zenoh may
    /// drop (`rmw_publisher_data.cpp`). RELIABLE + UNKNOWN (a bridged DDS writer) blocks too.
    pub fn blocks_when_congested(&self) -> bool {
        self.reliability == Reliability::Reliable
            && matches!(self.history, History::KeepAll | History::Unknown)
    }

    /// The compact token encoding.
    pub fn encode(&self) -> String {
        let or_empty = |value: u64, default: u64| {
            if value == default {
                String::new()
            } else {
                value.to_string()
            }
        };
        let duration = |d: QosDuration| {
            format!(
                "{},{}",
                or_empty(d.sec, QosDuration::INFINITE.sec),
                or_empty(d.nsec, QosDuration::INFINITE.nsec)
            )
        };
        let reliability = match self.reliability {
            Reliability::Reliable => "",
            Reliability::BestEffort => "2",
        };
        let durability = match self.durability {
            Durability::Volatile => "",
            Durability::TransientLocal => "1",
        };
        let history = match self.history {
            History::KeepLast(_) => "",
            History::KeepAll => "2",
            History::Unknown => "3",
        };
        // ROS 2 reports an unknown history with depth 0.
        let depth = match self.history {
            History::Unknown => 0,
            _ => self.depth(),
        };
        let liveliness = match self.liveliness {
            Liveliness::Automatic => "",
            Liveliness::ManualByTopic => "3",
        };
        format!(
            "{reliability}:{durability}:{history},{}:{}:{}:{liveliness},{}",
            or_empty(u64::from(depth), u64::from(DEFAULT_DEPTH)),
            duration(self.deadline),
            duration(self.lifespan),
            duration(self.liveliness_lease),
        )
    }

    /// Parses the compact encoding; empty fields take rmw_zenoh's defaults.
    pub fn decode(text: &str) -> Result<Self, QosParseError> {
        let err = || QosParseError(text.to_owned());
        let groups: Vec<&str> = text.split(':').collect();
        let [rel, dur, hist, deadline, lifespan, liveliness] = groups[..] else {
            return Err(err());
        };
        let number = |s: &str, default: u64| -> Result<u64, QosParseError> {
            if s.is_empty() {
                Ok(default)
            } else {
                s.parse().map_err(|_| err())
            }
        };
        let pair = |s: &str| -> Result<QosDuration, QosParseError> {
            let (sec, nsec) = s.split_once(',').ok_or_else(err)?;
            Ok(QosDuration {
                sec: number(sec, QosDuration::INFINITE.sec)?,
                nsec: number(nsec, QosDuration::INFINITE.nsec)?,
            })
        };
        let (hist_kind, depth) = hist.split_once(',').ok_or_else(err)?;
        let depth = u32::try_from(number(depth, u64::from(DEFAULT_DEPTH))?).map_err(|_| err())?;
        let (liveliness_kind, lease) = liveliness.split_once(',').ok_or_else(err)?;
        Ok(Self {
            // SYSTEM_DEFAULT (0) and BEST_AVAILABLE (4) resolve to the defaults, as in rmw_zenoh.
            reliability: match number(rel, 1)? {
                0 | 1 | 4 => Reliability::Reliable,
                2 => Reliability::BestEffort,
                _ => return Err(err()),
            },
            durability: match number(dur, 2)? {
                0 | 2 | 4 => Durability::Volatile,
                1 => Durability::TransientLocal,
                _ => return Err(err()),
            },
            history: match number(hist_kind, 1)? {
                0 | 1 => History::KeepLast(depth),
                2 => History::KeepAll,
                3 => History::Unknown,
                _ => return Err(err()),
            },
            deadline: pair(deadline)?,
            lifespan: pair(lifespan)?,
            liveliness: match number(liveliness_kind, 1)? {
                0 | 1 | 5 => Liveliness::Automatic,
                2 | 3 => Liveliness::ManualByTopic,
                _ => return Err(err()),
            },
            liveliness_lease: pair(lease)?,
        })
    }
}

impl Default for QosProfile {
    /// rclcpp's default, `QoS(10)`.
    fn default() -> Self {
        Self::keep_last(10)
    }
}

impl fmt::Display for QosProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reliability = match self.reliability {
            Reliability::Reliable => "reliable",
            Reliability::BestEffort => "best_effort",
        };
        let durability = match self.durability {
            Durability::Volatile => "volatile",
            Durability::TransientLocal => "transient_local",
        };
        match self.history {
            History::KeepLast(n) => write!(f, "{reliability}, {durability}, keep_last {n}"),
            History::KeepAll => write!(f, "{reliability}, {durability}, keep_all"),
            History::Unknown => write!(f, "{reliability}, {durability}, history unknown"),
        }
    }
}

/// A QoS string that is not in rmw_zenoh's format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an rmw_zenoh QoS string")]
pub struct QosParseError(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_the_documented_examples() {
        assert_eq!(QosProfile::keep_last(10).encode(), "::,10:,:,:,,");
        assert_eq!(QosProfile::sensor_data().encode(), "2::,5:,:,:,,");
        let tf_static = QosProfile::keep_last(1).durability(Durability::TransientLocal);
        assert_eq!(tf_static.encode(), ":1:,1:,:,:,,");
        let rosout = QosProfile {
            lifespan: QosDuration { sec: 10, nsec: 0 },
            ..QosProfile::keep_last(1000).durability(Durability::TransientLocal)
        };
        assert_eq!(rosout.encode(), ":1:,1000:,:10,0:,,");
        assert_eq!(QosProfile::keep_last(42).encode(), "::,:,:,:,,");
        assert_eq!(QosProfile::keep_last(0).encode(), "::,:,:,:,,");
        let keep_all = QosProfile {
            history: History::KeepAll,
            ..QosProfile::default()
        };
        assert_eq!(keep_all.encode(), "::2,:,:,:,,");
        let unknown = QosProfile {
            history: History::Unknown,
            ..QosProfile::default()
        };
        assert_eq!(unknown.encode(), "::3,0:,:,:,,", "rmw's UNKNOWN (3), depth 0");
        assert!(
            unknown.blocks_when_congested(),
            "a reliable DDS writer's messages are kept"
        );
    }

    #[test]
    fn decode_inverts_encode() {
        let profiles = [
            QosProfile::default(),
            QosProfile::sensor_data(),
            QosProfile::keep_last(1).durability(Durability::TransientLocal),
            QosProfile {
                history: History::KeepAll,
                liveliness: Liveliness::ManualByTopic,
                ..QosProfile::default()
            },
            QosProfile {
                deadline: QosDuration { sec: 1, nsec: 500 },
                ..QosProfile::default()
            },
            QosProfile {
                history: History::Unknown,
                ..QosProfile::sensor_data()
            },
        ];
        for profile in profiles {
            assert_eq!(
                QosProfile::decode(&profile.encode()).unwrap(),
                profile,
                "{}",
                profile.encode()
            );
        }
        assert_eq!(
            QosProfile::decode("::,:,:,:,,").unwrap().history,
            History::KeepLast(42)
        );
    }

    #[test]
    fn malformed_strings_are_errors() {
        for bad in [
            "",
            "::",
            "x::,1:,:,:,,",
            "::,1:,:,:,",
            "7::,1:,:,:,,",
            "::,99999999999:,:,:,,",
        ] {
            assert!(QosProfile::decode(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn congestion_blocks_only_for_reliable_keep_all() {
        assert!(!QosProfile::default().blocks_when_congested());
        assert!(
            QosProfile {
                history: History::KeepAll,
                ..QosProfile::default()
            }
            .blocks_when_congested()
        );
    }
}
