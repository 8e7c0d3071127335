//! `zshm topic echo /t [TYPE]`: prints a topic's messages as `ros2 topic echo` does (block
//! YAML, `---` after each message, sequences and strings longer than 128 cut with `...` unless
//! `--full`), or one JSON line per message with `--json`.
//!
//! Each sample's key expression carries the type name and hash its publisher announced, so the
//! messages are decoded by their own type (a topic with two types in the graph shows both).
//! Without TYPE, the graph is asked once which type the topic has, for the subscription's own
//! token; with TYPE, only that type is received. A message whose type zshm does not know (or
//! whose hash differs from zshm's definition) is counted and shown by its size; a payload that
//! does not decode is counted and reported once on stderr. Neither stops the echo.
//!
//! QoS as `ros2 topic echo` chooses it: reliable unless a publisher is best effort, transient
//! local when every publisher is (so a late echo gets a latched topic's last messages), keep
//! last 10; the `--qos-*` flags override. Transient local needs the topic's type.

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use zshm::dynamic::{MessageType, YamlOptions};
use zshm::raw::RawSample;
use zshm::ros::dynamic::{DynamicSubscription, DynamicType};
use zshm::ros::liveliness::{self, EndpointInfo, EntityKind};
use zshm::ros::qos::{Durability, QosProfile, Reliability};
use zshm_rosidl::TypeName;

use crate::cli::{NodeArgs, QosArgs};
use crate::support::out::outln;
use crate::support::{ZenohContext, session, shutdown};

/// `zshm topic echo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Topic to print, e.g. /odom.
    pub topic: String,
    /// Message type, e.g. nav_msgs/msg/Odometry (default: the type the topic's publishers announce).
    #[arg(value_name = "TYPE")]
    pub type_name: Option<String>,
    /// Print one message, then exit.
    #[arg(long)]
    pub once: bool,
    /// One JSON object per line instead of YAML (never abbreviated).
    #[arg(long)]
    pub json: bool,
    /// Print only this field, e.g. --field pose.pose.position.
    #[arg(long, value_name = "a.b")]
    pub field: Option<String>,
    /// Print long sequences and strings whole instead of cut after 128 elements.
    #[arg(long, alias = "full-length")]
    pub full: bool,
    /// How long to ask the graph for the topic's type when TYPE is not given, in seconds.
    #[arg(long, default_value = "2", value_parser = crate::cli::seconds)]
    pub graph_timeout: Duration,
    /// QoS flags (default: as the topic's publishers offer).
    #[command(flatten)]
    pub qos: QosArgs,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Where the samples come from: a plain subscription (any type, volatile), or, for transient
/// local, rmw_zenoh's advanced subscription of one type, which asks the publishers' caches.
enum Incoming {
    Plain(zshm::raw::RawSubscription),
    Durable {
        /// Held: dropping it ends the subscription.
        _subscription: Box<DynamicSubscription>,
        samples: tokio::sync::mpsc::UnboundedReceiver<RawSample>,
    },
}

impl Incoming {
    async fn recv(&mut self) -> Option<RawSample> {
        match self {
            Incoming::Plain(subscription) => subscription.recv().await,
            Incoming::Durable { samples, .. } => samples.recv().await,
        }
    }
}

/// The QoS `ros2 topic echo` picks for `publishers` (rclpy's `choose_qos`), then the flags.
fn choose_qos(flags: &QosArgs, publishers: &[EndpointInfo]) -> QosProfile {
    let mut qos = QosProfile::keep_last(10);
    if publishers
        .iter()
        .any(|p| p.qos.reliability == Reliability::BestEffort)
    {
        qos.reliability = Reliability::BestEffort;
    }
    if !publishers.is_empty()
        && publishers
            .iter()
            .all(|p| p.qos.durability == Durability::TransientLocal)
    {
        qos.durability = Durability::TransientLocal;
    }
    flags.profile(qos)
}

/// What became of the samples received.
#[derive(Debug, Default)]
struct Counts {
    printed: u64,
    unknown: u64,
    malformed: u64,
}

/// Subscribes and prints until `--once` is satisfied or a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let given = match &args.type_name {
        Some(name) => Some(MessageType::shipped(name).context("cannot echo")?),
        None => None,
    };
    if let (Some(ty), Some(field)) = (&given, &args.field)
        && ty.default_value().get_path(field).is_none()
    {
        anyhow::bail!(crate::cli::FlagError(format!(
            "--field {field}: {} has no such field",
            ty.name()
        )));
    }
    let node = session::open_node(&args.node, &format!("zshm_topic_echo_{}", std::process::id())).await?;
    let publishers = graph_publishers(&node, &args.topic, args.graph_timeout).await?;
    let qos = choose_qos(&args.qos, &publishers);
    // The subscription's token names one type: the given one, else the first the graph shows.
    let announced: Option<(String, String)> = match &given {
        Some(ty) => Some((ty.name().dds_name(), ty.hash().to_owned())),
        None => publishers
            .first()
            .map(|p| (p.type_name.clone(), p.type_hash.clone())),
    };
    let (dds, hash) = announced.clone().unwrap_or_else(|| ("*".into(), "*".into()));
    let info = node.endpoint(EntityKind::Subscription, &args.topic, (&dds, &hash), qos)?;
    let mut subscription = if qos.durability == Durability::TransientLocal {
        let Some((dds_name, hash)) = announced.clone() else {
            anyhow::bail!(crate::cli::FlagError(format!(
                "--qos-durability transient_local: no publisher of {} announces its type yet; give TYPE",
                info.topic
            )));
        };
        let (sender, samples) = tokio::sync::mpsc::unbounded_channel();
        let subscription = node
            .create_dynamic_subscription(&info.topic, &DynamicType { dds_name, hash }, qos, move |sample| {
                // The receiver goes only when the echo ends.
                let _ = sender.send(sample);
            })
            .await
            .context("cannot subscribe")?;
        Incoming::Durable {
            _subscription: Box::new(subscription),
            samples,
        }
    } else {
        // With TYPE, that type only (any hash: a mismatch is shown, not hidden); else every type.
        let key = match &given {
            Some(_) => super::data_key(&info, &info.type_name, "*"),
            None => super::data_key(&info, "*", "*"),
        };
        Incoming::Plain(
            node.session()
                .declare_subscription(&key)
                .await
                .context("cannot subscribe")?,
        )
    };
    let _token = match (&subscription, announced) {
        (Incoming::Durable { .. }, _) => None,
        (Incoming::Plain(_), Some(_)) => Some(
            node.session()
                .zenoh()
                .liveliness()
                .declare_token(liveliness::endpoint_token(&info))
                .await
                .zenoh_context("cannot declare the subscription's token")?,
        ),
        (Incoming::Plain(_), None) => {
            tracing::warn!(topic = %info.topic, "the graph shows no publisher of this topic yet; printing any type that arrives");
            None
        }
    };
    let options = YamlOptions {
        truncate: if args.full {
            None
        } else {
            YamlOptions::default().truncate
        },
    };
    let mut types: HashMap<String, Option<MessageType>> = HashMap::new();
    let mut counts = Counts::default();
    loop {
        let sample = tokio::select! {
            sample = subscription.recv() => match sample {
                Some(sample) => sample,
                None => break,
            },
            signal = shutdown::signal() => { signal?; break; }
        };
        let (dds_name, sample_hash) = type_of_key(sample.key_expr());
        let ty = types
            .entry(format!("{dds_name}/{sample_hash}"))
            .or_insert_with(|| known_type(dds_name, sample_hash))
            .clone();
        let Some(ty) = ty else {
            counts.unknown += 1;
            if counts.unknown == 1 {
                tracing::warn!(
                    type_name = %dds_name,
                    hash = %sample_hash,
                    "messages of a type zshm does not know (or of another definition): shown by their size, counted"
                );
            }
            let name =
                TypeName::from_dds_name(dds_name).map_or_else(|| dds_name.to_owned(), |n| n.to_string());
            outln!("<{name}: {} bytes, type unknown to zshm>", sample.payload().len());
            outln!("---");
            if args.once {
                break;
            }
            continue;
        };
        let value = match ty.decode(sample.payload()) {
            Ok(value) => value,
            Err(err) => {
                counts.malformed += 1;
                if counts.malformed == 1 {
                    tracing::warn!(
                        "a {} message does not decode, skipped (later ones are counted): {err}",
                        ty.name()
                    );
                }
                continue;
            }
        };
        let shown = match &args.field {
            Some(field) => match value.get_path(field) {
                Some(shown) => shown,
                None => anyhow::bail!(crate::cli::FlagError(format!(
                    "--field {field}: {} has no such field",
                    ty.name()
                ))),
            },
            None => &value,
        };
        if args.json {
            outln!("{}", shown.to_json());
        } else {
            outln!("{}---", shown.to_yaml(&options));
        }
        counts.printed += 1;
        if args.once {
            break;
        }
    }
    drop(_token);
    drop(subscription);
    if counts.unknown > 0 || counts.malformed > 0 {
        tracing::info!(
            printed = counts.printed,
            unknown_type = counts.unknown,
            malformed = counts.malformed,
            "echo done"
        );
    }
    session::close(node.session()).await?;
    Ok(ExitCode::SUCCESS)
}

/// The type name and hash at the end of a data key expression (`.../<dds type>/<hash>`).
fn type_of_key(key: &str) -> (&str, &str) {
    let mut parts = key.rsplitn(3, '/');
    let hash = parts.next().unwrap_or("");
    let dds = parts.next().unwrap_or("");
    (dds, hash)
}

/// The shipped type behind a DDS name, when its hash is zshm's too.
fn known_type(dds_name: &str, hash: &str) -> Option<MessageType> {
    let name = TypeName::from_dds_name(dds_name)?;
    let ty = MessageType::new(zshm_rosidl::InterfaceSet::shipped(), &name).ok()?;
    (ty.hash() == hash).then_some(ty)
}

/// The graph's publishers of `topic`: their types and QoS.
async fn graph_publishers(
    node: &zshm::ros::Node,
    topic: &str,
    timeout: Duration,
) -> anyhow::Result<Vec<EndpointInfo>> {
    let topic = node.expand_topic(topic).context("bad topic name")?;
    let graph = zshm::ros::graph::snapshot(node.session(), node.info().domain, timeout)
        .await
        .zenoh_context("cannot query the graph")?;
    Ok(graph
        .endpoints
        .into_iter()
        .filter(|e| e.topic == topic && e.kind == EntityKind::Publisher)
        .collect())
}
