//! `zshm action info NAME`: the nodes that send goals to an action and those that serve it, in
//! `ros2 action info`'s layout (`-t` adds the types). Exit 1 when the graph has no such action.

use std::process::ExitCode;

use crate::cli::GraphArgs;
use crate::support::graph;
use crate::support::out::outln;

/// `zshm action info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The action, e.g. /fibonacci.
    pub name: String,
    /// How to ask the graph.
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Also print the action's type after each node.
    #[arg(short = 't', long)]
    pub show_types: bool,
}

/// Prints the action's clients and servers.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wanted = if args.name.starts_with('/') {
        args.name.clone()
    } else {
        format!("/{}", args.name)
    };
    let actions = graph::snapshot(&args.graph).await?.graph.actions();
    let Some(action) = actions.into_iter().find(|a| a.name == wanted) else {
        eprintln!("zshm action info: no action {wanted} in the graph (`zshm action list` shows them)");
        return Ok(ExitCode::FAILURE);
    };
    if args.graph.json {
        outln!("{}", serde_json::to_string(&action)?);
        return Ok(ExitCode::SUCCESS);
    }
    let types = format!(" [{}]", action.types.join(", "));
    let suffix = if args.show_types { types.as_str() } else { "" };
    outln!("Action: {}", action.name);
    outln!("Action clients: {}", action.clients.len());
    for node in &action.clients {
        outln!("    {node}{suffix}");
    }
    outln!("Action servers: {}", action.servers.len());
    for node in &action.servers {
        outln!("    {node}{suffix}");
    }
    Ok(ExitCode::SUCCESS)
}
