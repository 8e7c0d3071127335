//! Client messages.

pub mod advertise;
mod fetch_asset;
mod get_parameters;
mod message_data;
mod ping;
mod ping_ack;
mod playback_control_request;
mod service_call_request;
mod set_parameters;
mod subscribe_connection_graph;
mod subscribe_parameter_updates;
mod unadvertise;
mod unsubscribe_connection_graph;
mod unsubscribe_parameter_updates;

pub use advertise::{Advertise, Channel as AdvertiseChannel};
pub use fetch_asset::FetchAsset;
pub use get_parameters::GetParameters;
pub use message_data::MessageData;
pub use ping::Ping;
pub use ping_ack::PingAck;
#[doc(hidden)]
pub use playback_control_request::{PlaybackCommand, PlaybackControlRequest};
pub use service_call_request::ServiceCallRequest;
pub use set_parameters::SetParameters;
pub use subscribe_connection_graph::SubscribeConnectionGraph;
pub use subscribe_parameter_updates::SubscribeParameterUpdates;
pub use unadvertise::Unadvertise;
pub use unsubscribe_connection_graph::UnsubscribeConnectionGraph;
pub use unsubscribe_parameter_updates::UnsubscribeParameterUpdates;
