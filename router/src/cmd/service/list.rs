//! `zshm service list`: the services the liveliness tokens announce (servers and clients), like
//! `ros2 service list` (`-t` types, `--count-services`, `-a` hidden services).

use std::process::ExitCode;

use zshm::ros::graph::ServiceSummary;

use crate::cli::GraphArgs;
use crate::support::graph;
use crate::support::out::outln;

/// `zshm service list`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How to ask the graph.
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Also print each service's type.
    #[arg(short = 't', long)]
    pub show_types: bool,
    /// Only print how many services there are.
    #[arg(long, visible_alias = "count")]
    pub count_services: bool,
    /// Include hidden services (a part of the name starts with `_`).
    #[arg(short = 'a', long, visible_alias = "all")]
    pub include_hidden_services: bool,
}

/// Prints the services.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let services: Vec<ServiceSummary> = graph::snapshot(&args.graph)
        .await?
        .graph
        .services()
        .into_iter()
        .filter(|service| args.include_hidden_services || !graph::is_hidden(&service.name))
        .collect();
    if args.count_services {
        outln!("{}", services.len());
    } else if args.graph.json {
        outln!("{}", serde_json::to_string(&services)?);
    } else {
        for service in &services {
            if args.show_types {
                outln!("{} [{}]", service.name, service.types.join(", "));
            } else {
                outln!("{}", service.name);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
