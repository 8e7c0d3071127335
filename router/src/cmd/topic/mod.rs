//! `zshm topic`: the ROS topics of the graph and what flows on them, like `ros2 topic`, for any
//! message type zshm knows from its definition (see `zshm::dynamic`). One file per verb, each
//! with its own flags (`Args`) next to its `run`.

mod bw;
pub mod echo;
mod hz;
mod info;
mod list;
pub mod pub_;

use std::process::ExitCode;

use clap::Subcommand;

/// `zshm topic`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: TopicCommand,
}

/// The `zshm topic` verbs.
#[derive(Debug, Subcommand)]
pub enum TopicCommand {
    /// List the topics the graph announces (like `ros2 topic list`).
    List(list::Args),
    /// A topic's type, publishers and subscriptions, with -v each one's node, GID and QoS (like
    /// `ros2 topic info`).
    Info(info::Args),
    /// Print the rate a topic's messages arrive at, every second (like `ros2 topic hz`).
    Hz(hz::Args),
    /// Print the bandwidth a topic's messages take, every second (like `ros2 topic bw`).
    Bw(bw::Args),
    /// Print the messages of a topic as YAML (like `ros2 topic echo`).
    Echo(echo::Args),
    /// Publish a message given as YAML (like `ros2 topic pub`).
    Pub(pub_::Args),
}

/// Runs one `zshm topic` verb.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        TopicCommand::List(args) => list::run(args).await,
        TopicCommand::Info(args) => info::run(args).await,
        TopicCommand::Hz(args) => hz::run(args).await,
        TopicCommand::Bw(args) => bw::run(args).await,
        TopicCommand::Echo(args) => echo::run(args).await,
        TopicCommand::Pub(args) => pub_::run(args).await,
    }
}

/// The data key expression of an endpoint.
pub(crate) fn data_key(
    info: &zshm::ros::liveliness::EndpointInfo,
    type_part: &str,
    hash_part: &str,
) -> String {
    let topic = info.topic.trim_matches('/');
    format!("{}/{topic}/{type_part}/{hash_part}", info.node.domain)
}
