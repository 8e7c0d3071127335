//! `zshm service`: the ROS services of the graph, like `ros2 service`: list them, tell a
//! service's type, call one with a request given as YAML, for any service type zshm knows from
//! its definition. One file per verb, each with its own flags (`Args`) next to its `run`.

mod call;
mod list;
mod type_;

use std::process::ExitCode;

use clap::Subcommand;

/// `zshm service`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: ServiceCommand,
}

/// The `zshm service` verbs.
#[derive(Debug, Subcommand)]
pub enum ServiceCommand {
    /// List the services the graph announces (like `ros2 service list`).
    List(list::Args),
    /// Print a service's type (like `ros2 service type`).
    Type(type_::Args),
    /// Call a service with a request given as YAML and print the response (like `ros2 service
    /// call`).
    Call(call::Args),
}

/// Runs one `zshm service` verb.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        ServiceCommand::List(args) => list::run(args).await,
        ServiceCommand::Type(args) => type_::run(args).await,
        ServiceCommand::Call(args) => call::run(args).await,
    }
}
