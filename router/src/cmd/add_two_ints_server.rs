//! `zshm add-two-ints-server`: ROS's demo service server. Node `add_two_ints_server` offers
//! `/add_two_ints` (`example_interfaces/srv/AddTwoInts`) and prints each request as
//! demo_nodes_cpp does (`Incoming request` / `a: 2 b: 3`), until SIGINT or SIGTERM.

use std::process::ExitCode;

use zshm::msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};

use crate::cli::NodeArgs;
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm add-two-ints-server`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service name.
    #[arg(long, default_value = "add_two_ints")]
    pub service: String,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Answers until a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let node = session::open_node(&args.node, "add_two_ints_server").await?;
    let server = node
        .create_service::<AddTwoInts>(&args.service, |request: AddTwoInts_Request| {
            outln!("Incoming request");
            outln!("a: {} b: {}", request.a, request.b);
            AddTwoInts_Response {
                sum: request.a.wrapping_add(request.b),
            }
        })
        .await?;
    tracing::info!(service = %server.info().topic, "serving");
    shutdown::signal().await?;
    drop(server);
    session::close(node.session()).await?;
    Ok(ExitCode::SUCCESS)
}
