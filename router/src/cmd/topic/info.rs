//! `zshm topic info`: a topic's type and how many publishers and subscriptions it has; with
//! `-v`, each endpoint as `ros2 topic info -v` prints it (node, type, type hash, endpoint type,
//! GID, QoS profile).

use std::process::ExitCode;

use zshm::ros::gid::Gid;
use zshm::ros::keyexpr::ros_type_name;
use zshm::ros::liveliness::{EndpointInfo, EntityKind};
use zshm::ros::qos::{Durability, History, Liveliness, QosDuration, QosProfile, Reliability};

use crate::cli::GraphArgs;
use crate::support::graph::{self, Snapshot};
use crate::support::out::outln;

/// `zshm topic info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The topic, e.g. /chatter (a relative name is taken from the root namespace).
    pub topic: String,
    /// Each publisher and subscription: node, type, type hash, GID and QoS profile.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// How to ask the graph.
    #[command(flatten)]
    pub graph: GraphArgs,
}

/// Prints the topic's information; exit 1 when no endpoint announces it.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let topic = graph::topic_name(&args.topic)?;
    let snapshot = graph::snapshot(&args.graph).await?;
    let Some(summary) = snapshot.graph.topics().into_iter().find(|t| t.name == topic) else {
        anyhow::bail!("unknown topic '{topic}': no publisher or subscription announces it");
    };
    let mut endpoints: Vec<&EndpointInfo> = snapshot
        .graph
        .endpoints
        .iter()
        .filter(|e| e.topic == topic && matches!(e.kind, EntityKind::Publisher | EntityKind::Subscription))
        .collect();
    endpoints.sort_by_key(|e| (e.node.fully_qualified_name(), e.node.zid.clone(), e.id));
    let (publishers, subscriptions): (Vec<&EndpointInfo>, Vec<&EndpointInfo>) = endpoints
        .into_iter()
        .partition(|e| e.kind == EntityKind::Publisher);
    if args.graph.json {
        let json = |list: &[&EndpointInfo]| -> Vec<serde_json::Value> {
            list.iter().map(|e| endpoint_json(e, &snapshot)).collect()
        };
        let document = serde_json::json!({
            "name": topic,
            "types": summary.types,
            "publishers": json(&publishers),
            "subscriptions": json(&subscriptions),
        });
        outln!("{document}");
        return Ok(ExitCode::SUCCESS);
    }
    let type_text = match summary.types.as_slice() {
        [one] => one.clone(),
        many => {
            let quoted: Vec<String> = many.iter().map(|t| format!("'{t}'")).collect();
            format!("[{}]", quoted.join(", "))
        }
    };
    // With -v every line is followed by a blank one, as in ros2.
    let end = |verbose: bool| {
        if verbose {
            outln!()
        }
    };
    outln!("Type: {type_text}");
    end(args.verbose);
    outln!("Publisher count: {}", publishers.len());
    end(args.verbose);
    if args.verbose {
        for endpoint in &publishers {
            endpoint_lines(endpoint, &snapshot)
                .iter()
                .for_each(|l| outln!("{l}"));
            outln!();
        }
    }
    outln!("Subscription count: {}", subscriptions.len());
    end(args.verbose);
    if args.verbose {
        for endpoint in &subscriptions {
            endpoint_lines(endpoint, &snapshot)
                .iter()
                .for_each(|l| outln!("{l}"));
            outln!();
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The GID as ros2 prints it: bytes in hex joined by dots.
fn gid_text(endpoint: &EndpointInfo, snapshot: &Snapshot) -> String {
    let gid = snapshot.gids.get(endpoint).copied().unwrap_or(Gid([0; 16]));
    let bytes: Vec<String> = gid.0.iter().map(|b| format!("{b:02x}")).collect();
    bytes.join(".")
}

fn endpoint_kind(endpoint: &EndpointInfo) -> &'static str {
    match endpoint.kind {
        EntityKind::Publisher => "PUBLISHER",
        _ => "SUBSCRIPTION",
    }
}

/// One endpoint as rclpy's `TopicEndpointInfo` prints itself.
fn endpoint_lines(endpoint: &EndpointInfo, snapshot: &Snapshot) -> Vec<String> {
    let qos = &endpoint.qos;
    let mut lines = vec![
        format!("Node name: {}", endpoint.node.name),
        format!("Node namespace: {}", endpoint.node.namespace),
        format!("Topic type: {}", ros_type_name(&endpoint.type_name)),
        format!("Topic type hash: {}", endpoint.type_hash),
        format!("Endpoint type: {}", endpoint_kind(endpoint)),
        format!("GID: {}", gid_text(endpoint, snapshot)),
        "QoS profile:".to_owned(),
    ];
    for (key, value) in qos_fields(qos) {
        lines.push(format!("  {key}: {value}"));
    }
    lines
}

/// The QoS profile's lines, named and valued as rclpy prints them.
fn qos_fields(qos: &QosProfile) -> [(&'static str, String); 7] {
    let reliability = match qos.reliability {
        Reliability::Reliable => "RELIABLE",
        Reliability::BestEffort => "BEST_EFFORT",
    };
    let history = match qos.history {
        History::KeepLast(depth) => format!("KEEP_LAST ({depth})"),
        History::KeepAll => "KEEP_ALL".to_owned(),
        // As `ros2 topic info -v` prints an endpoint discovered through DDS.
        History::Unknown => "UNKNOWN".to_owned(),
    };
    let durability = match qos.durability {
        Durability::Volatile => "VOLATILE",
        Durability::TransientLocal => "TRANSIENT_LOCAL",
    };
    let liveliness = match qos.liveliness {
        Liveliness::Automatic => "AUTOMATIC",
        Liveliness::ManualByTopic => "MANUAL_BY_TOPIC",
    };
    [
        ("Reliability", reliability.to_owned()),
        ("History (Depth)", history),
        ("Durability", durability.to_owned()),
        ("Lifespan", duration_text(qos.lifespan)),
        ("Deadline", duration_text(qos.deadline)),
        ("Liveliness", liveliness.to_owned()),
        ("Liveliness lease duration", duration_text(qos.liveliness_lease)),
    ]
}

/// `Infinite`, or `N nanoseconds`, as rclpy's `Duration` prints itself.
fn duration_text(duration: QosDuration) -> String {
    if duration == QosDuration::INFINITE {
        return "Infinite".to_owned();
    }
    let nanoseconds = u128::from(duration.sec) * 1_000_000_000 + u128::from(duration.nsec);
    format!("{nanoseconds} nanoseconds")
}

fn endpoint_json(endpoint: &EndpointInfo, snapshot: &Snapshot) -> serde_json::Value {
    let qos: serde_json::Map<String, serde_json::Value> = qos_fields(&endpoint.qos)
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.into()))
        .collect();
    serde_json::json!({
        "node_name": endpoint.node.name,
        "node_namespace": endpoint.node.namespace,
        "topic_type": ros_type_name(&endpoint.type_name),
        "topic_type_hash": endpoint.type_hash,
        "endpoint_type": endpoint_kind(endpoint),
        "gid": gid_text(endpoint, snapshot),
        "qos": qos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TALKER: &str = "@ros2_lv/2/8b20917502ee955ac4476e0266340d5c/0/10/MP/%/%/talker/%chatter/std_msgs::msg::dds_::String_/RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18/::,7:,:,:,,";

    #[test]
    fn an_endpoint_prints_like_rclpy_with_the_gid_of_its_token() {
        let snapshot = Snapshot::from_tokens([TALKER]);
        let lines = endpoint_lines(&snapshot.graph.endpoints[0], &snapshot);
        assert_eq!(
            lines,
            [
                "Node name: talker",
                "Node namespace: /",
                "Topic type: std_msgs/msg/String",
                "Topic type hash: RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
                "Endpoint type: PUBLISHER",
                // rmw_zenoh_protocol.md's worked example: ac170f31eadcd9ff0cd86d7a17907d1c.
                "GID: ac.17.0f.31.ea.dc.d9.ff.0c.d8.6d.7a.17.90.7d.1c",
                "QoS profile:",
                "  Reliability: RELIABLE",
                "  History (Depth): KEEP_LAST (7)",
                "  Durability: VOLATILE",
                "  Lifespan: Infinite",
                "  Deadline: Infinite",
                "  Liveliness: AUTOMATIC",
                "  Liveliness lease duration: Infinite",
            ]
        );
    }

    #[test]
    fn finite_durations_are_in_nanoseconds() {
        assert_eq!(
            duration_text(QosDuration { sec: 10, nsec: 5 }),
            "10000000005 nanoseconds"
        );
    }
}
