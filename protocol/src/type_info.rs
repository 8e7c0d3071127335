//! [`TypeInfo`]: how a ROS message type is named on the wire.

/// The identity of a ROS message type on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeInfo {
    /// The ROS name, e.g. `sensor_msgs/msg/PointCloud2`.
    pub name: &'static str,
    /// The DDS name rmw_zenoh puts in key expressions, e.g. `sensor_msgs::msg::dds_::PointCloud2_`.
    pub dds_name: &'static str,
    /// The REP-2011 type hash, `RIHS01_<sha256 hex>`.
    pub hash: &'static str,
}
