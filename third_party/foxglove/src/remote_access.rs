//! Remote access implementation.
//!
//! # Video transcoding and the data opt-out
//!
//! For bandwidth-efficient live streaming, image channels are transcoded to a WebRTC video
//! track rather than sent on the data plane: the `foxglove.CompressedImage` and `foxglove.RawImage`
//! schemas (in protobuf, JSON, FlatBuffer, or OMG IDL encoding) and the ROS `sensor_msgs` image
//! types. A channel with one of these schemas is advertised with a video track.
//!
//! To deliver an image channel as data instead, opt it out with
//! [`Gateway::suppress_video_transcode`] / [`Gateway::suppress_video_transcode_fn`]: the channel is
//! advertised without a video track and its messages are delivered on the data plane unchanged.
//! This is needed for image channels whose pixels must not pass through lossy video — compressed
//! depth maps are the motivating case. See [`SuppressVideoTranscode`] for details.
//!
//! # Point-cloud compression and the opt-out
//!
//! Point-cloud channels (protobuf-, JSON-, or FlatBuffer-encoded `foxglove.PointCloud`,
//! CDR-encoded ROS 2 `sensor_msgs/msg/PointCloud2`, or ROS 1 `sensor_msgs/PointCloud2`) are
//! transparently compressed with [Draco](https://google.github.io/draco/) by default: the
//! channel is advertised with the `foxglove.CompressedPointCloud` schema and each point cloud
//! is compressed before delivery. The default settings are lossy —
//! kd-tree encoding with positions quantized to 12 bits — and per-point fields that carry no
//! value on a remote viewer (timestamps, ranges and angles derivable from the positions, and
//! per-point indices) are dropped. Compression applies only to Lossy channels; Reliable
//! channels deliver the raw point cloud on the control bytestream.
//!
//! To tune the settings per channel or deliver point clouds unmodified, set a policy with
//! [`Gateway::point_cloud_compression`] / [`Gateway::point_cloud_compression_fn`] — returning
//! `None` for a channel delivers it untouched. See [`Gateway::point_cloud_compression`] for
//! details, including the exact list of dropped fields, and [`PointCloudCompressionPolicy`] for the
//! policy trait.

mod capability;
mod channel_registry;
mod client;
mod connection;
mod gateway;
mod listener;
mod parameter_subscriptions;
mod participant;
mod point_cloud_compression;
mod point_cloud_transcode;
pub(super) mod protocol_version;
mod qos;
mod rtt_tracker;
pub mod service;
mod session;
mod sse;
mod suppress_video_transcode;
mod watch;
mod watch_loop;

pub use crate::remote_common::{
    AnyClient, AssetHandler, AssetResponder, ClientId, ConnectionGraph, GetParametersResponder,
    Parameter, ParameterDecodeError, ParameterHandler, ParameterType, ParameterValue,
    SetParametersResponder, Status, StatusLevel,
};
pub use capability::Capability;
pub use client::Client;
pub use connection::ConnectionStatus;
pub use gateway::{Gateway, GatewayHandle, VideoEncoderBackend};
pub use listener::Listener;
pub use point_cloud_compression::{PointCloudCompression, PointCloudCompressionPolicy};
pub use qos::{QosClassifier, QosProfile, QosProfileBuilder, Reliability};
pub use suppress_video_transcode::SuppressVideoTranscode;

use reqwest::StatusCode;
use thiserror::Error;

use crate::api_client::FoxgloveApiClientError;

/// Internal error type for the remote access module.
#[derive(Error, Debug)]
pub(super) enum RemoteAccessError {
    /// An error from a LiveKit byte stream operation.
    #[error("Stream error: {0}")]
    Stream(livekit::StreamError),
    /// An error from a LiveKit room connection or operation.
    #[error("Room error: {0}")]
    Room(livekit::RoomError),
    /// A failed Foxglove API call.
    #[error("API error: {0}")]
    Api(FoxgloveApiClientError),
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl RemoteAccessError {
    /// True if this is an [`Api`](Self::Api) error carrying a 401.
    pub(super) fn is_unauthorized(&self) -> bool {
        matches!(self, Self::Api(api) if api.status_code() == Some(StatusCode::UNAUTHORIZED))
    }
}

impl From<livekit::StreamError> for RemoteAccessError {
    fn from(error: livekit::StreamError) -> Self {
        match error {
            livekit::StreamError::Io(e) => RemoteAccessError::Io(e),
            other => RemoteAccessError::Stream(other),
        }
    }
}

impl From<livekit::RoomError> for RemoteAccessError {
    fn from(error: livekit::RoomError) -> Self {
        RemoteAccessError::Room(error)
    }
}

impl From<FoxgloveApiClientError> for RemoteAccessError {
    fn from(error: FoxgloveApiClientError) -> Self {
        RemoteAccessError::Api(error)
    }
}

impl From<livekit::StreamError> for Box<RemoteAccessError> {
    fn from(e: livekit::StreamError) -> Self {
        Box::new(RemoteAccessError::from(e))
    }
}

impl From<livekit::RoomError> for Box<RemoteAccessError> {
    fn from(e: livekit::RoomError) -> Self {
        Box::new(RemoteAccessError::from(e))
    }
}

impl From<FoxgloveApiClientError> for Box<RemoteAccessError> {
    fn from(e: FoxgloveApiClientError) -> Self {
        Box::new(RemoteAccessError::from(e))
    }
}

impl From<std::io::Error> for Box<RemoteAccessError> {
    fn from(e: std::io::Error) -> Self {
        Box::new(RemoteAccessError::from(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_io_error_converts_to_io_variant() {
        let io_err = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "broken");
        let stream_err = livekit::StreamError::Io(io_err);
        let err = RemoteAccessError::from(stream_err);
        assert!(
            matches!(err, RemoteAccessError::Io(_)),
            "StreamError::Io should convert to RemoteAccessError::Io"
        );
    }

    #[test]
    fn stream_non_io_error_converts_to_stream_variant() {
        let stream_err = livekit::StreamError::AlreadyClosed;
        let err = RemoteAccessError::from(stream_err);
        assert!(
            matches!(err, RemoteAccessError::Stream(_)),
            "Non-Io StreamError should convert to RemoteAccessError::Stream"
        );
    }

    #[test]
    fn room_error_converts_to_room_variant() {
        let room_err = livekit::RoomError::AlreadyClosed;
        let err = RemoteAccessError::from(room_err);
        assert!(
            matches!(err, RemoteAccessError::Room(_)),
            "RoomError should convert to RemoteAccessError::Room"
        );
    }

    #[test]
    fn io_error_converts_to_io_variant() {
        let io_err = std::io::Error::new(std::io::ErrorKind::NotFound, "not found");
        let err = RemoteAccessError::from(io_err);
        assert!(
            matches!(err, RemoteAccessError::Io(_)),
            "io::Error should convert to RemoteAccessError::Io"
        );
    }

    /// Helper to produce a `FoxgloveApiClientError` by sending a request with a bad token
    /// to a mock server that returns 401.
    async fn make_api_client_error() -> FoxgloveApiClientError {
        use crate::api_client::test_utils::create_test_server;
        use crate::api_client::{DeviceToken, FoxgloveApiClientBuilder};
        let server = create_test_server().await;
        let client = FoxgloveApiClientBuilder::new(DeviceToken::new("bad-token"))
            .base_url(server.url())
            .build()
            .expect("client should build successfully");
        // `fetch_device_info` will fail with 401 because of the bad token.
        match client.fetch_device_info().await {
            Err(e) => e,
            Ok(_) => panic!("expected fetch_device_info to fail with bad token"),
        }
    }

    #[tokio::test]
    async fn api_client_error_converts_to_api_variant() {
        let err = RemoteAccessError::from(make_api_client_error().await);
        assert!(
            matches!(err, RemoteAccessError::Api(_)),
            "FoxgloveApiClientError should convert to RemoteAccessError::Api"
        );
    }
}
