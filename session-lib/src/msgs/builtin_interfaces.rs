//! `builtin_interfaces`: [`Time`].

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Message, TypeInfo};
use crate::cdr::{CdrError, CdrReader, CdrSink};

/// `builtin_interfaces/msg/Time`: seconds and nanoseconds since the UNIX epoch (or sim time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    /// Seconds.
    pub sec: i32,
    /// Nanoseconds, 0..1e9.
    pub nanosec: u32,
}

impl Time {
    /// The wall clock now (CLOCK_REALTIME), as ROS nodes stamp with wall time.
    pub fn now() -> Self {
        Self::from_nanos(wall_clock_nanos())
    }

    /// From nanoseconds since the epoch.
    pub fn from_nanos(nanos: i64) -> Self {
        Self {
            sec: nanos.div_euclid(1_000_000_000) as i32,
            nanosec: nanos.rem_euclid(1_000_000_000) as u32,
        }
    }

    /// Nanoseconds since the epoch.
    pub fn as_nanos(self) -> i64 {
        i64::from(self.sec) * 1_000_000_000 + i64::from(self.nanosec)
    }
}

/// CLOCK_REALTIME in nanoseconds since the UNIX epoch (negative before it).
pub fn wall_clock_nanos() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) => i64::try_from(since.as_nanos()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

impl From<Duration> for Time {
    fn from(d: Duration) -> Self {
        Self {
            sec: d.as_secs() as i32,
            nanosec: d.subsec_nanos(),
        }
    }
}

impl Message for Time {
    const TYPE: TypeInfo = TypeInfo {
        name: "builtin_interfaces/msg/Time",
        dds_name: "builtin_interfaces::msg::dds_::Time_",
        hash: "RIHS01_b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197",
    };
    type View<'a> = Time;

    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S) {
        sink.i32(self.sec);
        sink.u32(self.nanosec);
    }

    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        Self::read_owned(reader)
    }

    fn from_view(view: &Time) -> Self {
        *view
    }

    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(Self {
            sec: reader.i32()?,
            nanosec: reader.u32()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_round_trip_including_before_the_epoch() {
        for nanos in [0, 1, 1_700_000_000_123_456_789, -1, -1_500_000_000] {
            assert_eq!(Time::from_nanos(nanos).as_nanos(), nanos);
        }
        assert_eq!(
            Time::from_nanos(-1),
            Time {
                sec: -1,
                nanosec: 999_999_999
            }
        );
    }
}
