//! `zshm foxglove`: a Foxglove WebSocket endpoint (the `foxglove` crate's server) showing every
//! ROS topic of the graph as a channel: message encoding `cdr`, schema encoding `ros2msg`, the
//! schema text the concatenated definition from zshm's interface packages (as `bag record`
//! writes it).
//!
//! * The graph comes from liveliness tokens (publishers and subscriptions of other nodes); a
//!   channel is advertised when a topic's first endpoint appears and removed with its last.
//! * zenoh is subscribed for a topic only while at least one client subscribes to its channel,
//!   and undeclared when the last one leaves, so an idle endpoint costs the robot nothing.
//! * `front.rs`: the socket clients connect to (handshake deadline, shedding of half-open
//!   connections, and a bounded per-client queue that drops the oldest and counts it).
//! * `frames.rs`: cutting the server's stream into WebSocket frames for that queue.
//!
//! * `services.rs`: the protocol's `services` capability (every service server of the graph).
//! * `parameters.rs`: its `parameters` capability (every node's parameters, live).
//!
//! Actions are not offered: the protocol has no action capability (foxglove_bridge offers an
//! action's services and topics, and so does this, as they are in the graph).

mod frames;
mod front;
mod parameters;
mod services;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use foxglove::websocket::{Capability, ChannelView, Client, ServerListener};
use foxglove::{RawChannel, Schema};
use zshm::msgs::rcl_interfaces::msg::ParameterEvent;
use zshm::ros::dynamic::{DynamicSubscription, DynamicType};
use zshm::ros::graph::GraphWatch;
use zshm::ros::liveliness::{self, EndpointInfo, EntityKind, Token};
use zshm::ros::parameter::events::{PARAMETER_EVENTS_TOPIC, parameter_events_qos};
use zshm::ros::qos::QosProfile;

use crate::cli::{NodeArgs, SessionArgs};
use crate::support::out::outln;
use crate::support::{definitions, session, shutdown};

/// `zshm foxglove`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where Foxglove connects (default 127.0.0.1:8765: this machine only; port 0: any free
    /// port). Any other address lets everyone who reaches it read every topic.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    pub listen: SocketAddr,
    /// Data messages waiting for one client at most (default 64); beyond that the oldest is
    /// dropped and counted, so a slow client never slows the robot or the other clients.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub client_queue: u32,
    /// Bytes of data messages waiting for one client at most (default 64 MiB; the newest
    /// message is always kept).
    #[arg(long, default_value_t = 64 << 20, value_name = "BYTES")]
    pub client_queue_bytes: usize,
    /// Config file, endpoints and shared memory of the zenoh session.
    #[command(flatten)]
    pub session: BridgeSessionArgs,
    /// ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
}

/// The session flags without `-l/--listen`: here `--listen` is the WebSocket address, as the
/// Foxglove tools name it, and a viewer has no reason to accept zenoh connections itself.
#[derive(Debug, clap::Args)]
pub struct BridgeSessionArgs {
    /// Config file (JSON5). Default: $ZENOH_SESSION_CONFIG_URI, else the built-in
    /// configs/SESSION_CONFIG.json5.
    #[arg(short = 'c', long = "config", value_name = "PATH")]
    pub config: Option<std::path::PathBuf>,
    /// Endpoint to connect to, e.g. tcp/127.0.0.1:7447 (repeatable; replaces the config's list).
    #[arg(short = 'e', long = "connect", value_name = "ENDPOINT")]
    pub connect: Vec<String>,
    /// Disable shared memory whatever the config says (TCP only; the lane too).
    #[arg(long)]
    pub no_shm: bool,
    /// Disable the same-host lane between zshm nodes.
    #[arg(long)]
    pub no_lane: bool,
}

/// What the server tells the command loop, from its callbacks (which must not block, so they
/// only send; a client subscribes to each channel at most once, which bounds these).
#[derive(Debug)]
enum Event {
    Subscribed(String),
    Unsubscribed(String),
    /// Parameter names a first client subscribed to.
    ParametersSubscribed(Vec<String>),
    /// Parameter names the last client unsubscribed from.
    ParametersUnsubscribed(Vec<String>),
}

struct Listener {
    events: tokio::sync::mpsc::UnboundedSender<Event>,
}

impl ServerListener for Listener {
    fn on_subscribe(&self, _client: Client, channel: ChannelView) {
        let _ = self.events.send(Event::Subscribed(channel.topic().to_owned()));
    }

    fn on_unsubscribe(&self, _client: Client, channel: ChannelView) {
        let _ = self.events.send(Event::Unsubscribed(channel.topic().to_owned()));
    }

    fn on_parameters_subscribe(&self, names: Vec<String>) {
        let _ = self.events.send(Event::ParametersSubscribed(names));
    }

    fn on_parameters_unsubscribe(&self, names: Vec<String>) {
        let _ = self.events.send(Event::ParametersUnsubscribed(names));
    }
}

/// One topic of the graph and its channel.
struct Topic {
    channel: Arc<RawChannel>,
    ty: DynamicType,
    /// The QoS the zenoh subscription asks for: a publisher's when one is known.
    qos: QosProfile,
    /// Liveliness tokens of the endpoints that make the topic exist.
    endpoints: HashSet<String>,
    /// Clients subscribed to the channel.
    clients: usize,
    subscription: Option<DynamicSubscription>,
}

/// Serves until SIGINT or SIGTERM.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen for Foxglove on {}", args.listen))?;
    let addr = listener.local_addr()?;
    let node_args = NodeArgs {
        session: SessionArgs {
            config: args.session.config.clone(),
            listen: Vec::new(),
            connect: args.session.connect.clone(),
            no_shm: args.session.no_shm,
            no_lane: args.session.no_lane,
        },
        namespace: "/".into(),
        domain: args.domain,
        ros_args: Vec::new(),
    };
    let node = Arc::new(session::open_node(&node_args, "zshm_foxglove").await?);
    let domain = node.info().domain;
    let parameter_nodes = parameters::ParameterNodes::default();
    let parameter_handler = parameters::Parameters {
        node: node.clone(),
        nodes: parameter_nodes.clone(),
        runtime: tokio::runtime::Handle::current(),
    };

    let context = foxglove::Context::new();
    let (events_tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let server = foxglove::WebSocketServer::new()
        .name("zshm")
        .context(&context)
        // Only the front connects here (loopback, an ephemeral port).
        .bind("127.0.0.1", 0)
        // The front reads this server's sockets as fast as they are written, so this backlog
        // only fills if this process runs out of CPU; see front.rs.
        .message_backlog_size(256)
        .capabilities([Capability::Services])
        .supported_encodings(["cdr"])
        .parameter_handler(Arc::new(parameter_handler))
        .listener(Arc::new(Listener { events: events_tx }))
        .start()
        .await
        .context("cannot start the Foxglove WebSocket server")?;
    let upstream = SocketAddr::from(([127, 0, 0, 1], server.port()));
    let limits = front::QueueLimits {
        messages: args.client_queue as usize,
        bytes: args.client_queue_bytes,
    };
    let totals = Arc::new(front::Totals::default());
    let front = front::serve(listener, upstream, limits, totals.clone());

    let (graph, graph_events) = GraphWatch::with_events(node.session(), liveliness::domain_tokens(domain))
        .await
        .map_err(|e| anyhow::anyhow!("cannot watch the graph: {e}"))?;
    outln!("foxglove endpoint on ws://{addr} (domain {domain})");

    let mut topics: HashMap<String, Topic> = HashMap::new();
    let mut token_topics: HashMap<String, String> = HashMap::new();
    let mut warned: HashSet<String> = HashSet::new();
    let mut services = services::Services::default();
    // Parameter names clients subscribed to, and what hears their changes meanwhile.
    let mut watched_parameters: HashSet<String> = HashSet::new();
    let mut parameter_events = None;
    let (changes_tx, mut changes) = tokio::sync::mpsc::unbounded_channel::<ParameterEvent>();
    // Messages received from zenoh and handed to the server, over every topic since start.
    let received = Arc::new(AtomicU64::new(0));
    let stop = loop {
        tokio::select! {
            graph_event = graph_events.next() => {
                let Some(graph_event) = graph_event else { break "the graph watch ended" };
                let key = graph_event.token;
                if !graph_event.alive {
                    if let Some(service) = services.token_gone(&server, &key)
                        && let Some(target) = parameters::parameter_node(&service)
                    {
                        parameter_nodes.lock().unwrap_or_else(|e| e.into_inner()).remove(target);
                    }
                    let Some(name) = token_topics.remove(&key) else { continue };
                    let gone = topics.get_mut(&name).is_some_and(|t| {
                        t.endpoints.remove(&key);
                        t.endpoints.is_empty()
                    });
                    if gone && let Some(topic) = topics.remove(&name) {
                        // Clients subscribed to it hear an unadvertise; the subscription goes
                        // with the entry.
                        topic.channel.close();
                    }
                    continue;
                }
                let Ok(Token::Endpoint(endpoint)) = liveliness::parse_token(&key) else { continue };
                if endpoint.node.zid == node.session().zid() && endpoint.node.nid == node.info().nid {
                    continue;
                }
                if endpoint.kind == EntityKind::ServiceServer {
                    services.server_appeared(&server, &node, &endpoint, &key);
                    if let Some(target) = parameters::parameter_node(&endpoint.topic) {
                        parameter_nodes.lock().unwrap_or_else(|e| e.into_inner()).insert(target.to_owned());
                    }
                    continue;
                }
                if !matches!(endpoint.kind, EntityKind::Publisher | EntityKind::Subscription) {
                    continue;
                }
                if let Some(topic) = topics.get_mut(&endpoint.topic) {
                    if topic.ty.dds_name != endpoint.type_name {
                        if warned.insert(format!("type {}", endpoint.topic)) {
                            tracing::warn!(topic = %endpoint.topic, "endpoints disagree on the type ({} and {}): the channel keeps the first (logged once)", topic.ty.dds_name, endpoint.type_name);
                        }
                        continue;
                    }
                    if endpoint.kind == EntityKind::Publisher {
                        topic.qos = subscription_qos(&endpoint);
                    }
                    topic.endpoints.insert(key.clone());
                } else {
                    match advertise(&context, &endpoint) {
                        Ok(mut topic) => {
                            topic.endpoints.insert(key.clone());
                            topics.insert(endpoint.topic.clone(), topic);
                        }
                        Err(err) => {
                            if warned.insert(format!("channel {}", endpoint.topic)) {
                                tracing::warn!(topic = %endpoint.topic, "not offered to Foxglove: {err:#} (logged once)");
                            }
                            continue;
                        }
                    }
                }
                token_topics.insert(key, endpoint.topic.clone());
            }
            event = events.recv() => {
                let Some(event) = event else { break "the Foxglove server stopped" };
                match event {
                    Event::Subscribed(name) => {
                        let Some(topic) = topics.get_mut(&name) else {
                            // Its publishers left between the advertisement and the subscribe:
                            // the client hears the channel's unadvertise.
                            tracing::warn!(topic = %name, "a client subscribed to a channel no longer offered (its publishers left)");
                            continue;
                        };
                        topic.clients += 1;
                        if topic.subscription.is_none() {
                            match subscribe_noting_delay(&node, &name, topic, &received).await {
                                Ok(subscription) => topic.subscription = Some(subscription),
                                Err(err) => tracing::warn!(topic = %name, "cannot subscribe for Foxglove: {err:#}"),
                            }
                        }
                        outln!("{name}: {} client(s) subscribed", topic.clients);
                    }
                    Event::Unsubscribed(name) => {
                        // Also sent for a channel just removed from the graph: gone already.
                        let Some(topic) = topics.get_mut(&name) else { continue };
                        topic.clients = topic.clients.saturating_sub(1);
                        if topic.clients == 0 {
                            topic.subscription = None;
                        }
                        outln!("{name}: {} client(s) subscribed", topic.clients);
                    }
                    Event::ParametersSubscribed(names) => {
                        watched_parameters.extend(names);
                        if parameter_events.is_none() {
                            let changes = changes_tx.clone();
                            let subscription = node
                                .create_subscription::<ParameterEvent>(PARAMETER_EVENTS_TOPIC, parameter_events_qos(), move |event| {
                                    let _ = changes.send(event.decode());
                                })
                                .await;
                            match subscription {
                                Ok(subscription) => parameter_events = Some(subscription),
                                Err(err) => tracing::warn!("parameter changes not shown to Foxglove: {err}"),
                            }
                        }
                    }
                    Event::ParametersUnsubscribed(names) => {
                        for name in names {
                            watched_parameters.remove(&name);
                        }
                        if watched_parameters.is_empty() {
                            parameter_events = None;
                        }
                    }
                }
            }
            change = changes.recv() => {
                // The server sends each value only to the clients subscribed to its name.
                if let Some(event) = change {
                    server.publish_parameter_values(parameters::event_parameters(&event));
                }
            }
            signal = shutdown::signal() => break signal?,
        }
    };
    tracing::info!("stopping: {stop}");
    front.abort();
    let _ = front.await;
    server.stop().wait().await;
    let received = received.load(Ordering::Relaxed);
    drop(topics);
    drop(parameter_events);
    drop(graph);
    session::close(node.session()).await?;
    outln!(
        "foxglove: {} clients, {received} messages received from zenoh, {} sent to clients, {} dropped for slow clients",
        totals.clients.load(Ordering::Relaxed),
        totals.sent.load(Ordering::Relaxed),
        totals.dropped.load(Ordering::Relaxed),
    );
    Ok(ExitCode::SUCCESS)
}

/// The channel of `endpoint`'s topic, with the schema from the shipped interface packages.
fn advertise(context: &Arc<foxglove::Context>, endpoint: &EndpointInfo) -> anyhow::Result<Topic> {
    let type_name = zshm::ros::keyexpr::ros_type_name(&endpoint.type_name);
    let definition = match definitions::shipped_definition(&type_name) {
        Some((definition, _)) => definition,
        None => {
            // Foxglove shows the topic and its type; it cannot decode the messages.
            tracing::warn!(
                topic = %endpoint.topic,
                "type {type_name} is not in zshm's interface packages: offered with an empty definition"
            );
            String::new()
        }
    };
    let channel = context
        .channel_builder(endpoint.topic.clone())
        .message_encoding("cdr")
        .schema(Schema::new(type_name, "ros2msg", definition.into_bytes()))
        .build_raw()
        .context("cannot create the channel")?;
    Ok(Topic {
        channel,
        ty: DynamicType {
            dds_name: endpoint.type_name.clone(),
            hash: endpoint.type_hash.clone(),
        },
        qos: if endpoint.kind == EntityKind::Publisher {
            subscription_qos(endpoint)
        } else {
            QosProfile::default()
        },
        endpoints: HashSet::new(),
        clients: 0,
        subscription: None,
    })
}

/// What a subscription asks of `publisher`: its reliability and durability (a latched
/// TRANSIENT_LOCAL topic shows its last message at once), as `bag record` does.
fn subscription_qos(publisher: &EndpointInfo) -> QosProfile {
    QosProfile {
        history: publisher.qos.history,
        ..QosProfile::default()
    }
    .durability(publisher.qos.durability)
    .reliability(publisher.qos.reliability)
}

/// Subscribes on zenoh; each sample goes to the clients subscribed to the channel. The
/// server's `log` only tries to queue, so zenoh's callback never waits for a client.
/// How long a subscription for Foxglove may take before the wait is logged.
const SLOW_SUBSCRIBE: std::time::Duration = std::time::Duration::from_secs(5);

/// [`subscribe`], with a warning when zenoh takes longer than [`SLOW_SUBSCRIBE`] to declare the
/// subscription (its routing is busy or stuck: nothing else of the endpoint moves meanwhile).
async fn subscribe_noting_delay(
    node: &zshm::ros::Node,
    name: &str,
    topic: &Topic,
    received: &Arc<AtomicU64>,
) -> anyhow::Result<DynamicSubscription> {
    let subscribing = subscribe(node, name, topic, received);
    tokio::pin!(subscribing);
    tokio::select! {
        result = &mut subscribing => return result,
        () = tokio::time::sleep(SLOW_SUBSCRIBE) => {}
    }
    tracing::warn!(topic = %name, "subscribing for Foxglove has taken {SLOW_SUBSCRIBE:?} so far: zenoh has not declared the subscription or its token yet");
    let started = std::time::Instant::now();
    let result = subscribing.await;
    tracing::warn!(topic = %name, "subscribed for Foxglove after {:?} more", started.elapsed());
    result
}

async fn subscribe(
    node: &zshm::ros::Node,
    name: &str,
    topic: &Topic,
    received: &Arc<AtomicU64>,
) -> anyhow::Result<DynamicSubscription> {
    let (channel, received) = (topic.channel.clone(), received.clone());
    let callback = move |sample: zshm::raw::RawSample| {
        received.fetch_add(1, Ordering::Relaxed);
        channel.log(sample.payload());
    };
    node.create_dynamic_subscription(name, &topic.ty, topic.qos, callback)
        .await
        .context("cannot subscribe")
}
