//! `zshm action list`: the actions the graph announces through their `_action/send_goal`
//! services (servers and clients), like `ros2 action list` (`-t` types, `-c` count).

use std::process::ExitCode;

use crate::cli::GraphArgs;
use crate::support::graph;
use crate::support::out::outln;

/// `zshm action list`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How to ask the graph.
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Also print each action's type.
    #[arg(short = 't', long)]
    pub show_types: bool,
    /// Only print how many actions there are.
    #[arg(short = 'c', long)]
    pub count_actions: bool,
}

/// Prints the actions.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let actions = graph::snapshot(&args.graph).await?.graph.actions();
    if args.count_actions {
        outln!("{}", actions.len());
    } else if args.graph.json {
        outln!("{}", serde_json::to_string(&actions)?);
    } else {
        for action in &actions {
            if args.show_types {
                outln!("{} [{}]", action.name, action.types.join(", "));
            } else {
                outln!("{}", action.name);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
