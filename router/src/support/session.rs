//! Sessions and nodes from the common flags, and the SHM and lane status as the JSON summaries
//! print them.

use anyhow::Context;

use crate::cli::{FlagError, NodeArgs, SessionArgs};

/// A session builder from the shared flags.
pub fn builder(role: zshm::Role, args: &SessionArgs) -> zshm::SessionBuilder {
    let mut builder = zshm::Session::builder_for(role)
        .listen(args.listen.iter().cloned())
        .connect(args.connect.iter().cloned())
        .no_shm(args.no_shm)
        .no_lane(args.no_lane);
    if let Some(path) = &args.config {
        builder = builder.config_file(path);
    }
    builder
}

/// Opens a node session from the shared flags.
pub async fn open(args: &SessionArgs) -> anyhow::Result<zshm::Session> {
    interruptible(builder(zshm::Role::Session, args))
        .await
        .context("cannot open the session")
}

/// Opens `builder`'s session, unless SIGINT/SIGTERM comes first: zenoh can wait long inside
/// `open` (a router that refuses this node, a connect timeout), and the signal must still end
/// the command.
pub async fn interruptible(builder: zshm::SessionBuilder) -> anyhow::Result<zshm::Session> {
    // zenoh's open blocks its thread while it retries a connection, so it runs in its own task
    // and this one stays free to see the signal.
    let mut opening = tokio::spawn(builder.open());
    tokio::select! {
        session = &mut opening => Ok(session.context("the session opener stopped")??),
        signal = super::shutdown::signal() => {
            // Cancelled at its next wait, so that it never wakes in a runtime shutting down.
            opening.abort();
            anyhow::bail!("{} received while opening the session", signal?)
        }
    }
}

/// Opens a node session and creates the node `name` from the shared node flags.
pub async fn open_node(node: &NodeArgs, name: &str) -> anyhow::Result<zshm::ros::Node> {
    open_node_on(node, name, None).await
}

/// [`open_node`], with the node's callbacks on `executor` (its own single-threaded one when
/// `None`). A node that declares parameters passes one it spins after declaring them, as an
/// rclcpp node spins after its constructor: a parameter request that comes meanwhile waits,
/// and never sees half of the parameters.
pub async fn open_node_on(
    node: &NodeArgs,
    name: &str,
    executor: Option<zshm::ros::Executor>,
) -> anyhow::Result<zshm::ros::Node> {
    // Bad ROS arguments (or an unreadable parameters file) are bad input, found before any
    // session is opened.
    let overrides = zshm::ros::parameter::ParameterOverrides::from_ros_args(&node.ros_args)
        .map_err(|err| FlagError(format!("--ros-args: {err}")))?;
    let session = open(&node.session).await?;
    let options = zshm::ros::NodeOptions {
        namespace: node.namespace.clone(),
        domain: node.domain,
        parameter_overrides: overrides,
        executor,
        ..Default::default()
    };
    zshm::ros::Node::new(&session, name, options)
        .await
        .context("cannot create the node")
}

/// Closes the session at the end of a command. zenoh gives up waiting after its close timeout
/// (10 s) when a link does not stop in time, and goes on closing in the background; the churn
/// soak (docs/RELIABILITY.md) saw it end 3 of 875 `zshm service call` runs (and rclpy processes
/// on rmw_zenoh alike) while the peers they had met were being killed. The command's work is done
/// by then: that is a warning, not the command's failure.
pub async fn close(session: &zshm::Session) -> anyhow::Result<()> {
    if let Err(err) = session.close().await {
        tracing::warn!(
            "the session did not close cleanly ({:#}); the command's work was done",
            anyhow::Error::from(err)
        );
    }
    Ok(())
}

/// The session's SHM status as JSON, for summaries.
pub fn shm_status_json(status: &zshm::ShmStatus) -> serde_json::Value {
    match status.unavailable_reason() {
        None => serde_json::json!({ "active": true, "detail": status.to_string() }),
        Some(reason) => serde_json::json!({
            "active": false,
            "reason": reason.label(),
            "detail": reason.to_string(),
            "remedy": reason.remedy(),
        }),
    }
}

/// The session's lane status as JSON, for summaries.
pub fn lane_status_json(status: &zshm::LaneStatus) -> serde_json::Value {
    match status.unavailable_reason() {
        None => serde_json::json!({ "on": true, "detail": status.to_string() }),
        Some(reason) => serde_json::json!({
            "on": false,
            "reason": reason.label(),
            "detail": reason.to_string(),
            "remedy": reason.remedy(),
        }),
    }
}
