//! `zshm param list NODE`: the node's parameter names, sorted, one per line indented as
//! `ros2 param list` prints them (`--json`: `{"node", "names"}`).

use std::process::ExitCode;

use zshm::msgs::rcl_interfaces::srv::{ListParameters, ListParameters_Request};
use zshm::ros::parameter::DEPTH_RECURSIVE;

use super::remote::{Remote, TargetArgs};
use crate::support::out::outln;

/// `zshm param list`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node and how to reach it.
    #[command(flatten)]
    pub target: TargetArgs,
}

/// Every parameter name of the node, sorted.
pub async fn names(remote: &Remote) -> anyhow::Result<Vec<String>> {
    let request = ListParameters_Request {
        prefixes: Vec::new(),
        depth: DEPTH_RECURSIVE,
    };
    let mut names = remote
        .call::<ListParameters>("list_parameters", &request)
        .await?
        .result
        .names;
    names.sort();
    Ok(names)
}

/// Prints the names.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let remote = Remote::open(&args.target).await?;
    let listed = names(&remote).await;
    let target = remote.target().to_owned();
    remote.close().await?;
    let names = listed?;
    if args.target.json {
        outln!("{}", serde_json::json!({ "node": target, "names": names }));
    } else {
        for name in names {
            outln!("  {name}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
