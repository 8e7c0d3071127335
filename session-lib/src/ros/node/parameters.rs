//! A node's parameters as it offers them: the store with the node's overrides, the six
//! parameter services and the `/parameter_events` publisher, started once by the node.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc::UnboundedReceiver;

use super::parameter_services::{self, ParameterServices};
use crate::msgs::rcl_interfaces::msg::ParameterEvent;
use crate::ros::liveliness::NodeInfo;
use crate::ros::node_base::{NodeBase, NodeError};
use crate::ros::parameter::events::{self, PARAMETER_EVENTS_TOPIC, parameter_events_qos};
use crate::ros::parameter::{ParameterDescriptor, ParameterOverrides, Store};

/// A node's parameters, its services and its event queue (a field of [`Node`](super::Node)).
#[derive(Debug)]
pub(crate) struct NodeParameters {
    store: Arc<Store>,
    events: Mutex<Option<UnboundedReceiver<ParameterEvent>>>,
    services: Mutex<Option<ParameterServices>>,
    start_services: bool,
    start_events: bool,
}

impl NodeParameters {
    /// The parameters of node `info`, with the overrides of `overrides` that match it.
    pub(crate) fn new(
        info: &NodeInfo,
        overrides: &ParameterOverrides,
        start_services: bool,
        start_events: bool,
    ) -> Self {
        let (sender, receiver) = events::queue();
        let store = Store::new(
            info.fully_qualified_name(),
            overrides.for_node(&info.fully_qualified_name()),
            Box::new(move |event| {
                // No receiver: the node publishes no events (opted out).
                let _ = sender.send(event);
            }),
        );
        Self {
            store: Arc::new(store),
            events: Mutex::new(Some(receiver)),
            services: Mutex::new(None),
            start_services,
            start_events,
        }
    }

    /// Called once by [`Node::new`](super::Node::new): starts the event publisher, declares `use_sim_time`, and
    /// offers the services, each unless the node opted out.
    pub(crate) async fn start(&self, node: &NodeBase) -> Result<(), NodeError> {
        let receiver = self.events.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let (true, Some(receiver)) = (self.start_events, receiver) {
            publish_events(node, receiver).await?;
        }
        self.store
            .declare("use_sim_time", false.into(), ParameterDescriptor::default())?;
        if self.start_services {
            let services = parameter_services::offer_all(node, &self.store).await?;
            *self.services.lock().unwrap_or_else(PoisonError::into_inner) = Some(services);
        }
        Ok(())
    }

    /// The parameters themselves.
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.store
    }
}

/// Declares the publisher and starts the task that publishes what `events` receives, until
/// every sender is gone (the node and its services dropped).
async fn publish_events(
    node: &NodeBase,
    mut events: UnboundedReceiver<ParameterEvent>,
) -> Result<(), NodeError> {
    let publisher = node
        .create_publisher::<ParameterEvent>(PARAMETER_EVENTS_TOPIC, parameter_events_qos())
        .await?;
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        tracing::warn!(
            node = %node.info().fully_qualified_name(),
            "no tokio runtime: parameter events are not published"
        );
        return Ok(());
    };
    runtime.spawn(async move {
        while let Some(event) = events.recv().await {
            if let Err(err) = publisher.publish(&event).await {
                tracing::warn!("parameter event not published: {err}");
            }
        }
    });
    Ok(())
}
