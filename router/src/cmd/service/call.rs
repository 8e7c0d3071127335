//! `zshm service call NAME TYPE 'YAML'`: calls a service of any known type with the request
//! given as YAML (or JSON), like `ros2 service call`, and prints `response:` and the response as
//! YAML (`--json`: one JSON object). Fields not given keep their defaults.
//!
//! The request is checked before anything is opened (bad YAML, an unknown field or type: exit
//! 2). Then it waits for a server (printing `waiting for service to become available...` as
//! ros2 does) and for the response, each at most `--timeout`; exit 1 with the reason when no
//! server appears or none answers in time.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use zshm::dynamic::{MessageType, YamlOptions};
use zshm::ros::dynamic::DynamicType;
use zshm_rosidl::{InterfaceSet, Namespace, TypeName};

use crate::cli::{self, FlagError, NodeArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm service call`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service, e.g. /add_two_ints.
    pub name: String,
    /// The service type, e.g. example_interfaces/srv/AddTwoInts.
    #[arg(value_name = "TYPE")]
    pub type_name: String,
    /// The request as YAML, e.g. "{a: 2, b: 3}" (default: every field at its default).
    #[arg(default_value = "{}")]
    pub values: String,
    /// Longest wait for a server, and then for the response, in seconds.
    #[arg(long, default_value = "10", value_parser = cli::seconds)]
    pub timeout: Duration,
    /// Print the response as one JSON object instead of YAML.
    #[arg(long)]
    pub json: bool,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// How long the graph takes to tell a new client about the servers already there.
const TOKENS_ARRIVE: Duration = Duration::from_millis(300);

/// The request and response types of a service type, and its key-expression name and hash.
struct ServiceTypes {
    request: MessageType,
    response: MessageType,
    wire: DynamicType,
}

fn service_types(name: &str) -> anyhow::Result<ServiceTypes> {
    let parsed = TypeName::parse(name)
        .filter(|t| t.namespace == Namespace::Srv)
        .ok_or_else(|| FlagError(format!("`{name}` is not a service type (pkg/srv/Type)")))?;
    let set = InterfaceSet::shipped();
    let def = set.service(&parsed).ok_or_else(|| {
        FlagError(format!(
            "unknown service type `{name}` (`zshm interface list` shows the known ones)"
        ))
    })?;
    let hash = set
        .type_hash(&parsed)
        .with_context(|| format!("cannot hash {name}"))?;
    Ok(ServiceTypes {
        request: MessageType::new(set, &def.request)?,
        response: MessageType::new(set, &def.response)?,
        wire: DynamicType {
            dds_name: parsed.dds_name(),
            hash,
        },
    })
}

/// Calls once and prints the response.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let types = service_types(&args.type_name)?;
    let request = types
        .request
        .from_yaml(&args.values)
        .context("cannot read the request")?;
    let request_cdr = types.request.encode(&request)?;
    let node = session::open_node(&args.node, &format!("zshm_service_call_{}", std::process::id())).await?;
    let client = node
        .create_dynamic_client(&args.name, &types.wire)
        .await
        .context("cannot create the client")?;
    let service = client.info().topic.clone();

    let started = Instant::now();
    // The servers' tokens arrive a moment after the client exists: only say that it waits when
    // none came in that moment.
    if !client.wait_for_service(TOKENS_ARRIVE.min(args.timeout)).await {
        outln!("waiting for service to become available...");
        let found = tokio::select! {
            found = client.wait_for_service(args.timeout) => found,
            signal = shutdown::signal() => { signal?; drop(client); session::close(node.session()).await?; return Ok(ExitCode::FAILURE); }
        };
        if !found {
            eprintln!(
                "zshm service call: no server for {service} appeared within {:?}",
                args.timeout
            );
            drop(client);
            session::close(node.session()).await?;
            return Ok(ExitCode::FAILURE);
        }
    }
    outln!("requester: making request: {}", request.to_json());
    let left = args
        .timeout
        .saturating_sub(started.elapsed())
        .max(Duration::from_millis(100));
    let outcome = tokio::select! {
        outcome = client.call_cdr(&request_cdr, left) => Some(outcome),
        signal = shutdown::signal() => { signal?; None }
    };
    drop(client);
    let code = match outcome {
        None => ExitCode::FAILURE,
        Some(Err(err)) => {
            eprintln!("zshm service call: {err}");
            ExitCode::FAILURE
        }
        Some(Ok(reply)) => match types.response.decode(reply.payload()) {
            Ok(response) => {
                outln!();
                if args.json {
                    outln!("{}", response.to_json());
                } else {
                    outln!("response:");
                    outln!("{}", response.to_yaml(&YamlOptions { truncate: None }).trim_end());
                }
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!(
                    "zshm service call: the response of {service} is not a valid {}: {err}",
                    types.response.name()
                );
                ExitCode::FAILURE
            }
        },
    };
    session::close(node.session()).await?;
    Ok(code)
}
