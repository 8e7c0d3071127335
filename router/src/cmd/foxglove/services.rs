//! The protocol's `services` capability: every service server of the ROS graph (but this
//! node's own) is offered as a Foxglove service, with its request and response definitions
//! (`ros2msg`) and the `cdr` encoding, as foxglove_bridge offers them. A client's call goes to
//! the server as an rmw_zenoh call (a `DynamicClient`, made at the first call), its CDR bytes
//! unchanged both ways; a failure (no server, timeout, server gone) reaches the client as the
//! protocol's call failure, with zshm's message.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use foxglove::websocket::service::{Handler, Request, Responder, Service, ServiceSchema};
use foxglove::{Schema, WebSocketServerHandle};
use zshm::ros::Node;
use zshm::ros::dynamic::{DynamicClient, DynamicType};
use zshm::ros::liveliness::EndpointInfo;

use crate::support::definitions;

/// How long a Foxglove call waits for the server's reply (rclcpp's clients wait forever; a
/// browser waiting forever shows nothing, so zshm answers with a failure that says why).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The services offered to Foxglove clients, each while a server of it is in the graph.
#[derive(Default)]
pub struct Services {
    /// Service name → the liveliness tokens of its servers.
    offered: HashMap<String, HashSet<String>>,
    /// Token → service name, for the token's deletion.
    tokens: HashMap<String, String>,
}

impl Services {
    /// A server's token appeared: the service is offered from its first server on.
    pub fn server_appeared(
        &mut self,
        server: &WebSocketServerHandle,
        node: &Arc<Node>,
        endpoint: &EndpointInfo,
        token: &str,
    ) {
        self.tokens.insert(token.to_owned(), endpoint.topic.clone());
        if let Some(servers) = self.offered.get_mut(&endpoint.topic) {
            servers.insert(token.to_owned());
            return;
        }
        let service = offer(node, endpoint);
        match server.add_services([service]) {
            Ok(()) => {
                self.offered
                    .insert(endpoint.topic.clone(), HashSet::from([token.to_owned()]));
            }
            Err(err) => tracing::warn!(service = %endpoint.topic, "not offered to Foxglove: {err}"),
        }
    }

    /// A token went; when it was the last server of a service, that service is no longer
    /// offered and its name is returned.
    pub fn token_gone(&mut self, server: &WebSocketServerHandle, token: &str) -> Option<String> {
        let name = self.tokens.remove(token)?;
        let last = self.offered.get_mut(&name).is_some_and(|servers| {
            servers.remove(token);
            servers.is_empty()
        });
        if !last {
            return None;
        }
        self.offered.remove(&name);
        server.remove_services([name.as_str()]);
        Some(name)
    }
}

/// The Foxglove service of `endpoint`'s service, with the definitions the shipped interface
/// packages have (empty ones otherwise: the client sees the service, and can call it with bytes
/// it encodes itself).
fn offer(node: &Arc<Node>, endpoint: &EndpointInfo) -> Service {
    let service_type = zshm::ros::keyexpr::ros_type_name(&endpoint.type_name);
    let schema = |suffix: &str| {
        let name = format!("{service_type}{suffix}");
        let definition = definitions::shipped_definition(&name).map_or_else(String::new, |(d, _)| d);
        Schema::new(name, "ros2msg", definition.into_bytes())
    };
    let schema = ServiceSchema::new(service_type.clone())
        .with_request("cdr", schema("_Request"))
        .with_response("cdr", schema("_Response"));
    let call = Call {
        node: node.clone(),
        name: endpoint.topic.clone(),
        ty: DynamicType {
            dds_name: endpoint.type_name.clone(),
            hash: endpoint.type_hash.clone(),
        },
        client: Arc::default(),
        runtime: tokio::runtime::Handle::current(),
    };
    Service::builder(endpoint.topic.clone(), schema).handler(call)
}

/// Calls one service for Foxglove clients.
struct Call {
    node: Arc<Node>,
    name: String,
    ty: DynamicType,
    /// Made at the first call, then kept (its token shows the call in the graph).
    client: Arc<tokio::sync::OnceCell<DynamicClient>>,
    runtime: tokio::runtime::Handle,
}

impl Handler for Call {
    fn call(&self, request: Request, responder: Responder) {
        // The server's poll loop must not wait: the call runs on its own task.
        let (node, name, ty, client) = (
            self.node.clone(),
            self.name.clone(),
            self.ty.clone(),
            self.client.clone(),
        );
        self.runtime.spawn(async move {
            let client = client
                .get_or_try_init(|| async { node.create_dynamic_client(&name, &ty).await })
                .await;
            let client = match client {
                Ok(client) => client,
                Err(err) => return responder.respond_err(format!("cannot call {name}: {err}")),
            };
            // A client made just now learns the servers from their tokens first.
            let _ = client.wait_for_service(CALL_TIMEOUT).await;
            match client.call_cdr(request.payload(), CALL_TIMEOUT).await {
                Ok(reply) => responder.respond_ok(reply.payload()),
                Err(err) => responder.respond_err(err.to_string()),
            }
        });
    }
}
