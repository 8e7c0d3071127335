//! `zshm add-two-ints-client -a 2 -b 3`: ROS's demo service client. Node `add_two_ints_client`
//! calls `/add_two_ints` once and prints `Result of add_two_ints: 5`; exit 1 with the reason when
//! no server answers within `--timeout`.

use std::process::ExitCode;
use std::time::Duration;

use zshm::msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request};

use crate::cli::{self, NodeArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm add-two-ints-client`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first addend.
    #[arg(short, default_value = "2", allow_negative_numbers = true)]
    pub a: i64,
    /// The second addend.
    #[arg(short, default_value = "3", allow_negative_numbers = true)]
    pub b: i64,
    /// The service name.
    #[arg(long, default_value = "add_two_ints")]
    pub service: String,
    /// Longest wait for the server, and then for the result, in seconds.
    #[arg(long, default_value = "10", value_parser = cli::seconds)]
    pub timeout: Duration,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Calls once.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let node = session::open_node(&args.node, "add_two_ints_client").await?;
    let client = node.create_client::<AddTwoInts>(&args.service).await?;
    let service = client.info().topic.clone();
    let request = AddTwoInts_Request { a: args.a, b: args.b };
    let outcome = shutdown::unless_signalled(async {
        if !client.wait_for_service_async(args.timeout).await {
            return Err(format!(
                "service {service} not available within {:?}",
                args.timeout
            ));
        }
        client
            .call_async(&request, args.timeout)
            .await
            .map_err(|err| err.to_string())
    })
    .await;
    drop(client);
    session::close(node.session()).await?;
    match outcome {
        None => Ok(ExitCode::FAILURE),
        Some(Ok(response)) => {
            outln!("Result of add_two_ints: {}", response.sum);
            Ok(ExitCode::SUCCESS)
        }
        Some(Err(reason)) => {
            eprintln!("zshm add-two-ints-client: {reason}");
            Ok(ExitCode::FAILURE)
        }
    }
}
