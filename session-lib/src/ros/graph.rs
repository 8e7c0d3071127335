//! The ROS graph as the liveliness tokens show it: what `ros2 node list` and
//! `ros2 topic list -t` print, for zshm and rmw_zenoh nodes alike, once ([`snapshot`]) or live
//! ([`GraphWatch`]: the tokens alive now, and each one as it comes and goes).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::keyexpr::ros_type_name;
use super::liveliness::{self, EndpointInfo, EntityKind, NodeInfo, Token};
use crate::session::Session;

/// One topic: its types and how many publishers and subscriptions it has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TopicSummary {
    /// Fully qualified name.
    pub name: String,
    /// ROS type names (`pkg/msg/Type`); more than one means a type mismatch in the graph.
    pub types: Vec<String>,
    /// Publishers.
    pub publishers: usize,
    /// Subscriptions.
    pub subscribers: usize,
}

/// One service: its types and how many servers and clients it has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ServiceSummary {
    /// Fully qualified name.
    pub name: String,
    /// ROS type names (`pkg/srv/Type`); more than one means a type mismatch in the graph.
    pub types: Vec<String>,
    /// Servers.
    pub servers: usize,
    /// Clients.
    pub clients: usize,
}

/// One action, from its `<action>/_action/send_goal` service: its types and the nodes that serve
/// it and that send it goals (what `ros2 action info` shows).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ActionSummary {
    /// Fully qualified action name (`/fibonacci`).
    pub name: String,
    /// ROS type names (`pkg/action/Type`); more than one means a type mismatch in the graph.
    pub types: Vec<String>,
    /// Fully qualified names of the nodes with a server, one per server, sorted.
    pub servers: Vec<String>,
    /// Fully qualified names of the nodes with a client, one per client, sorted.
    pub clients: Vec<String>,
}

/// Every node and endpoint announced in one domain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// Nodes, including those only known from their endpoints' tokens.
    pub nodes: Vec<NodeInfo>,
    /// Publishers, subscriptions, services and clients.
    pub endpoints: Vec<EndpointInfo>,
}

impl Graph {
    /// Builds the graph from token key expressions; tokens that do not parse are skipped.
    pub fn from_tokens<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Self {
        let mut nodes = BTreeMap::new();
        let mut endpoints = Vec::new();
        for token in tokens {
            match liveliness::parse_token(token) {
                Ok(Token::Node(node)) => {
                    nodes.insert((node.zid.clone(), node.nid), node);
                }
                Ok(Token::Endpoint(endpoint)) => {
                    // An endpoint token also announces its node (rmw_zenoh's graph cache does
                    // the same), so arrival order does not matter.
                    nodes
                        .entry((endpoint.node.zid.clone(), endpoint.node.nid))
                        .or_insert_with(|| endpoint.node.clone());
                    endpoints.push(endpoint);
                }
                Err(err) => tracing::debug!("{err}"),
            }
        }
        Self {
            nodes: nodes.into_values().collect(),
            endpoints,
        }
    }

    /// Node names as `ros2 node list` prints them, sorted.
    pub fn node_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.nodes.iter().map(NodeInfo::fully_qualified_name).collect();
        names.sort();
        names
    }

    /// Services (servers and clients), sorted by name, as `ros2 service list -t` shows them.
    pub fn services(&self) -> Vec<ServiceSummary> {
        let mut services: BTreeMap<&str, ServiceSummary> = BTreeMap::new();
        for endpoint in &self.endpoints {
            let server = match endpoint.kind {
                EntityKind::ServiceServer => true,
                EntityKind::ServiceClient => false,
                _ => continue,
            };
            let entry = services.entry(&endpoint.topic).or_insert_with(|| ServiceSummary {
                name: endpoint.topic.clone(),
                types: Vec::new(),
                servers: 0,
                clients: 0,
            });
            let ros_type = ros_type_name(&endpoint.type_name);
            if !entry.types.contains(&ros_type) {
                entry.types.push(ros_type);
                entry.types.sort();
            }
            if server {
                entry.servers += 1;
            } else {
                entry.clients += 1;
            }
        }
        services.into_values().collect()
    }

    /// Actions, sorted by name: an action server serves `<action>/_action/send_goal`, an
    /// action client calls it (as rcl_action's graph functions find them).
    pub fn actions(&self) -> Vec<ActionSummary> {
        let mut actions: BTreeMap<&str, ActionSummary> = BTreeMap::new();
        for endpoint in &self.endpoints {
            let Some(action) = zshm_protocol::action::action_of_send_goal(&endpoint.topic) else {
                continue;
            };
            let server = match endpoint.kind {
                EntityKind::ServiceServer => true,
                EntityKind::ServiceClient => false,
                _ => continue,
            };
            let entry = actions.entry(action).or_insert_with(|| ActionSummary {
                name: action.to_owned(),
                types: Vec::new(),
                servers: Vec::new(),
                clients: Vec::new(),
            });
            let send_goal = ros_type_name(&endpoint.type_name);
            let ros_type = send_goal
                .strip_suffix("_SendGoal")
                .unwrap_or(&send_goal)
                .to_owned();
            if !entry.types.contains(&ros_type) {
                entry.types.push(ros_type);
                entry.types.sort();
            }
            let node = endpoint.node.fully_qualified_name();
            if server {
                entry.servers.push(node);
                entry.servers.sort();
            } else {
                entry.clients.push(node);
                entry.clients.sort();
            }
        }
        actions.into_values().collect()
    }

    /// Topics (not services), sorted by name.
    pub fn topics(&self) -> Vec<TopicSummary> {
        let mut topics: BTreeMap<&str, TopicSummary> = BTreeMap::new();
        for endpoint in &self.endpoints {
            if !matches!(endpoint.kind, EntityKind::Publisher | EntityKind::Subscription) {
                continue;
            }
            let entry = topics.entry(&endpoint.topic).or_insert_with(|| TopicSummary {
                name: endpoint.topic.clone(),
                types: Vec::new(),
                publishers: 0,
                subscribers: 0,
            });
            let ros_type = ros_type_name(&endpoint.type_name);
            if !entry.types.contains(&ros_type) {
                entry.types.push(ros_type);
            }
            match endpoint.kind {
                EntityKind::Publisher => entry.publishers += 1,
                _ => entry.subscribers += 1,
            }
        }
        topics.into_values().collect()
    }
}

/// Asks the network for every token of `domain` (as rmw_zenoh does at start-up with
/// `liveliness_get("@ros2_lv/<domain>/**")`) until two rounds in a row agree, or `timeout`.
///
/// One query right after a session opens can come back empty: the session may not have learnt
/// its routes to the token holders yet. Repeating until the answer is stable gives the whole
/// graph; an empty graph costs the full `timeout`.
pub async fn snapshot(session: &Session, domain: u32, timeout: Duration) -> Result<Graph, zenoh::Error> {
    let tokens = snapshot_tokens(session, domain, timeout).await?;
    Ok(Graph::from_tokens(tokens.iter().map(String::as_str)))
}

/// The token strings behind [`snapshot`], for what needs more than the parsed graph: an entity's
/// GID is the hash of its exact token ([`Gid::of_token`](super::gid::Gid::of_token)), which a
/// token rebuilt from the parsed fields may not reproduce (extensions, non-default encodings).
pub async fn snapshot_tokens(
    session: &Session,
    domain: u32,
    timeout: Duration,
) -> Result<BTreeSet<String>, zenoh::Error> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut previous: Option<BTreeSet<String>> = None;
    loop {
        let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
        let tokens = query_tokens(session, domain, remaining.max(Duration::from_millis(100))).await?;
        let stable = previous.as_ref() == Some(&tokens) && !tokens.is_empty();
        if stable || tokio::time::Instant::now() >= deadline {
            return Ok(tokens);
        }
        previous = Some(tokens);
        tokio::time::sleep(ROUND_PAUSE.min(remaining)).await;
    }
}

/// One graph query, without waiting for the answer to be stable (for scrapes, where node names
/// are a label and a partial answer is better than a slow one).
pub async fn snapshot_once(session: &Session, domain: u32, timeout: Duration) -> Result<Graph, zenoh::Error> {
    let tokens = query_tokens(session, domain, timeout).await?;
    Ok(Graph::from_tokens(tokens.iter().map(String::as_str)))
}

/// Pause between two graph queries.
const ROUND_PAUSE: Duration = Duration::from_millis(50);

async fn query_tokens(
    session: &Session,
    domain: u32,
    timeout: Duration,
) -> Result<BTreeSet<String>, zenoh::Error> {
    tokens_under(session.zenoh(), &liveliness::domain_tokens(domain), timeout).await
}

/// The liveliness tokens alive under `key`, asked once (a query; [`GraphWatch`] follows them
/// instead), on any zenoh session: the doctor asks a router with a client session of its own.
pub async fn tokens_under(
    session: &zenoh::Session,
    key: &str,
    timeout: Duration,
) -> Result<BTreeSet<String>, zenoh::Error> {
    let replies = session.liveliness().get(key).timeout(timeout).await?;
    let mut tokens = BTreeSet::new();
    while let Ok(reply) = replies.recv_async().await {
        if let Ok(sample) = reply.result() {
            tokens.insert(sample.key_expr().as_str().to_owned());
        }
    }
    Ok(tokens)
}

/// One change of the graph: a liveliness token appeared or went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphEvent {
    /// The token's key expression, exactly as declared (an entity's GID is the hash of it).
    pub token: String,
    /// `true`: it appeared (or was there when the watch started); `false`: it went.
    pub alive: bool,
}

impl GraphEvent {
    /// The node or endpoint the token announces, if it is a ROS token.
    pub fn entity(&self) -> Result<Token, liveliness::TokenError> {
        liveliness::parse_token(&self.token)
    }
}

/// A live view of the liveliness tokens under one key expression: a domain's whole graph
/// ([`liveliness::domain_tokens`]), one topic's publishers ([`liveliness::endpoints_key`]) or
/// any other. It holds the tokens alive now ([`GraphWatch::tokens`], [`GraphWatch::graph`]),
/// wakes [`GraphWatch::changed`] at each change, and hands each change on as a [`GraphEvent`]
/// where asked: to a callback ([`GraphWatch::with_callback`], run on zenoh's thread, for what
/// must react before the next message) or a stream ([`GraphWatch::with_events`]). The tokens
/// alive when it starts arrive as events too, so one loop serves what was there and what comes.
///
/// Dropping it stops the watch.
///
/// ```no_run
/// # async fn run(session: &zshm::Session) -> Result<(), zenoh::Error> {
/// use zshm::ros::graph::GraphWatch;
/// use zshm::ros::liveliness::{self, Token};
///
/// let (_watch, events) = GraphWatch::with_events(session, liveliness::domain_tokens(0)).await?;
/// while let Some(event) = events.next().await {
///     if let Ok(Token::Node(node)) = event.entity() {
///         let state = if event.alive { "up" } else { "gone" };
///         println!("{} {state}", node.fully_qualified_name());
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct GraphWatch {
    live: Arc<Mutex<BTreeSet<String>>>,
    changed: Arc<tokio::sync::Notify>,
    _subscriber: zenoh::pubsub::Subscriber<()>,
}

/// A [`GraphWatch`]'s changes, in the order they happened.
#[derive(Debug)]
pub struct GraphEvents(flume::Receiver<GraphEvent>);

impl GraphEvents {
    /// The next change; `None` once the watch is dropped.
    pub async fn next(&self) -> Option<GraphEvent> {
        self.0.recv_async().await.ok()
    }
}

impl GraphWatch {
    /// Watches the tokens under `key`.
    pub async fn start(session: &Session, key: impl Into<String>) -> Result<Self, zenoh::Error> {
        Self::with_callback(session, key, |_| {}).await
    }

    /// Watches the tokens under `key` and calls `on_change` with each change, on zenoh's
    /// thread, after the watch's own view took it in: keep it short, and never block in it.
    pub async fn with_callback(
        session: &Session,
        key: impl Into<String>,
        on_change: impl Fn(&GraphEvent) + Send + Sync + 'static,
    ) -> Result<Self, zenoh::Error> {
        Self::watch(session.zenoh(), key.into(), on_change).await
    }

    /// Watches the tokens under `key` on a plain zenoh session: for a program that runs one
    /// beside zshm's, as `zshm bench` does to measure plain zenoh.
    pub async fn on_zenoh(session: &zenoh::Session, key: impl Into<String>) -> Result<Self, zenoh::Error> {
        Self::watch(session, key.into(), |_| {}).await
    }

    async fn watch(
        session: &zenoh::Session,
        key: String,
        on_change: impl Fn(&GraphEvent) + Send + Sync + 'static,
    ) -> Result<Self, zenoh::Error> {
        let live: Arc<Mutex<BTreeSet<String>>> = Arc::default();
        let changed = Arc::new(tokio::sync::Notify::new());
        let (tokens, notify) = (live.clone(), changed.clone());
        let subscriber = session
            .liveliness()
            .declare_subscriber(key)
            .history(true)
            .callback(move |sample| {
                let event = GraphEvent {
                    token: sample.key_expr().as_str().to_owned(),
                    alive: sample.kind() == zenoh::sample::SampleKind::Put,
                };
                {
                    let mut tokens = tokens.lock().unwrap_or_else(|e| e.into_inner());
                    if event.alive {
                        tokens.insert(event.token.clone());
                    } else {
                        tokens.remove(&event.token);
                    }
                }
                on_change(&event);
                notify.notify_one();
            })
            .await?;
        Ok(Self {
            live,
            changed,
            _subscriber: subscriber,
        })
    }

    /// Watches the tokens under `key`, each change also handed on through the returned
    /// stream (unbounded: changes are few and small, and none may be lost; dropping the stream
    /// stops the handing on).
    pub async fn with_events(
        session: &Session,
        key: impl Into<String>,
    ) -> Result<(Self, GraphEvents), zenoh::Error> {
        let (tx, rx) = flume::unbounded();
        let watch = Self::with_callback(session, key, move |event| {
            let _ = tx.send(event.clone());
        })
        .await?;
        Ok((watch, GraphEvents(rx)))
    }

    /// The tokens alive now.
    pub fn tokens(&self) -> BTreeSet<String> {
        self.live.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The nodes and endpoints the tokens alive now announce.
    pub fn graph(&self) -> Graph {
        let tokens = self.live.lock().unwrap_or_else(|e| e.into_inner());
        Graph::from_tokens(tokens.iter().map(String::as_str))
    }

    /// Waits for the next change (one that came since the last call counts).
    pub async fn changed(&self) {
        self.changed.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_and_nodes_are_summarised_like_ros2_cli() {
        let tokens = [
            "@ros2_lv/0/aa/0/0/NN/%/%/talker",
            "@ros2_lv/0/aa/0/1/MP/%/%/talker/%chatter/std_msgs::msg::dds_::String_/RIHS01_df66/::,10:,:,:,,",
            "@ros2_lv/0/bb/0/1/MS/%/%robot1/listener/%chatter/std_msgs::msg::dds_::String_/RIHS01_df66/::,10:,:,:,,",
            "@ros2_lv/0/bb/0/2/MS/%/%robot1/listener/%chatter/std_msgs::msg::dds_::String_/RIHS01_df66/::,10:,:,:,,",
            "@ros2_lv/0/bb/0/3/SS/%/%robot1/listener/%add/example_interfaces::srv::dds_::AddTwoInts_/RIHS01_e1/::,10:,:,:,,",
            "@ros2_lv/0/broken",
        ];
        let graph = Graph::from_tokens(tokens);
        assert_eq!(graph.node_names(), ["/robot1/listener", "/talker"]);
        assert_eq!(
            graph.topics(),
            [TopicSummary {
                name: "/chatter".into(),
                types: vec!["std_msgs/msg/String".into()],
                publishers: 1,
                subscribers: 2
            }]
        );
    }
}
