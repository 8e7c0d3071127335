//! `zshm action`: the ROS actions of the graph, like `ros2 action`: list them, show who serves
//! and uses one, send a goal given as YAML for any action type zshm knows from its definition.
//! One file per verb, each with its own flags (`Args`) next to its `run`.

mod info;
mod list;
mod send_goal;

use std::process::ExitCode;

use clap::Subcommand;

/// `zshm action`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: ActionCommand,
}

/// The `zshm action` verbs.
#[derive(Debug, Subcommand)]
pub enum ActionCommand {
    /// List the actions the graph announces (like `ros2 action list`).
    List(list::Args),
    /// Print an action's clients and servers (like `ros2 action info`).
    Info(info::Args),
    /// Send a goal given as YAML, print its feedback and result (like `ros2 action send_goal`).
    #[command(name = "send_goal", visible_alias = "send-goal")]
    SendGoal(send_goal::Args),
}

/// Runs one `zshm action` verb.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        ActionCommand::List(args) => list::run(args).await,
        ActionCommand::Info(args) => info::run(args).await,
        ActionCommand::SendGoal(args) => send_goal::run(args).await,
    }
}
