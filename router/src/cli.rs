//! What several subcommands share on the command line: the session and node flags, the metrics
//! endpoint, the graph query flags, and the parsers that validate numbers before anything runs.
//!
//! The top-level `Cli` and `Command` live in `cmd/mod.rs` next to the dispatch, and each
//! subcommand's own flags in its `cmd/<name>.rs`, so this file never imports from `cmd`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

/// What `--version` prints after the program's name, in `zshm` and `zshm-bench-node`: the release
/// and the build (a digest of the sources, build.rs), which `zshm bench` compares to its node
/// program's.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (build ", env!("ZSHM_BUILD"), ")");

/// Config and endpoint flags shared by every subcommand that opens a session (zenohd's names).
#[derive(Debug, Args, Clone)]
pub struct SessionArgs {
    /// Config file (JSON5). Default: $ZENOH_ROUTER_CONFIG_URI / $ZENOH_SESSION_CONFIG_URI, else
    /// the built-in configs/*_CONFIG.json5.
    #[arg(short = 'c', long = "config", value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Endpoint to listen on, e.g. tcp/127.0.0.1:7447 (repeatable; replaces the config's list).
    #[arg(short = 'l', long = "listen", value_name = "ENDPOINT")]
    pub listen: Vec<String>,
    /// Endpoint to connect to, e.g. tcp/127.0.0.1:7447 (repeatable; replaces the config's list).
    #[arg(short = 'e', long = "connect", value_name = "ENDPOINT")]
    pub connect: Vec<String>,
    /// Disable shared memory whatever the config says (TCP only; the lane too).
    #[arg(long)]
    pub no_shm: bool,
    /// Disable the same-host lane between zshm nodes (they then talk through zenoh; also
    /// ZSHM_LANE=off).
    #[arg(long)]
    pub no_lane: bool,
}

/// The session of a ROS node and where the node lives.
#[derive(Debug, Args, Clone)]
pub struct NodeArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Node namespace.
    #[arg(long, default_value = "/")]
    pub namespace: String,
    /// ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
    /// ROS arguments, last on the line: `--ros-args -p name:=value --params-file FILE.yaml`
    /// set the node's parameters (YAML values; ROS 2's parameters-file layout).
    #[arg(
        long = "ros-args",
        value_name = "ARG",
        num_args = 0..,
        allow_hyphen_values = true
    )]
    pub ros_args: Vec<String>,
}

/// Where the Prometheus endpoint listens.
#[derive(Debug, Args, Clone)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics for the whole robot at http://ADDR/metrics (port 0: any free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9477")]
    pub metrics: std::net::SocketAddr,
    /// Do not serve metrics (wins over --metrics).
    #[arg(long)]
    pub no_metrics: bool,
}

/// `zshm talker` and `zshm listener`: the demo pair's node, topic and message count.
#[derive(Debug, Args, Clone)]
pub struct ChatterArgs {
    /// Session, namespace and domain.
    #[command(flatten)]
    pub node: NodeArgs,
    /// Topic to publish on or listen to.
    #[arg(short, long, default_value = "chatter")]
    pub topic: String,
    /// Stop after this many messages (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
}

/// `zshm pub` and `zshm sub`: a session and the key expression of the raw test stream.
#[derive(Debug, Args)]
pub struct RawStreamArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Key expression to publish on or subscribe to.
    #[arg(short, long, default_value = "zshm/test")]
    pub key: String,
}

/// The size of a simulated depth cloud (`zshm cam-pub`, `zshm demo`).
#[derive(Debug, Args, Clone, Copy)]
pub struct CloudArgs {
    /// Points per row.
    #[arg(long, default_value_t = 640, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub width: u32,
    /// Rows.
    #[arg(long, default_value_t = 480, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub height: u32,
}

/// The largest simulated cloud, in bytes: what `zshm pub --size` accepts too. Far beyond any
/// camera, far below what would exhaust a robot's memory.
pub const MAX_CLOUD_BYTES: u64 = 1 << 30;

impl CloudArgs {
    /// Serialized point bytes of one cloud (24 B per point).
    pub fn data_bytes(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * zshm_ops::tools::sim_camera::POINT_STEP as u64
    }

    /// Refuses a width and height whose cloud exceeds [`MAX_CLOUD_BYTES`]: each flag is in range,
    /// their product may not be.
    pub fn validate(&self) -> Result<(), FlagError> {
        if self.data_bytes() > MAX_CLOUD_BYTES {
            return Err(FlagError(format!(
                "--width {} x --height {} makes clouds of {}; at most {} (1 GiB) are accepted",
                self.width,
                self.height,
                zshm::internal::text::human_bytes(self.data_bytes()),
                MAX_CLOUD_BYTES
            )));
        }
        Ok(())
    }
}

/// A flag value that clap accepted alone but that is wrong with the others; the program exits 2.
#[derive(Debug)]
pub struct FlagError(pub String);

impl std::fmt::Display for FlagError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FlagError {}

/// `zshm topics` and `zshm nodes`: how to ask the graph.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
    /// Seconds to wait for the graph's answers.
    #[arg(long, default_value = "2", value_parser = seconds)]
    pub timeout: Duration,
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// `zshm topic hz` and `zshm topic bw`: where to listen, and when to stop.
#[derive(Debug, Args)]
pub struct TopicStreamArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
    /// Stop after this many messages, printing the statistics of the last window once more
    /// (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
}

/// The longest duration a flag accepts: one year, far beyond any run, far below what
/// `Duration` and tokio's timers can hold.
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// The highest rate a flag accepts, in Hz.
pub const MAX_RATE: f64 = 100_000.0;

/// A QoS profile to start from (`ros2 topic echo/pub --qos-profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum QosPreset {
    /// rclcpp's default: reliable, volatile, keep last 10.
    Default,
    /// `SensorDataQoS`: best effort, volatile, keep last 5.
    SensorData,
    /// `ServicesQoS`: reliable, volatile, keep last 10.
    ServicesDefault,
}

/// `--qos-reliability`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum QosReliability {
    /// Every message is delivered or the publisher waits.
    Reliable,
    /// Messages may be dropped under load.
    BestEffort,
}

/// `--qos-durability`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum QosDurability {
    /// Only messages published after the subscription exists.
    Volatile,
    /// Late subscribers get the publisher's last `depth` messages.
    TransientLocal,
}

/// `--qos-history`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum QosHistory {
    /// Keep the last `--qos-depth` messages.
    KeepLast,
    /// Keep every message.
    KeepAll,
}

/// The QoS flags of `zshm topic echo` and `pub`, ros2's names. A flag not given keeps the
/// profile's value, or, where the command says so, adapts to the graph.
#[derive(Debug, Args, Clone, Default)]
pub struct QosArgs {
    /// The profile the other flags change.
    #[arg(long, value_enum)]
    pub qos_profile: Option<QosPreset>,
    /// Reliability.
    #[arg(long, value_enum)]
    pub qos_reliability: Option<QosReliability>,
    /// Durability.
    #[arg(long, value_enum)]
    pub qos_durability: Option<QosDurability>,
    /// History.
    #[arg(long, value_enum)]
    pub qos_history: Option<QosHistory>,
    /// History depth (with keep_last).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub qos_depth: Option<u32>,
}

impl QosArgs {
    /// The profile these flags give, starting from `base` when no --qos-profile is given.
    pub fn profile(&self, base: zshm::ros::qos::QosProfile) -> zshm::ros::qos::QosProfile {
        use zshm::ros::qos::{Durability, History, QosProfile, Reliability};
        let mut qos = match self.qos_profile {
            None => base,
            Some(QosPreset::Default) => QosProfile::keep_last(10),
            Some(QosPreset::SensorData) => QosProfile::sensor_data(),
            Some(QosPreset::ServicesDefault) => QosProfile::services_default(),
        };
        if let Some(reliability) = self.qos_reliability {
            qos.reliability = match reliability {
                QosReliability::Reliable => Reliability::Reliable,
                QosReliability::BestEffort => Reliability::BestEffort,
            };
        }
        if let Some(durability) = self.qos_durability {
            qos.durability = match durability {
                QosDurability::Volatile => Durability::Volatile,
                QosDurability::TransientLocal => Durability::TransientLocal,
            };
        }
        match (self.qos_history, self.qos_depth) {
            (Some(QosHistory::KeepAll), _) => qos.history = History::KeepAll,
            (_, Some(depth)) => qos.history = History::KeepLast(depth),
            (Some(QosHistory::KeepLast), None) => {
                if matches!(qos.history, History::KeepAll | History::Unknown) {
                    qos.history = History::KeepLast(10);
                }
            }
            (None, None) => {}
        }
        qos
    }
}

/// Parses a number of seconds: finite, from 0 to [`MAX_SECONDS`].
pub fn seconds(text: &str) -> Result<Duration, String> {
    let value = number(text)?;
    if !(0.0..=MAX_SECONDS).contains(&value) {
        return Err(format!("expected seconds from 0 to {MAX_SECONDS}, got {text}"));
    }
    Ok(Duration::from_secs_f64(value))
}

/// Parses a number of seconds that must be positive: from 0.001 to [`MAX_SECONDS`].
pub fn positive_seconds(text: &str) -> Result<Duration, String> {
    let value = number(text)?;
    if !(0.001..=MAX_SECONDS).contains(&value) {
        return Err(format!(
            "expected seconds from 0.001 to {MAX_SECONDS}, got {text}"
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

/// Parses a rate in Hz: finite, from 0.001 to [`MAX_RATE`].
pub fn rate(text: &str) -> Result<f64, String> {
    let value = number(text)?;
    if !(0.001..=MAX_RATE).contains(&value) {
        return Err(format!(
            "expected a rate in Hz from 0.001 to {MAX_RATE}, got {text}"
        ));
    }
    Ok(value)
}

/// Parses a rate in Hz where 0 means "as fast as possible": 0, or from 0.001 to [`MAX_RATE`].
pub fn rate_or_unpaced(text: &str) -> Result<f64, String> {
    match number(text)? {
        0.0 => Ok(0.0),
        _ => rate(text).map_err(|err| format!("{err} (or 0: as fast as possible)")),
    }
}

fn number(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number, got `{text}`"))?;
    if !value.is_finite() {
        return Err(format!("expected a finite number, got {text}"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_outside_their_range_are_refused_with_the_range() {
        for bad in ["inf", "-inf", "NaN", "1e300", "-1", "abc", ""] {
            assert!(seconds(bad).is_err(), "{bad}");
            assert!(rate(bad).is_err(), "{bad}");
            assert!(rate_or_unpaced(bad).is_err(), "{bad}");
        }
        assert!(rate("0").unwrap_err().contains("from 0.001 to 100000"));
        assert!(positive_seconds("0").unwrap_err().contains("from 0.001"));
        assert!(seconds("1e300").unwrap_err().contains("from 0 to 31536000"));
    }

    #[test]
    fn numbers_inside_their_range_are_kept() {
        assert_eq!(seconds("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(seconds("0").unwrap(), Duration::ZERO);
        assert_eq!(rate("15").unwrap(), 15.0);
        assert_eq!(rate_or_unpaced("0").unwrap(), 0.0);
        assert_eq!(rate_or_unpaced("100000").unwrap(), 100_000.0);
    }
}
