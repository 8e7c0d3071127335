//! `zshm node`: the ROS nodes of the graph, like `ros2 node`: list them, and what one node
//! publishes, subscribes to, serves and calls. One file per verb.

mod info;
pub mod list;

use std::process::ExitCode;

use clap::Subcommand;

/// `zshm node`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: NodeCommand,
}

/// The `zshm node` verbs.
#[derive(Debug, Subcommand)]
pub enum NodeCommand {
    /// List the nodes the graph announces (like `ros2 node list`).
    List(crate::cli::GraphArgs),
    /// A node's publishers, subscribers, service servers and clients, action servers and
    /// clients (like `ros2 node info`).
    Info(info::Args),
}

/// Runs one `zshm node` verb.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        NodeCommand::List(args) => list::run(args).await,
        NodeCommand::Info(args) => info::run(args).await,
    }
}
