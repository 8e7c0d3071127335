//! Clock helpers for `builtin_interfaces/msg/Time`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::builtin_interfaces::msg::Time;

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
