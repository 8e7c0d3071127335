//! `zshm node info NODE`: what one node announces, in `ros2 node info`'s layout: subscribers,
//! publishers, service servers and clients, action servers and clients, each `name: type`,
//! sorted. An action is shown once under its name, not as its five hidden services and topics
//! (`<action>/_action/...`), as ros2 does. Exit 1 when the graph has no such node.

use std::collections::BTreeSet;
use std::process::ExitCode;

use zshm::ros::keyexpr::ros_type_name;
use zshm::ros::liveliness::EntityKind;

use crate::cli::GraphArgs;
use crate::support::graph;
use crate::support::out::outln;

/// `zshm node info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's fully qualified name, e.g. /talker.
    pub node: String,
    /// How to ask the graph.
    #[command(flatten)]
    pub graph: GraphArgs,
}

/// The part of an action's hidden endpoint names that marks them.
const ACTION_INFIX: &str = "/_action/";

/// One section of the report: its title and its `name: type` lines.
#[derive(Debug, Default, serde::Serialize)]
struct Section {
    title: &'static str,
    entries: BTreeSet<(String, String)>,
}

/// Prints the node's endpoints.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wanted = if args.node.starts_with('/') {
        args.node.clone()
    } else {
        format!("/{}", args.node)
    };
    let snapshot = graph::snapshot(&args.graph).await?;
    if !snapshot.graph.node_names().contains(&wanted) {
        eprintln!("zshm node info: no node {wanted} in the graph (`zshm node list` shows them)");
        return Ok(ExitCode::FAILURE);
    }
    let titles = [
        "Subscribers",
        "Publishers",
        "Service Servers",
        "Service Clients",
        "Action Servers",
        "Action Clients",
    ];
    let mut sections: Vec<Section> = titles
        .iter()
        .map(|&title| Section {
            title,
            entries: BTreeSet::new(),
        })
        .collect();
    for endpoint in snapshot
        .graph
        .endpoints
        .iter()
        .filter(|e| e.node.fully_qualified_name() == wanted)
    {
        let ty = ros_type_name(&endpoint.type_name);
        let (index, entry) = match (endpoint.kind, endpoint.topic.split_once(ACTION_INFIX)) {
            // An action server serves send_goal; a client calls it. Its other parts are hidden.
            (EntityKind::ServiceServer, Some((action, "send_goal"))) => {
                (4, (action.to_owned(), action_type(&ty)))
            }
            (EntityKind::ServiceClient, Some((action, "send_goal"))) => {
                (5, (action.to_owned(), action_type(&ty)))
            }
            (_, Some(_)) | (EntityKind::Node, None) => continue,
            (EntityKind::Subscription, None) => (0, (endpoint.topic.clone(), ty)),
            (EntityKind::Publisher, None) => (1, (endpoint.topic.clone(), ty)),
            (EntityKind::ServiceServer, None) => (2, (endpoint.topic.clone(), ty)),
            (EntityKind::ServiceClient, None) => (3, (endpoint.topic.clone(), ty)),
        };
        sections[index].entries.insert(entry);
    }
    if args.graph.json {
        let json: serde_json::Map<String, serde_json::Value> = sections
            .iter()
            .map(|s| {
                let entries = s
                    .entries
                    .iter()
                    .map(|(name, ty)| serde_json::json!({"name": name, "type": ty}))
                    .collect();
                (
                    s.title.to_lowercase().replace(' ', "_"),
                    serde_json::Value::Array(entries),
                )
            })
            .collect();
        outln!("{}", serde_json::json!({"node": wanted, "endpoints": json}));
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{wanted}");
    for section in &sections {
        outln!("  {}:", section.title);
        for (name, ty) in &section.entries {
            outln!("    {name}: {ty}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `pkg/action/X_SendGoal` → `pkg/action/X`.
fn action_type(send_goal: &str) -> String {
    send_goal
        .strip_suffix("_SendGoal")
        .unwrap_or(send_goal)
        .to_owned()
}
