//! The zenoh key expression of a ROS topic, as rmw_zenoh builds it (`TopicInfo::TopicInfo` in
//! `rmw_zenoh_cpp/src/detail/liveliness_utils.cpp`):
//!
//! `<domain>/<fully qualified name without its leading and trailing '/'>/<dds type name>/<type hash>`
//!
//! Inner `/` stay (they become key-expression chunks); nothing is mangled here, unlike in
//! liveliness tokens. Example: `0/camera/points/sensor_msgs::msg::dds_::PointCloud2_/RIHS01_9198…`.

use crate::type_info::TypeInfo;

/// The data key expression of `topic` (fully qualified) in `domain`.
///
/// ```
/// use zshm_protocol::{TypeInfo, keyexpr::topic_keyexpr};
/// let cloud = TypeInfo {
///     name: "sensor_msgs/msg/PointCloud2",
///     dds_name: "sensor_msgs::msg::dds_::PointCloud2_",
///     hash: "RIHS01_9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5",
/// };
/// let ke = topic_keyexpr(0, "/camera/points", &cloud);
/// assert_eq!(ke, "0/camera/points/sensor_msgs::msg::dds_::PointCloud2_/RIHS01_9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5");
/// ```
pub fn topic_keyexpr(domain: u32, topic: &str, type_info: &TypeInfo) -> String {
    let topic = topic.strip_prefix('/').unwrap_or(topic);
    let topic = topic.strip_suffix('/').unwrap_or(topic);
    format!("{domain}/{topic}/{}/{}", type_info.dds_name, type_info.hash)
}

/// `pkg::msg::dds_::Type_` → `pkg/msg/Type`, as `ros2 topic list -t` shows types
/// (`_demangle_if_ros_type` in rmw_zenoh). Other names are returned unchanged.
pub fn ros_type_name(dds_name: &str) -> String {
    match dds_name.split_once("::dds_::") {
        Some((package, rest)) if rest.ends_with('_') => {
            format!("{}/{}", package.replace("::", "/"), &rest[..rest.len() - 1])
        }
        _ => dds_name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `std_msgs/msg/String` of Jazzy (the generated messages check their own in `zshm::msgs`).
    const STRING: TypeInfo = TypeInfo {
        name: "std_msgs/msg/String",
        dds_name: "std_msgs::msg::dds_::String_",
        hash: "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
    };

    #[test]
    fn matches_the_design_doc_examples() {
        assert_eq!(
            topic_keyexpr(0, "/chatter", &STRING),
            "0/chatter/std_msgs::msg::dds_::String_/RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
        );
        assert!(topic_keyexpr(0, "/robot1/chatter", &STRING).starts_with("0/robot1/chatter/"));
        assert!(topic_keyexpr(42, "/a/", &STRING).starts_with("42/a/std_msgs"));
    }

    #[test]
    fn dds_names_derive_from_ros_names() {
        assert_eq!(ros_type_name(STRING.dds_name), STRING.name);
        assert_eq!(
            ros_type_name("sensor_msgs::msg::dds_::PointCloud2_"),
            "sensor_msgs/msg/PointCloud2"
        );
        assert_eq!(ros_type_name("not_a_ros_type"), "not_a_ros_type");
    }
}
