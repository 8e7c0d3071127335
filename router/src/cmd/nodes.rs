//! `zshm nodes`: the ROS nodes as the liveliness tokens announce them (like `ros2 node list`).

use std::process::ExitCode;

use crate::cli::GraphArgs;
use crate::support::out::outln;

/// Prints one fully qualified node name per line.
pub async fn run(args: GraphArgs) -> anyhow::Result<ExitCode> {
    let names = super::topics::snapshot(&args).await?.node_names();
    if args.json {
        outln!("{}", serde_json::to_string(&names)?);
    } else {
        names.iter().for_each(|name| outln!("{name}"));
    }
    Ok(ExitCode::SUCCESS)
}
