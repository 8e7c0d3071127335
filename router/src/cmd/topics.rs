//! `zshm topics`: the ROS topics as the liveliness tokens announce them, for zshm and rmw_zenoh
//! nodes alike (like `ros2 topic list -t`).

use std::process::ExitCode;

use crate::cli::GraphArgs;
use crate::support::out::outln;
use crate::support::{ZenohContext, session};

/// The graph once, through a short-lived session.
pub async fn snapshot(args: &GraphArgs) -> anyhow::Result<zshm::ros::graph::Graph> {
    let session = session::open(&args.session).await?;
    let domain = args.domain.unwrap_or_else(|| session.ros_domain_id());
    let graph = zshm::ros::graph::snapshot(&session, domain, args.timeout)
        .await
        .zenoh_context("cannot query the graph")?;
    session::close(&session).await?;
    Ok(graph)
}

/// Prints `<topic> [<type>] (<n> publishers, <m> subscribers)` per topic.
pub async fn run(args: GraphArgs) -> anyhow::Result<ExitCode> {
    let topics = snapshot(&args).await?.topics();
    if args.json {
        outln!("{}", serde_json::to_string(&topics)?);
    } else {
        for topic in topics {
            outln!(
                "{} [{}] ({} publishers, {} subscribers)",
                topic.name,
                topic.types.join(", "),
                topic.publishers,
                topic.subscribers
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
