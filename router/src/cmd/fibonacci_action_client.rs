//! `zshm fibonacci-action-client --order 10`: ROS's tutorial action client. Node
//! `fibonacci_action_client` sends one goal to `/fibonacci`, prints its feedback and its
//! result, and exits 0 when it succeeded; exit 1 with the reason when no server is there within
//! `--timeout`, or the goal was rejected, canceled or aborted.

use std::process::ExitCode;
use std::time::Duration;

use zshm::msgs::{action_tutorials_interfaces as tutorial, example_interfaces as kilted};
use zshm::ros::action::{ActionError, GoalStatus};

use crate::cli::{self, NodeArgs};
use crate::support::fibonacci::{Fibonacci, FibonacciType};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// How long the client waits for a result: a goal of order 46 at the tutorial's pace takes 46 s.
const RESULT_WAIT: Duration = Duration::from_secs(3600);

/// `zshm fibonacci-action-client`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The goal's order.
    #[arg(long, default_value = "10", allow_negative_numbers = true)]
    pub order: i32,
    /// The action name.
    #[arg(long, default_value = "fibonacci")]
    pub action: String,
    /// The action type.
    #[arg(
        long = "type",
        value_enum,
        default_value = "action_tutorials_interfaces/action/Fibonacci"
    )]
    pub type_: FibonacciType,
    /// Longest wait for the server, in seconds.
    #[arg(long, default_value = "10", value_parser = cli::seconds)]
    pub timeout: Duration,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Sends one goal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.type_ {
        FibonacciType::Tutorial => send::<tutorial::action::Fibonacci>(args).await,
        FibonacciType::Kilted => send::<kilted::action::Fibonacci>(args).await,
    }
}

async fn send<A: Fibonacci>(args: Args) -> anyhow::Result<ExitCode> {
    let node = session::open_node(&args.node, "fibonacci_action_client").await?;
    let client = node.create_action_client::<A>(&args.action).await?;
    let action = client.name().to_owned();
    let outcome = shutdown::unless_signalled(async {
        if !client.wait_for_action_server(args.timeout).await {
            return Err(format!(
                "action server {action} not available within {:?}",
                args.timeout
            ));
        }
        outln!("Sending goal");
        let goal = client
            .send_goal(A::goal(args.order), |feedback| {
                outln!("Received feedback: {:?}", A::feedback_sequence(&feedback));
            })
            .await;
        let goal = match goal {
            Ok(goal) => goal,
            Err(ActionError::Rejected { .. }) => {
                outln!("Goal rejected :(");
                return Err("the server rejected the goal".to_owned());
            }
            Err(err) => return Err(err.to_string()),
        };
        outln!("Goal accepted :)");
        let result = goal
            .get_result(RESULT_WAIT)
            .await
            .map_err(|err| err.to_string())?;
        match result.status {
            GoalStatus::Succeeded => {
                outln!("Result: {:?}", A::result_sequence(&result.result));
                Ok(())
            }
            status => Err(format!("the goal ended {status}")),
        }
    })
    .await;
    drop(client);
    session::close(node.session()).await?;
    match outcome {
        None => Ok(ExitCode::FAILURE),
        Some(Ok(())) => Ok(ExitCode::SUCCESS),
        Some(Err(reason)) => {
            eprintln!("zshm fibonacci-action-client: {reason}");
            Ok(ExitCode::FAILURE)
        }
    }
}
