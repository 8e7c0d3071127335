//! `zshm param`: the parameters of a running node, like `ros2 param`: list them, get, set and
//! describe one, dump them all as a parameters file, load one back. Each verb calls the node's
//! parameter services (`<node>/list_parameters`, ...); one file per verb, each with its own flags
//! (`Args`) next to its `run`, and `remote` for the calls they share.
//!
//! Exit codes: 0 done; 1 the node did not answer within `--timeout` (the message names it and
//! the timeout), or it refused a set (with its reason); 2 bad input (a node name, a value, a
//! file).

mod describe;
mod dump;
mod get;
mod list;
mod load;
mod remote;
mod set;

use std::process::ExitCode;

use clap::Subcommand;

/// `zshm param`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: ParamCommand,
}

/// The `zshm param` verbs.
#[derive(Debug, Subcommand)]
pub enum ParamCommand {
    /// List a node's parameters (like `ros2 param list`).
    List(list::Args),
    /// Print a parameter's value (like `ros2 param get`).
    Get(get::Args),
    /// Set a parameter to a YAML value (like `ros2 param set`).
    Set(set::Args),
    /// Print a parameter's type, description and constraints (like `ros2 param describe`).
    Describe(describe::Args),
    /// Print a node's parameters as a parameters file (like `ros2 param dump`).
    Dump(dump::Args),
    /// Set a node's parameters from a parameters file (like `ros2 param load`).
    Load(load::Args),
}

/// Runs one `zshm param` verb.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        ParamCommand::List(args) => list::run(args).await,
        ParamCommand::Get(args) => get::run(args).await,
        ParamCommand::Set(args) => set::run(args).await,
        ParamCommand::Describe(args) => describe::run(args).await,
        ParamCommand::Dump(args) => dump::run(args).await,
        ParamCommand::Load(args) => load::run(args).await,
    }
}
