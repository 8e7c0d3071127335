//! The ROS graph for the `topic` commands: one snapshot with each endpoint's GID (the hash of its
//! exact token), and the wait for a topic's publishers that `topic hz` and `topic bw` start with.

use std::collections::HashMap;
use std::time::Duration;

use zshm::ros::gid::Gid;
use zshm::ros::graph::Graph;
use zshm::ros::liveliness::{self, EndpointInfo, EntityKind, Token};

use super::{ZenohContext, session, shutdown};
use crate::cli::GraphArgs;

/// The graph once, with the GID of every endpoint.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Nodes and endpoints.
    pub graph: Graph,
    /// Each endpoint's GID, computed from the token it was parsed from.
    pub gids: HashMap<EndpointInfo, Gid>,
}

impl Snapshot {
    /// Builds the graph and the GIDs from token key expressions.
    pub fn from_tokens<'a>(tokens: impl IntoIterator<Item = &'a str> + Clone) -> Self {
        let gids = tokens
            .clone()
            .into_iter()
            .filter_map(|token| match liveliness::parse_token(token) {
                Ok(Token::Endpoint(endpoint)) => Some((endpoint, Gid::of_token(token))),
                _ => None,
            })
            .collect();
        Self {
            graph: Graph::from_tokens(tokens),
            gids,
        }
    }
}

/// The graph once, through a short-lived session.
pub async fn snapshot(args: &GraphArgs) -> anyhow::Result<Snapshot> {
    let session = session::open(&args.session).await?;
    let domain = args.domain.unwrap_or_else(|| session.ros_domain_id());
    let tokens = zshm::ros::graph::snapshot_tokens(&session, domain, args.timeout)
        .await
        .zenoh_context("cannot query the graph")?;
    session::close(&session).await?;
    Ok(Snapshot::from_tokens(tokens.iter().map(String::as_str)))
}

/// How long one look at the graph waits for answers while waiting for publishers.
const LOOK: Duration = Duration::from_secs(1);

/// Waits until `topic` has at least one publisher and returns the publishers; `None` when a
/// signal comes first. Says once on stderr that it is waiting, as `ros2 topic hz` does.
pub async fn wait_for_publishers(
    session: &zshm::Session,
    domain: u32,
    topic: &str,
) -> anyhow::Result<Option<Vec<EndpointInfo>>> {
    let mut warned = false;
    loop {
        let look = zshm::ros::graph::snapshot_tokens(session, domain, LOOK);
        let Some(tokens) = shutdown::unless_signalled(look).await else {
            return Ok(None);
        };
        let tokens = tokens.zenoh_context("cannot query the graph")?;
        let publishers: Vec<EndpointInfo> = Graph::from_tokens(tokens.iter().map(String::as_str))
            .endpoints
            .into_iter()
            .filter(|e| e.kind == EntityKind::Publisher && e.topic == topic)
            .collect();
        if !publishers.is_empty() {
            return Ok(Some(publishers));
        }
        if !warned {
            eprintln!("WARNING: topic [{topic}] does not appear to be published yet");
            warned = true;
        }
    }
}

/// The data key expressions that reach every one of `publishers`: one per type name and hash.
pub fn publisher_keys(domain: u32, topic: &str, publishers: &[EndpointInfo]) -> Vec<String> {
    let mut keys: Vec<String> = publishers
        .iter()
        .map(|p| {
            format!(
                "{domain}/{}/{}/{}",
                topic.trim_matches('/'),
                p.type_name,
                p.type_hash
            )
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Expands a topic name given on the command line to its fully qualified form (relative names
/// are taken from the root namespace, as `ros2 topic` does).
pub fn topic_name(topic: &str) -> Result<String, zshm::ros::names::NameError> {
    zshm::ros::names::expand_topic_name(topic, "zshm", "/")
}

/// True for a hidden topic or service: one of its name's parts starts with `_`
/// (`/fibonacci/_action/feedback`), which `ros2 topic list` leaves out unless asked.
pub fn is_hidden(name: &str) -> bool {
    name.split('/').any(|part| part.starts_with('_'))
}
