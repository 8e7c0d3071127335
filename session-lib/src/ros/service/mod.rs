//! Services, as rmw_zenoh carries them: a [`Service`] answers requests of a
//! [`ServiceType`](crate::msgs::ServiceType), a [`Client`] sends them.
//!
//! On the wire (rmw_zenoh's `rmw_service_data.cpp` / `rmw_client_data.cpp`):
//!
//! * both sides use the key expression `<domain>/<service name>/<pkg::srv::dds_::X_>/<service
//!   hash>` and announce themselves with a liveliness token of kind `SS` (server) or `SC`
//!   (client) carrying the service type, its hash and the services QoS;
//! * the server is a *complete* queryable (rmw_zenoh clients ask only complete ones); the client
//!   sends a query to all complete queryables, without consolidation, with the request's CDR and
//!   the 33-byte attachment of publications (its own sequence number from 1, a timestamp, the
//!   client's GID);
//! * the server replies on the same key expression with an attachment that echoes the request's
//!   sequence number and the client's GID, with a fresh timestamp.
//!
//! Handlers run on the node's executor ([`NodeBase::create_service`](super::NodeBase::create_service)),
//! never on zenoh's receive thread: zenoh's thread checks the attachment and queues the request in
//! a bounded queue (the services QoS: 10; the oldest is dropped and counted when a handler falls
//! behind). Requests and replies at or above the session's SHM threshold are written into the SHM
//! pool, once.
//!
//! ```no_run
//! # async fn demo(node: &zshm::ros::Node) -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use zshm::msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};
//!
//! let _server = node
//!     .create_service::<AddTwoInts>("add_two_ints", |request: AddTwoInts_Request| {
//!         AddTwoInts_Response { sum: request.a + request.b }
//!     })
//!     .await?;
//! let client = node.create_client::<AddTwoInts>("add_two_ints").await?;
//! assert!(client.wait_for_service_async(Duration::from_secs(5)).await);
//! let response = client
//!     .call_async(&AddTwoInts_Request { a: 2, b: 3 }, Duration::from_secs(5))
//!     .await?;
//! assert_eq!(response.sum, 5);
//! # Ok(()) }
//! ```

pub(crate) mod client;
mod server;

pub use client::{CallError, Client, Reply};
pub use server::{Responder, Service, ServiceOptions};
