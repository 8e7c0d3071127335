//! `zshm fibonacci-action-server`: ROS's tutorial action server. Node `fibonacci_action_server`
//! serves `/fibonacci`; each goal of order N publishes the growing sequence as feedback, one
//! step per `--period`, and succeeds with it (or ends canceled when a cancel comes), printing
//! the tutorial's lines, until SIGINT or SIGTERM.

use std::process::ExitCode;
use std::time::Duration;

use zshm::msgs::{action_tutorials_interfaces as tutorial, example_interfaces as kilted};
use zshm::ros::action::{CancelResponse, GoalResponse, ServerGoalHandle};

use crate::cli::{self, NodeArgs};
use crate::support::fibonacci::{Fibonacci, FibonacciType, MAX_ORDER};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm fibonacci-action-server`. Unlike the tutorial's, it rejects goals of an order above
/// 46 (or below 0): their sequence does not fit `int32`.
#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// Time between two feedback steps, in seconds (the tutorial's 1 s by default).
    #[arg(long, default_value = "1", value_parser = cli::seconds)]
    pub period: Duration,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Serves until a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.type_ {
        FibonacciType::Tutorial => serve::<tutorial::action::Fibonacci>(args).await,
        FibonacciType::Kilted => serve::<kilted::action::Fibonacci>(args).await,
    }
}

async fn serve<A: Fibonacci>(args: Args) -> anyhow::Result<ExitCode> {
    let node = session::open_node(&args.node, "fibonacci_action_server").await?;
    let period = args.period;
    let server = node
        .create_action_server::<A>(
            &args.action,
            |_id, goal| {
                let order = A::order(goal);
                outln!("Received goal request with order {order}");
                if (0..=MAX_ORDER).contains(&order) {
                    GoalResponse::AcceptAndExecute
                } else {
                    outln!("Rejected goal request: order must be from 0 to {MAX_ORDER}");
                    GoalResponse::Reject
                }
            },
            |_handle| {
                outln!("Received request to cancel goal");
                CancelResponse::Accept
            },
            move |handle| {
                // As the tutorial: the execution runs on a thread of its own, so the executor
                // keeps answering cancels and result requests.
                std::thread::spawn(move || execute::<A>(&handle, period));
            },
        )
        .await?;
    tracing::info!(action = %server.name(), "serving");
    shutdown::signal().await?;
    drop(server);
    session::close(node.session()).await?;
    Ok(ExitCode::SUCCESS)
}

fn execute<A: Fibonacci>(handle: &ServerGoalHandle<A>, period: Duration) {
    outln!("Executing goal...");
    let order = handle.goal().map_or(0, A::order);
    let mut sequence = vec![0, 1];
    for i in 1..usize::try_from(order).unwrap_or(0) {
        if handle.is_canceling() {
            if handle.canceled(A::result(sequence)).is_ok() {
                outln!("Goal canceled");
            }
            return;
        }
        sequence.push(sequence[i].saturating_add(sequence[i - 1]));
        outln!("Publishing feedback: {sequence:?}");
        handle.publish_feedback(A::feedback(sequence.clone()));
        std::thread::sleep(period);
    }
    if handle.is_canceling() {
        if handle.canceled(A::result(sequence)).is_ok() {
            outln!("Goal canceled");
        }
        return;
    }
    match handle.succeed(A::result(sequence)) {
        Ok(()) => outln!("Goal succeeded"),
        Err(err) => tracing::warn!("cannot end the goal: {err}"),
    }
}
