//! The command line: [`Cli`] and one module per subcommand, each with its own flags (`Args`) next
//! to its `run`, like zenoh's examples. What several commands share is in `crate::cli` (flags)
//! and `crate::support` (helpers).

mod action;
mod add_two_ints_client;
mod add_two_ints_server;
mod bag;
pub mod bench;
mod bridge;
mod cam_latency;
mod cam_pub;
mod certs;
mod demo;
mod doctor;
mod exporter;
mod fibonacci_action_client;
mod fibonacci_action_server;
mod foxglove;
mod interface;
mod listener;
mod node;
mod param;
mod publish;
mod router;
mod service;
mod shm_clean;
mod subscribe;
mod talker;
mod topic;
mod topics;
mod traffic;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::cli::GraphArgs;
use crate::support::runtime::Footprint;
use crate::support::{children, shutdown};

/// zshm: a Zenoh router and tools for ROS 2, with shared memory you can see.
///
/// Exit codes: 0 success, 1 failure, 2 bad input (config, flag or environment variable).
#[derive(Debug, Parser)]
#[command(name = "zshm", version = crate::cli::VERSION, about, long_about = None)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a Zenoh router: a drop-in for rmw_zenoh's `rmw_zenohd`, with shared memory on.
    Router(router::Args),
    /// Publish verifiable raw payloads (a smoke test for the data path).
    Pub(publish::Args),
    /// Receive and verify what `zshm pub` sends, and print a JSON summary.
    Sub(subscribe::Args),
    /// Publish std_msgs/String "Hello World: N" like ROS's demo talker.
    Talker(talker::Args),
    /// Print the std_msgs/String messages of a topic like ROS's demo listener.
    Listener(listener::Args),
    /// List the ROS topics with their types and counts (the older form of `zshm topic list`).
    Topics(GraphArgs),
    /// The ROS topics: list, info, hz, bw, echo, pub (like `ros2 topic`), for any known type.
    Topic(topic::Args),
    /// The ROS services: list, type, call (like `ros2 service`), for any known type.
    Service(service::Args),
    /// The actions of the graph: list, info, send_goal (like `ros2 action`).
    Action(action::Args),
    /// The parameters of a running node: list, get, set, describe, dump, load (like `ros2 param`).
    Param(param::Args),
    /// ROS's demo service server: `add_two_ints_server` offering `/add_two_ints`.
    AddTwoIntsServer(add_two_ints_server::Args),
    /// ROS's demo service client: calls `/add_two_ints` and prints the sum.
    AddTwoIntsClient(add_two_ints_client::Args),
    /// Serve /fibonacci like ROS's tutorial action server.
    FibonacciActionServer(fibonacci_action_server::Args),
    /// Send one Fibonacci goal like ROS's tutorial action client.
    FibonacciActionClient(fibonacci_action_client::Args),
    /// The message, service and action types zshm knows: list, show (like `ros2 interface`).
    Interface(interface::Args),
    /// List the ROS nodes the graph announces (the older form of `zshm node list`).
    Nodes(GraphArgs),
    /// The ROS nodes: list, info (like `ros2 node`).
    Node(node::Args),
    /// A simulated depth camera: publishes PointCloud2 (and optionally Image) in place in SHM.
    CamPub(cam_pub::Args),
    /// Measure point-cloud (or image) latency: the workshop's `just cam_latency`.
    CamLatency(cam_latency::Args),
    /// Serve Prometheus metrics for a robot whose router is stock rmw_zenohd.
    Exporter(exporter::Args),
    /// Live view of loopback vs shared-memory bytes per second, read from the exporter.
    Traffic(traffic::Args),
    /// Remove zenoh segments in /dev/shm that no running process uses (left by crashes).
    ShmClean,
    /// Write a throw-away CA, certificates and passwords for the secure example configs.
    Certs(certs::Args),
    /// Check this machine and the configs for what would stop shared memory, with fixes.
    Doctor(doctor::Args),
    /// Measure point-cloud latency over TCP, then through shared memory, and compare (no setup).
    Demo(demo::Args),
    /// Record, inspect and play rosbag2 bags (MCAP), like `ros2 bag`.
    Bag(bag::Args),
    /// Show the live ROS topics to Foxglove: a WebSocket endpoint (ws://127.0.0.1:8765).
    Foxglove(foxglove::Args),
    /// Bridge DDS-based ROS 2 nodes (rmw_fastrtps, rmw_cyclonedds) and rmw_zenoh / zshm nodes.
    Bridge(bridge::Args),
    /// Benchmark shared memory against TCP loopback and the baselines (see BENCHMARKS.md).
    Bench(bench::Args),
    /// The benchmark's own processes, also here for when `zshm-bench-node` is not beside `zshm`.
    #[command(flatten)]
    BenchProcess(BenchProcess),
}

/// The processes `zshm bench` starts for its cases: the subcommands of `zshm-bench-node`, a
/// program built from the library and these alone, as a user's node is (see
/// [`crate::bench_process_main`]).
#[derive(Debug, Subcommand)]
pub enum BenchProcess {
    /// One process of a benchmark case (started by `zshm bench`).
    #[command(name = "bench-role", hide = true)]
    Role(bench::shared::RoleArgs),
    /// One node process of the benchmark's topics sweep (started by `zshm bench`).
    #[command(name = "bench-node", hide = true)]
    Node(bench::topics::NodeArgs),
    /// One process (server or client) of the benchmark's service sweep (started by `zshm bench`).
    #[command(name = "bench-service", hide = true)]
    Service(bench::service::ServiceArgs),
}

impl BenchProcess {
    /// One node's runtime, but for the plain zenoh baselines, which run as zenoh ships.
    pub fn footprint(&self) -> Footprint {
        let mode = match self {
            BenchProcess::Role(args) => args.mode,
            BenchProcess::Node(args) => args.mode,
            BenchProcess::Service(args) => args.mode,
        };
        if matches!(mode, bench::plan::Mode::ZenohTcp | bench::plan::Mode::ZenohShm) {
            Footprint::Full
        } else {
            Footprint::Node
        }
    }

    async fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            BenchProcess::Role(args) => bench::role::run(args).await,
            BenchProcess::Node(args) => bench::topics::run_node(args).await,
            BenchProcess::Service(args) => bench::service::role::run(args).await,
        }
    }
}

impl Command {
    /// How much runtime it needs: one node's worth for the commands that are one node (see
    /// [`crate::support::runtime`]).
    pub fn footprint(&self) -> Footprint {
        match self {
            Command::Pub(_)
            | Command::Sub(_)
            | Command::Talker(_)
            | Command::Listener(_)
            | Command::AddTwoIntsServer(_)
            | Command::AddTwoIntsClient(_)
            | Command::FibonacciActionServer(_)
            | Command::FibonacciActionClient(_)
            | Command::CamPub(_)
            | Command::CamLatency(_) => Footprint::Node,
            Command::BenchProcess(process) => process.footprint(),
            _ => Footprint::Full,
        }
    }
}

/// Runs one subcommand, then stops whatever children it left running (an error or a signal can
/// end a command early) and removes their segments.
pub async fn run(command: Command) -> anyhow::Result<ExitCode> {
    supervised(dispatch(command)).await
}

/// [`run`] for `zshm-bench-node`: only the benchmark's processes, so that nothing else of the
/// program is linked into it.
pub async fn run_bench_process(process: BenchProcess) -> anyhow::Result<ExitCode> {
    supervised(process.run()).await
}

async fn supervised(command: impl Future<Output = anyhow::Result<ExitCode>>) -> anyhow::Result<ExitCode> {
    children::follow_parent()?;
    shutdown::install()?;
    let result = command.await;
    children::finish(shutdown::second_signal()).await;
    result
}

async fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Router(args) => router::run(args).await,
        Command::Pub(args) => publish::run(args).await,
        Command::Sub(args) => subscribe::run(args).await,
        Command::Talker(args) => talker::run(args).await,
        Command::Listener(args) => listener::run(args).await,
        Command::Topics(args) => topics::run(args).await,
        Command::Topic(args) => topic::run(args).await,
        Command::Service(args) => service::run(args).await,
        Command::Action(args) => action::run(args).await,
        Command::Param(args) => param::run(args).await,
        Command::AddTwoIntsServer(args) => add_two_ints_server::run(args).await,
        Command::AddTwoIntsClient(args) => add_two_ints_client::run(args).await,
        Command::FibonacciActionServer(args) => fibonacci_action_server::run(args).await,
        Command::FibonacciActionClient(args) => fibonacci_action_client::run(args).await,
        Command::Interface(args) => interface::run(args).await,
        Command::Nodes(args) => node::list::run(args).await,
        Command::Node(args) => node::run(args).await,
        Command::CamPub(args) => cam_pub::run(args).await,
        Command::CamLatency(args) => cam_latency::run(args).await,
        Command::Exporter(args) => exporter::run(args).await,
        Command::Traffic(args) => traffic::run(args).await,
        Command::ShmClean => shm_clean::run(),
        Command::Certs(args) => certs::run(args),
        Command::Doctor(args) => doctor::run(args).await,
        Command::Demo(args) => demo::run(args).await,
        Command::Bag(args) => bag::run(args).await,
        Command::Foxglove(args) => foxglove::run(args).await,
        Command::Bridge(args) => bridge::run(args).await,
        Command::Bench(args) => bench::run(args).await,
        Command::BenchProcess(process) => process.run().await,
    }
}

#[cfg(test)]
mod tests;
