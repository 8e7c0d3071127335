//! `zshm topics` and `zshm nodes`: the ROS graph as the liveliness tokens announce it, for
//! zshm and rmw_zenoh nodes alike (like `ros2 topic list -t` and `ros2 node list`).

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::cli::GraphArgs;

async fn snapshot(args: &GraphArgs) -> anyhow::Result<zshm::ros::graph::Graph> {
    let session = super::session_builder(zshm::Role::Session, &args.session)
        .open()
        .await
        .context("cannot open the session")?;
    let domain = args.domain.unwrap_or_else(|| session.ros_domain_id());
    let graph = zshm::ros::graph::snapshot(&session, domain, Duration::from_secs_f64(args.timeout.max(0.0)))
        .await
        .map_err(|err| anyhow::anyhow!("cannot query the graph: {err}"))?;
    session
        .close()
        .await
        .map_err(|err| anyhow::anyhow!("closing the session: {err}"))?;
    Ok(graph)
}

/// Prints `<topic> [<type>] (<n> publishers, <m> subscribers)` per topic.
pub async fn topics(args: GraphArgs) -> anyhow::Result<ExitCode> {
    let topics = snapshot(&args).await?.topics();
    if args.json {
        println!("{}", serde_json::to_string(&topics)?);
    } else {
        for topic in topics {
            println!(
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

/// Prints one fully qualified node name per line.
pub async fn nodes(args: GraphArgs) -> anyhow::Result<ExitCode> {
    let names = snapshot(&args).await?.node_names();
    if args.json {
        println!("{}", serde_json::to_string(&names)?);
    } else {
        names.iter().for_each(|name| println!("{name}"));
    }
    Ok(ExitCode::SUCCESS)
}
