//! ROS names and types on both sides of the bridge.
//!
//! * Topics: ROS `/a/b` is DDS `rt/a/b` (`make_fqtopic` in rmw_cyclonedds_cpp's `rmw_node.cpp`,
//!   `namespace_prefix.cpp` in rmw_fastrtps); on zenoh it is the key chunk `a/b`.
//! * Types: DDS and rmw_zenoh both use the DDS name `pkg::msg::dds_::Type_` (rmw_zenoh puts it in
//!   key expressions and tokens as it is), so the name needs no mapping; `pkg/msg/Type` is only
//!   what people read.
//! * Services: ROS `/a/b` is DDS `rq/a/bRequest` (requests, type `pkg::srv::dds_::X_Request_`)
//!   and `rr/a/bReply` (replies, `pkg::srv::dds_::X_Response_`); on zenoh it is one key with the
//!   service type `pkg::srv::dds_::X_` and the service's hash. Actions' inner services use
//!   `pkg::action::dds_::X_SendGoal_…` the same way.
//! * Type hashes: rmw_zenoh keys carry `RIHS01_<sha256>`. Jazzy's DDS RMWs put it in each
//!   endpoint's USER_DATA as `typehash=RIHS01_…;` (`encode_type_hash_for_user_data_qos` in
//!   rmw_dds_common's `qos.cpp`); Humble's send nothing. [`TypeHashSource`] says where a hash came
//!   from.

use zshm_protocol::keyexpr::ros_type_name;
use zshm_rosidl::{InterfaceSet, TypeName};

/// The prefix of ROS topics on DDS.
pub const TOPIC_PREFIX: &str = "rt/";

/// What rmw_zenoh on Humble writes where later distros write the hash (`rmw_publisher_data.cpp`
/// of rmw_zenoh 0.1.x): Humble nodes exchange data only with this literal.
pub const HUMBLE_TYPE_HASH: &str = "TypeHashNotSupported";

/// The ROS topic of a DDS topic (`rt/chatter` → `/chatter`); `None` for DDS topics that are not
/// ROS topics (`ros_discovery_info`, `rq/…`/`rr/…` services, `DCPS…`, other applications').
pub fn ros_topic(dds_topic: &str) -> Option<String> {
    let rest = dds_topic.strip_prefix(TOPIC_PREFIX)?;
    let valid = !rest.is_empty()
        && !rest.ends_with('/')
        && !rest.contains("//")
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/' || c == '~');
    valid.then(|| format!("/{rest}"))
}

/// The DDS topic of a ROS topic (`/chatter` → `rt/chatter`).
pub fn dds_topic(ros_topic: &str) -> String {
    format!("{TOPIC_PREFIX}{}", ros_topic.trim_start_matches('/'))
}

/// Which half of a service a DDS topic carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServiceHalf {
    /// `rq/<name>Request`: requests, written by clients and read by servers.
    Request,
    /// `rr/<name>Reply`: replies, written by servers and read by clients.
    Reply,
}

/// The ROS service of a DDS topic (`rq/add_two_intsRequest` → `/add_two_ints`, request half).
pub fn ros_service(dds_topic: &str) -> Option<(String, ServiceHalf)> {
    let (name, half) = if let Some(rest) = dds_topic.strip_prefix("rq/") {
        (rest.strip_suffix("Request")?, ServiceHalf::Request)
    } else {
        let rest = dds_topic.strip_prefix("rr/")?;
        (rest.strip_suffix("Reply")?, ServiceHalf::Reply)
    };
    ros_topic(&format!("{TOPIC_PREFIX}{name}")).map(|service| (service, half))
}

/// The two DDS topics of a ROS service: requests, then replies.
pub fn dds_service_topics(service: &str) -> (String, String) {
    let name = service.trim_start_matches('/');
    (format!("rq/{name}Request"), format!("rr/{name}Reply"))
}

/// The service type (`pkg::srv::dds_::X_`) of a request or reply type as DDS names them
/// (`pkg::srv::dds_::X_Request_`, `pkg::srv::dds_::X_Response_`), with the half it belongs to.
pub fn service_type(dds_type: &str) -> Option<(String, ServiceHalf)> {
    let (base, half) = if let Some(base) = dds_type.strip_suffix("_Request_") {
        (base, ServiceHalf::Request)
    } else {
        (dds_type.strip_suffix("_Response_")?, ServiceHalf::Reply)
    };
    let (package, name) = base
        .split_once("::srv::dds_::")
        .or_else(|| base.split_once("::action::dds_::"))?;
    (!package.is_empty() && !name.is_empty())
        .then(|| format!("{base}_"))
        .map(|service| (service, half))
}

/// The request and response types of the service type `pkg::srv::dds_::X_`.
pub fn service_message_types(service_type: &str) -> (String, String) {
    let base = service_type.strip_suffix('_').unwrap_or(service_type);
    (format!("{base}_Request_"), format!("{base}_Response_"))
}

/// True for ROS message type names as DDS carries them (`pkg::msg::dds_::Type_`), and for an
/// action's feedback message, the one message of an action that travels on a topic of its own
/// type (`pkg::action::dds_::Type_FeedbackMessage_` on `rt/<action>/_action/feedback`; its
/// status uses `action_msgs::msg::dds_::GoalStatusArray_`).
pub fn is_ros_message_type(dds_type: &str) -> bool {
    let named = |separator: &str| match dds_type.split_once(separator) {
        Some((package, name)) => !package.is_empty() && name.len() > 1 && name.ends_with('_'),
        None => false,
    };
    named("::msg::dds_::") || (named("::action::dds_::") && dds_type.ends_with("_FeedbackMessage_"))
}

/// Where a route's type hash came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeHashSource {
    /// The DDS endpoint's USER_DATA (Jazzy and later).
    UserData,
    /// zshm's shipped interface packages.
    Shipped,
    /// The zenoh endpoint's key expression (its publisher or subscription told it).
    Zenoh,
    /// Nothing knew it: rmw_zenoh's Humble literal.
    Humble,
}

impl TypeHashSource {
    /// A word for logs and route lines.
    pub fn label(self) -> &'static str {
        match self {
            TypeHashSource::UserData => "user data",
            TypeHashSource::Shipped => "shipped interfaces",
            TypeHashSource::Zenoh => "zenoh peer",
            TypeHashSource::Humble => "humble",
        }
    }
}

/// The `typehash` of an endpoint's USER_DATA (`key=value;` pairs, as rmw_dds_common's
/// `parse_key_value` splits them), when it holds a well-formed RIHS01 hash.
pub fn type_hash_from_user_data(user_data: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(user_data).ok()?;
    text.split(';')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| key.trim() == "typehash")
        .map(|(_, value)| value.trim())
        .filter(|value| is_rihs01(value))
        .map(str::to_owned)
}

/// The hash zshm's shipped interfaces give the type `pkg::msg::dds_::Type_`, if it is one of them.
pub fn shipped_type_hash(dds_type: &str) -> Option<String> {
    let name = TypeName::parse(&ros_type_name(dds_type))?;
    InterfaceSet::shipped().type_hash(&name).ok()
}

/// The type hash of a DDS endpoint: its USER_DATA, else the shipped interfaces, else `zenoh_hash`
/// (what the other side's endpoint announced), else the Humble literal.
pub fn resolve_type_hash(
    dds_type: &str,
    user_data: &[u8],
    zenoh_hash: Option<&str>,
) -> (String, TypeHashSource) {
    if let Some(hash) = type_hash_from_user_data(user_data) {
        return (hash, TypeHashSource::UserData);
    }
    if let Some(hash) = shipped_type_hash(dds_type) {
        return (hash, TypeHashSource::Shipped);
    }
    match zenoh_hash {
        Some(hash) => (hash.to_owned(), TypeHashSource::Zenoh),
        None => (HUMBLE_TYPE_HASH.to_owned(), TypeHashSource::Humble),
    }
}

fn is_rihs01(value: &str) -> bool {
    value
        .strip_prefix("RIHS01_")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRING_HASH: &str = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18";

    #[test]
    fn topics_map_both_ways() {
        assert_eq!(ros_topic("rt/chatter").as_deref(), Some("/chatter"));
        assert_eq!(ros_topic("rt/camera/points").as_deref(), Some("/camera/points"));
        assert_eq!(dds_topic("/camera/points"), "rt/camera/points");
        for not_ros in [
            "ros_discovery_info",
            "rq/add_two_intsRequest",
            "DCPSPublication",
            "rt/",
            "rt/a//b",
            "rt/a b",
        ] {
            assert_eq!(ros_topic(not_ros), None, "{not_ros}");
        }
    }

    #[test]
    fn services_map_both_ways() {
        assert_eq!(
            ros_service("rq/add_two_intsRequest"),
            Some(("/add_two_ints".into(), ServiceHalf::Request))
        );
        assert_eq!(
            ros_service("rr/fibonacci/_action/send_goalReply"),
            Some(("/fibonacci/_action/send_goal".into(), ServiceHalf::Reply))
        );
        assert_eq!(ros_service("rt/chatter"), None);
        assert_eq!(ros_service("rq/add_two_ints"), None);
        assert_eq!(ros_service("rq/Request"), None);
        assert_eq!(
            dds_service_topics("/add_two_ints"),
            ("rq/add_two_intsRequest".into(), "rr/add_two_intsReply".into())
        );
        let service = "example_interfaces::srv::dds_::AddTwoInts_";
        assert_eq!(
            service_type("example_interfaces::srv::dds_::AddTwoInts_Request_"),
            Some((service.into(), ServiceHalf::Request))
        );
        assert_eq!(
            service_type("example_interfaces::srv::dds_::AddTwoInts_Response_"),
            Some((service.into(), ServiceHalf::Reply))
        );
        assert_eq!(
            service_type("action_tutorials_interfaces::action::dds_::Fibonacci_SendGoal_Request_")
                .map(|(t, _)| t),
            Some("action_tutorials_interfaces::action::dds_::Fibonacci_SendGoal_".into())
        );
        assert_eq!(service_type("std_msgs::msg::dds_::String_"), None);
        assert_eq!(
            service_message_types(service),
            (
                "example_interfaces::srv::dds_::AddTwoInts_Request_".into(),
                "example_interfaces::srv::dds_::AddTwoInts_Response_".into()
            )
        );
    }

    #[test]
    fn message_types_are_recognised() {
        assert!(is_ros_message_type("std_msgs::msg::dds_::String_"));
        assert!(!is_ros_message_type(
            "example_interfaces::srv::dds_::AddTwoInts_Request_"
        ));
        assert!(!is_ros_message_type("ShapeType"));
        assert!(is_ros_message_type(
            "action_tutorials_interfaces::action::dds_::Fibonacci_FeedbackMessage_"
        ));
        assert!(!is_ros_message_type(
            "action_tutorials_interfaces::action::dds_::Fibonacci_SendGoal_Request_"
        ));
        assert!(!is_ros_message_type("std_msgs::msg::dds_::String"));
    }

    #[test]
    fn the_hash_comes_from_user_data_then_the_shipped_set_then_the_peer() {
        let user_data = format!("typehash={STRING_HASH};");
        assert_eq!(
            resolve_type_hash("std_msgs::msg::dds_::String_", user_data.as_bytes(), None),
            (STRING_HASH.to_owned(), TypeHashSource::UserData)
        );
        assert_eq!(
            resolve_type_hash("std_msgs::msg::dds_::String_", b"", None),
            (STRING_HASH.to_owned(), TypeHashSource::Shipped)
        );
        assert_eq!(
            resolve_type_hash(
                "my_pkg::msg::dds_::Thing_",
                b"typehash=RIHS01_nothex;",
                Some("RIHS01_x")
            ),
            ("RIHS01_x".to_owned(), TypeHashSource::Zenoh)
        );
        assert_eq!(
            resolve_type_hash("my_pkg::msg::dds_::Thing_", b"\xff\xfe", None),
            (HUMBLE_TYPE_HASH.to_owned(), TypeHashSource::Humble)
        );
    }
}
