//! `zshm service type NAME`: the type of a service the graph announces, like `ros2 service
//! type`; exit 1 when the graph has no such service.

use std::process::ExitCode;

use crate::cli::GraphArgs;
use crate::support::graph;
use crate::support::out::outln;

/// `zshm service type`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service, e.g. /add_two_ints.
    pub name: String,
    /// How to ask the graph.
    #[command(flatten)]
    pub graph: GraphArgs,
}

/// Prints the service's type (each of them, when servers and clients disagree).
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wanted = if args.name.starts_with('/') {
        args.name.clone()
    } else {
        format!("/{}", args.name)
    };
    let services = graph::snapshot(&args.graph).await?.graph.services();
    let Some(service) = services.iter().find(|s| s.name == wanted) else {
        eprintln!("zshm service type: no service {wanted} in the graph");
        return Ok(ExitCode::FAILURE);
    };
    if args.graph.json {
        outln!("{}", serde_json::to_string(&service.types)?);
    } else {
        for ty in &service.types {
            outln!("{ty}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
