//! `zshm node list` (and its older name `zshm nodes`): the ROS nodes as the liveliness tokens
//! announce them, one fully qualified name per line, like `ros2 node list`.

use std::process::ExitCode;

use crate::cli::GraphArgs;
use crate::support::graph;
use crate::support::out::outln;

/// Prints one fully qualified node name per line.
pub async fn run(args: GraphArgs) -> anyhow::Result<ExitCode> {
    let names = graph::snapshot(&args).await?.graph.node_names();
    if args.json {
        outln!("{}", serde_json::to_string(&names)?);
    } else {
        names.iter().for_each(|name| outln!("{name}"));
    }
    Ok(ExitCode::SUCCESS)
}
