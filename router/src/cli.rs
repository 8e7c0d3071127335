//! The command line: clap types only, one `<Name>Args` per subcommand.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// zshm: a Zenoh router and tools for ROS 2, with shared memory you can see.
///
/// Exit codes: 0 success, 1 failure, 2 bad input (config, flag or environment variable).
#[derive(Debug, Parser)]
#[command(name = "zshm", version, about, long_about = None)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a Zenoh router: a drop-in for rmw_zenoh's `rmw_zenohd`, with shared memory on.
    Router(RouterArgs),
    /// Publish verifiable raw payloads (a smoke test for the data path).
    Pub(PubArgs),
    /// Receive and verify what `zshm pub` sends, and print a JSON summary.
    Sub(SubArgs),
    /// Publish std_msgs/String "Hello World: N" like ROS's demo talker.
    Talker(TalkerArgs),
    /// Print the std_msgs/String messages of a topic like ROS's demo listener.
    Listener(ListenerArgs),
    /// List the ROS topics the graph announces (like `ros2 topic list -t`).
    Topics(GraphArgs),
    /// List the ROS nodes the graph announces (like `ros2 node list`).
    Nodes(GraphArgs),
    /// A simulated depth camera: publishes PointCloud2 (and optionally Image) in place in SHM.
    CamPub(CamPubArgs),
    /// Measure point-cloud (or image) latency: the workshop's `just cam_latency`.
    CamLatency(CamLatencyArgs),
    /// Serve Prometheus metrics for a robot whose router is stock rmw_zenohd.
    Exporter(ExporterArgs),
    /// Live view of loopback vs shared-memory bytes per second, read from the exporter.
    Traffic(TrafficArgs),
    /// Remove zenoh segments in /dev/shm that no running process uses (left by crashes).
    ShmClean,
    /// Check this machine and the configs for what would stop shared memory, with fixes.
    Doctor(DoctorArgs),
    /// Measure point-cloud latency over TCP, then through shared memory, and compare (no setup).
    Demo(DemoArgs),
    /// Benchmark shared memory against TCP loopback and the baselines (see BENCHMARKS.md).
    Bench(BenchArgs),
    /// One process of a benchmark case (started by `zshm bench`).
    #[command(hide = true)]
    BenchRole(BenchRoleArgs),
}

/// `zshm bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A one-minute sweep on small payloads (for CI and a first look).
    #[arg(long)]
    pub quick: bool,
    /// Directory for results.md, results.csv, results.json and the SVG plots.
    #[arg(long, default_value = "bench-results")]
    pub out: PathBuf,
    /// Messages per second of the latency sweep.
    #[arg(long, default_value_t = 100.0)]
    pub rate: f64,
    /// Measured messages per case (default 300; 50 with --quick).
    #[arg(long)]
    pub count: Option<u64>,
    /// Only these modes (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub modes: Vec<crate::cmd::bench::plan::Mode>,
    /// Only these payload sizes in bytes (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub payloads: Vec<usize>,
    /// Only these sweeps (comma-separated; default: all three).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub sweeps: Vec<crate::cmd::bench::plan::Sweep>,
}

/// `zshm bench-role`.
#[derive(Debug, Args)]
pub struct BenchRoleArgs {
    /// Publish (default: subscribe).
    #[arg(long)]
    pub publisher: bool,
    /// Transport mode.
    #[arg(long, value_enum)]
    pub mode: crate::cmd::bench::plan::Mode,
    /// Case id, shared by the case's processes.
    #[arg(long)]
    pub case: String,
    /// Serialized message size.
    #[arg(long)]
    pub payload: usize,
    /// Measured messages.
    #[arg(long)]
    pub count: u64,
    /// Unmeasured messages first.
    #[arg(long)]
    pub warmup: u64,
    /// Messages per second (0: as fast as possible).
    #[arg(long)]
    pub rate: f64,
    /// Subscribers the publisher waits for.
    #[arg(long, default_value_t = 1)]
    pub subscribers: usize,
    /// The router.
    #[arg(short = 'e', long)]
    pub connect: String,
    /// Seconds before giving up.
    #[arg(long)]
    pub timeout: f64,
}

/// `zshm demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Seconds to measure in each phase.
    #[arg(short, long, default_value_t = 10.0)]
    pub duration: f64,
    /// Points per row of the simulated cloud.
    #[arg(long, default_value_t = 640)]
    pub width: u32,
    /// Rows of the simulated cloud.
    #[arg(long, default_value_t = 480)]
    pub height: u32,
    /// Clouds per second.
    #[arg(short, long, default_value_t = 15.0)]
    pub rate: f64,
}

/// `zshm doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Router config to check (default: $ZENOH_ROUTER_CONFIG_URI, else the built-in one).
    #[arg(long, value_name = "PATH")]
    pub router_config: Option<PathBuf>,
    /// Session config to check (default: $ZENOH_SESSION_CONFIG_URI, else the built-in one).
    #[arg(long, value_name = "PATH")]
    pub session_config: Option<PathBuf>,
    /// One JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `zshm cam-pub`.
#[derive(Debug, Args)]
pub struct CamPubArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Namespace and domain.
    #[command(flatten)]
    pub node: NodeArgs,
    /// Point-cloud topic.
    #[arg(short, long, default_value = "/camera/points")]
    pub topic: String,
    /// Also publish an RGB image on this topic (e.g. /camera/image_raw).
    #[arg(long, value_name = "TOPIC")]
    pub image: Option<String>,
    /// Points per row.
    #[arg(long, default_value_t = 640, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub width: u32,
    /// Rows.
    #[arg(long, default_value_t = 480, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub height: u32,
    /// Clouds per second.
    #[arg(short, long, default_value_t = 15.0)]
    pub rate: f64,
    /// Coordinate frame of the clouds.
    #[arg(long, default_value = "camera_depth_optical_frame")]
    pub frame_id: String,
    /// Stop after this many clouds (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
    /// Seconds to wait for a subscriber before the first cloud (0: do not wait).
    #[arg(long, default_value_t = 0.0)]
    pub wait: f64,
    /// Seconds between two rate reports.
    #[arg(long, default_value_t = 3.0)]
    pub report: f64,
    /// Fill the point data with a verifiable pattern instead of a scene (`cam-latency --verify`).
    #[arg(long)]
    pub pattern: bool,
    /// Print the final summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Which message `cam-latency` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CamStream {
    /// sensor_msgs/PointCloud2 on /camera/points.
    Points,
    /// sensor_msgs/Image on /camera/image_raw.
    Image,
}

/// `zshm cam-latency`.
#[derive(Debug, Args)]
pub struct CamLatencyArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Namespace and domain.
    #[command(flatten)]
    pub node: NodeArgs,
    /// What to measure: `points` (/camera/points) or `image` (/camera/image_raw).
    #[arg(value_enum, default_value_t = CamStream::Points)]
    pub stream: CamStream,
    /// Topic, instead of the stream's default.
    #[arg(short, long)]
    pub topic: Option<String>,
    /// Seconds per printed window (the workshop script uses 3).
    #[arg(short, long, default_value_t = 3.0)]
    pub window: f64,
    /// Also print count, percentiles, lost messages, SHM share and message size per window.
    #[arg(short, long)]
    pub verbose: bool,
    /// One JSON object per window (and a final one) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Stop after this many samples and print a summary.
    #[arg(short = 'n', long)]
    pub count: Option<u64>,
    /// Stop after this many seconds and print a summary.
    #[arg(short, long)]
    pub duration: Option<f64>,
    /// Exit with an error if no sample arrives within this many seconds.
    #[arg(long, default_value_t = 15.0)]
    pub timeout: f64,
    /// Check the point data against `cam-pub --pattern` (byte for byte).
    #[arg(long)]
    pub verify: bool,
}

/// Where a ROS node lives.
#[derive(Debug, Args, Clone)]
pub struct NodeArgs {
    /// Node namespace.
    #[arg(long, default_value = "/")]
    pub namespace: String,
    /// ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
}

/// `zshm talker`.
#[derive(Debug, Args)]
pub struct TalkerArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Namespace and domain.
    #[command(flatten)]
    pub node: NodeArgs,
    /// Topic to publish on.
    #[arg(short, long, default_value = "chatter")]
    pub topic: String,
    /// Stop after this many messages (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
    /// Messages per second.
    #[arg(short, long, default_value_t = 1.0)]
    pub rate: f64,
    /// Seconds to wait for a subscriber before the first message (0: do not wait).
    #[arg(long, default_value_t = 0.0)]
    pub wait: f64,
}

/// `zshm listener`.
#[derive(Debug, Args)]
pub struct ListenerArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Namespace and domain.
    #[command(flatten)]
    pub node: NodeArgs,
    /// Topic to listen to.
    #[arg(short, long, default_value = "chatter")]
    pub topic: String,
    /// Stop after this many messages (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
    /// With --count: give up after this many seconds.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
}

/// `zshm topics` and `zshm nodes`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
    /// Seconds to wait for the graph's answers.
    #[arg(long, default_value_t = 2.0)]
    pub timeout: f64,
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
}

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
    /// Disable shared memory whatever the config says (TCP only).
    #[arg(long)]
    pub no_shm: bool,
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

/// `zshm router`.
#[derive(Debug, Args)]
pub struct RouterArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// The Prometheus endpoint.
    #[command(flatten)]
    pub metrics: MetricsArgs,
}

/// `zshm exporter`.
#[derive(Debug, Args)]
pub struct ExporterArgs {
    /// Config file and the router to connect to (-e).
    #[command(flatten)]
    pub session: SessionArgs,
    /// Serve Prometheus metrics at http://ADDR/metrics (port 0: any free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9477")]
    pub metrics: std::net::SocketAddr,
}

/// `zshm traffic`.
#[derive(Debug, Args)]
pub struct TrafficArgs {
    /// The exporter's metrics URL.
    #[arg(long, default_value = "http://127.0.0.1:9477/metrics")]
    pub url: String,
    /// Seconds between two lines.
    #[arg(short, long, default_value_t = 1.0)]
    pub interval: f64,
    /// Stop after this many lines (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
}

/// `zshm pub`.
#[derive(Debug, Args)]
pub struct PubArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Key expression to publish on.
    #[arg(short, long, default_value = "zshm/test")]
    pub key: String,
    /// Payload size in bytes (at least 8: the sequence number).
    #[arg(short, long, default_value_t = 4 << 20, value_parser = clap::value_parser!(u64).range(8..))]
    pub size: u64,
    /// Number of messages.
    #[arg(short = 'n', long, default_value_t = 100)]
    pub count: u64,
    /// Messages per second (0: as fast as possible).
    #[arg(short, long, default_value_t = 100.0)]
    pub rate: f64,
    /// Copy each payload with `publish(&[u8])` instead of filling a loan in place.
    #[arg(long)]
    pub copy: bool,
    /// Seconds to wait for a subscriber before publishing.
    #[arg(long, default_value_t = 30.0)]
    pub wait: f64,
}

/// `zshm sub`.
#[derive(Debug, Args)]
pub struct SubArgs {
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Key expression to subscribe to.
    #[arg(short, long, default_value = "zshm/test")]
    pub key: String,
    /// Stop after this many messages.
    #[arg(short = 'n', long, default_value_t = 100)]
    pub count: u64,
    /// Give up after this many seconds without reaching --count.
    #[arg(short, long, default_value_t = 60.0)]
    pub timeout: f64,
}
