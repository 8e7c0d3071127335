//! `zshm bag record | info | play`: rosbag2 bags (MCAP storage, the ROS 2 profile) that ROS 2
//! tools read, recorded from and played into the zenoh graph.
//!
//! * `record.rs`: topics from the graph → a bounded queue → one writer thread → MCAP files.
//! * `writer.rs`: the MCAP files and their splitting and compression.
//! * `info.rs`: what `ros2 bag info` prints.
//! * `play.rs`: the messages back onto the graph with their recorded timing and QoS.
//! * `metadata.rs`: `metadata.yaml` and the QoS YAML.
//! * `storage.rs`: reading the MCAP files (indexed or not, finalised or not).

mod info;
mod metadata;
mod play;
mod record;
mod storage;
mod writer;

use std::process::ExitCode;

use crate::cli::FlagError;
use crate::support::definitions::shipped_definition;

/// `zshm bag`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do with bags.
    #[command(subcommand)]
    pub command: BagCommand,
}

/// The bag subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum BagCommand {
    /// Record topics into a rosbag2 bag (MCAP), like `ros2 bag record -s mcap`.
    Record(record::Args),
    /// Print what a bag holds, like `ros2 bag info`.
    Info(info::Args),
    /// Publish a bag's messages again with their recorded timing and QoS, like `ros2 bag play`.
    Play(play::Args),
}

/// Runs one bag subcommand.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        BagCommand::Record(args) => record::run(args).await,
        BagCommand::Info(args) => info::run(args),
        BagCommand::Play(args) => play::run(args).await,
    }
}

/// A bad-input error (exit 2).
fn bad_input(message: String) -> anyhow::Error {
    anyhow::Error::new(FlagError(message))
}

/// Nanoseconds since the UNIX epoch, now.
fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// `pkg/msg/Type` → `pkg::msg::dds_::Type_`, the name in keys and tokens.
fn dds_name(ros_name: &str) -> Option<String> {
    match ros_name.split('/').collect::<Vec<_>>().as_slice() {
        [package, namespace, name] if !package.is_empty() && !namespace.is_empty() && !name.is_empty() => {
            Some(format!("{package}::{namespace}::dds_::{name}_"))
        }
        _ => None,
    }
}

/// Bytes for people: `1.5 MiB`.
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
