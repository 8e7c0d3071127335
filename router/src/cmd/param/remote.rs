//! The node whose parameters a `zshm param` verb reads or sets: its name, checked before
//! anything is opened, and calls to its parameter services, each bounded by `--timeout`.

use std::time::Duration;

use anyhow::Context;
use zshm::msgs::ServiceType;
use zshm::msgs::rcl_interfaces::msg as wire;
use zshm::ros::parameter::{ParameterType, ParameterValue};
use zshm::ros::{Node, NodeOptions, names};

use crate::cli::{self, FlagError, SessionArgs};
use crate::support::session;

/// Which node, and how to reach it.
#[derive(Debug, clap::Args)]
pub struct TargetArgs {
    /// The node's full name, e.g. /sim_camera (a missing leading / is added).
    #[arg(value_name = "NODE")]
    pub node_name: String,
    /// Longest wait for the node's parameter services, and then for each answer, in seconds.
    #[arg(long, default_value = "5", value_parser = cli::seconds)]
    pub timeout: Duration,
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Config file, endpoints and shared memory.
    #[command(flatten)]
    pub session: SessionArgs,
    /// ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
}

/// A session with a node of its own (without parameter services: it only asks) and the node
/// it asks.
pub struct Remote {
    node: Node,
    target: String,
    timeout: Duration,
}

/// `name` as a fully qualified node name; `Err` says why it is not one.
pub fn node_name(name: &str) -> Result<String, FlagError> {
    let absolute = if name.starts_with('/') {
        name.to_owned()
    } else {
        format!("/{name}")
    };
    let (namespace, base) = absolute.rsplit_once('/').unwrap_or(("", &absolute));
    names::validate_node_name(base)
        .and_then(|()| names::normalize_namespace(if namespace.is_empty() { "/" } else { namespace }))
        .map_err(|err| FlagError(format!("`{name}` is not a node name: {err}")))?;
    Ok(absolute)
}

impl Remote {
    /// Checks the node name, then opens the session.
    pub async fn open(args: &TargetArgs) -> anyhow::Result<Self> {
        let target = node_name(&args.node_name)?;
        let session = session::open(&args.session).await?;
        let options = NodeOptions {
            domain: args.domain,
            start_parameter_services: false,
            start_parameter_event_publisher: false,
            ..NodeOptions::default()
        };
        let node = Node::new(&session, &format!("zshm_param_{}", std::process::id()), options)
            .await
            .context("cannot create the node")?;
        Ok(Self {
            node,
            target,
            timeout: args.timeout,
        })
    }

    /// The node's full name.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Calls the node's service `<node>/<service>`; `Err` names the node and the timeout.
    pub async fn call<S: ServiceType>(
        &self,
        service: &str,
        request: &S::Request,
    ) -> anyhow::Result<S::Response> {
        let name = format!("{}/{service}", self.target);
        let client = self.node.create_client::<S>(&name).await?;
        if !client.wait_for_service_async(self.timeout).await {
            anyhow::bail!(
                "node {} did not answer: no {name} service within {} (is the node running, in this domain?)",
                self.target,
                zshm::internal::text::seconds(self.timeout)
            );
        }
        client
            .call_async(request, self.timeout)
            .await
            .with_context(|| format!("node {} did not answer", self.target))
    }

    /// Closes the session.
    pub async fn close(self) -> anyhow::Result<()> {
        let session = self.node.session().clone();
        drop(self.node);
        session::close(&session).await
    }
}

/// A wire value as a value; an undefined type reads as not set.
pub fn value(msg: &wire::ParameterValue) -> ParameterValue {
    ParameterValue::from_msg(msg).unwrap_or_default()
}

/// The type words of `ros2 param describe` and `list --param-type`.
pub fn type_word(parameter_type: ParameterType) -> &'static str {
    match parameter_type {
        ParameterType::Bool => "boolean",
        ParameterType::Integer => "integer",
        ParameterType::Double => "double",
        ParameterType::String => "string",
        ParameterType::ByteArray => "byte array",
        ParameterType::BoolArray => "boolean array",
        ParameterType::IntegerArray => "integer array",
        ParameterType::DoubleArray => "double array",
        ParameterType::StringArray => "string array",
        _ => "not set",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_are_checked_and_made_absolute() {
        assert_eq!(node_name("sim_camera").unwrap(), "/sim_camera");
        assert_eq!(node_name("/robot/sim_camera").unwrap(), "/robot/sim_camera");
        for bad in ["", "/", "bad name", "/ns//x", "9lives"] {
            assert!(node_name(bad).is_err(), "{bad:?}");
        }
    }
}
