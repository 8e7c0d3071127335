//! Liveliness tokens: how ROS 2 graph discovery works over rmw_zenoh, and entity GIDs.
//!
//! Format (`rmw_zenoh_cpp/src/detail/liveliness_utils.cpp`, identical in Jazzy 0.2.x, Kilted
//! 0.6.x and Rolling):
//!
//! ```text
//! node:     @ros2_lv/<domain>/<zid>/<nid>/<nid>/NN/<enclave>/<namespace>/<node>
//! endpoint: @ros2_lv/<domain>/<zid>/<nid>/<id>/<MP|MS|SS|SC>/<enclave>/<namespace>/<node>/<topic>/<dds type>/<type hash>/<qos>
//! ```
//!
//! Names are mangled by replacing every `/` with `%` (so the root namespace and the default
//! enclave are `%`). Entity ids come from one counter per session, shared by nodes and endpoints.
//! An entity's GID is the XXH3-128 of its token string, as 16 little-endian bytes (rmw_zenoh's
//! `simplified_xxhash3.cpp`).

use super::qos::QosProfile;

/// The admin-space prefix of every ROS liveliness token.
pub const PREFIX: &str = "@ros2_lv";

/// The kind of a graph entity, as its two-letter code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityKind {
    /// `NN`.
    Node,
    /// `MP`: message publisher.
    Publisher,
    /// `MS`: message subscription.
    Subscription,
    /// `SS`: service server.
    ServiceServer,
    /// `SC`: service client.
    ServiceClient,
}

impl EntityKind {
    /// The two-letter code.
    pub fn code(self) -> &'static str {
        match self {
            EntityKind::Node => "NN",
            EntityKind::Publisher => "MP",
            EntityKind::Subscription => "MS",
            EntityKind::ServiceServer => "SS",
            EntityKind::ServiceClient => "SC",
        }
    }

    fn from_code(code: &str) -> Option<Self> {
        Some(match code {
            "NN" => EntityKind::Node,
            "MP" => EntityKind::Publisher,
            "MS" => EntityKind::Subscription,
            "SS" => EntityKind::ServiceServer,
            "SC" => EntityKind::ServiceClient,
            _ => return None,
        })
    }
}

/// A node as its token describes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeInfo {
    /// ROS domain.
    pub domain: u32,
    /// The session's zenoh id string.
    pub zid: String,
    /// Node entity id.
    pub nid: u32,
    /// Security enclave, e.g. `/`.
    pub enclave: String,
    /// Namespace, e.g. `/` or `/robot1`.
    pub namespace: String,
    /// Node name.
    pub name: String,
}

impl NodeInfo {
    /// `<namespace>/<name>`, as `ros2 node list` prints it.
    pub fn fully_qualified_name(&self) -> String {
        if self.namespace == "/" {
            format!("/{}", self.name)
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

/// A publisher, subscription, service server or client as its token describes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EndpointInfo {
    /// The node it belongs to.
    pub node: NodeInfo,
    /// Entity id.
    pub id: u32,
    /// Publisher, subscription, ...
    pub kind: EntityKind,
    /// Fully qualified topic or service name.
    pub topic: String,
    /// DDS type name, e.g. `sensor_msgs::msg::dds_::PointCloud2_`.
    pub type_name: String,
    /// `RIHS01_...` (`TypeHashNotSupported` on Humble).
    pub type_hash: String,
    /// QoS.
    pub qos: QosProfile,
}

/// A parsed token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// `NN`.
    Node(NodeInfo),
    /// `MP`, `MS`, `SS`, `SC`.
    Endpoint(EndpointInfo),
}

/// Why a key expression is not a ROS liveliness token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an rmw_zenoh liveliness token: {reason}: `{token}`")]
pub struct TokenError {
    /// What is wrong.
    pub reason: &'static str,
    /// The key expression.
    pub token: String,
}

/// `/` → `%`, as rmw_zenoh's `mangle_name`.
pub fn mangle(name: &str) -> String {
    name.replace('/', "%")
}

/// `%` → `/`, as rmw_zenoh's `demangle_name`.
pub fn demangle(name: &str) -> String {
    name.replace('%', "/")
}

/// The token of a node.
pub fn node_token(node: &NodeInfo) -> String {
    format!(
        "{PREFIX}/{}/{}/{}/{}/NN/{}/{}/{}",
        node.domain,
        node.zid,
        node.nid,
        node.nid,
        mangle(&node.enclave),
        mangle(&node.namespace),
        mangle(&node.name)
    )
}

/// The key expression of every ROS token of `domain`: its whole graph.
pub fn domain_tokens(domain: u32) -> String {
    format!("{PREFIX}/{domain}/**")
}

/// The key expression of the tokens of every `kind` endpoint named `name` (a topic or a service)
/// with type `type_name`, in any node and with any QoS; `type_hash` `None` matches any hash
/// (rmw_zenoh's service availability compares the name and the type, not the hash).
pub fn endpoints_key(
    domain: u32,
    kind: EntityKind,
    name: &str,
    type_name: &str,
    type_hash: Option<&str>,
) -> String {
    format!(
        "{PREFIX}/{domain}/*/*/*/{}/*/*/*/{}/{}/{}/**",
        kind.code(),
        mangle(name),
        mangle(type_name),
        type_hash.unwrap_or("*")
    )
}

/// The prefix of zshm's observer tokens (not ROS graph entities: `@ros2_lv` watchers never see
/// them).
pub const OBSERVER_PREFIX: &str = "@zshm_lv";

/// The liveliness token a zenoh subscriber that is not a ROS subscription declares while it
/// reads a domain's topics (a wildcard, as the status page's rate meter): lane publishers of the
/// domain keep sending through zenoh while one exists, since they know their subscribers by ROS
/// tokens alone (`ros::lane::publisher`). `id` tells apart several observers of one session.
pub fn observer_token(domain: u32, zid: &str, id: u32) -> String {
    format!("{OBSERVER_PREFIX}/{domain}/observer/{zid}/{id}")
}

/// The key expression of every observer token of `domain`.
pub fn observer_tokens(domain: u32) -> String {
    format!("{OBSERVER_PREFIX}/{domain}/observer/**")
}

/// The token of an endpoint.
pub fn endpoint_token(endpoint: &EndpointInfo) -> String {
    let node = &endpoint.node;
    format!(
        "{PREFIX}/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}",
        node.domain,
        node.zid,
        node.nid,
        endpoint.id,
        endpoint.kind.code(),
        mangle(&node.enclave),
        mangle(&node.namespace),
        mangle(&node.name),
        mangle(&endpoint.topic),
        mangle(&endpoint.type_name),
        endpoint.type_hash,
        endpoint.qos.encode()
    )
}

/// Parses a token; trailing parts after the QoS (Rolling's `backends:`) are ignored.
pub fn parse_token(token: &str) -> Result<Token, TokenError> {
    let fail = |reason| TokenError {
        reason,
        token: token.to_owned(),
    };
    let parts: Vec<&str> = token.split('/').collect();
    if parts.first() != Some(&PREFIX) {
        return Err(fail("does not start with @ros2_lv"));
    }
    if parts.len() < 9 || parts.iter().any(|p| p.is_empty()) {
        return Err(fail("too few or empty parts"));
    }
    let number = |s: &str, what| s.parse::<u32>().map_err(|_| fail(what));
    let node = NodeInfo {
        domain: number(parts[1], "bad domain")?,
        zid: parts[2].to_owned(),
        nid: number(parts[3], "bad node id")?,
        enclave: demangle(parts[6]),
        namespace: demangle(parts[7]),
        name: demangle(parts[8]),
    };
    let id = number(parts[4], "bad entity id")?;
    let kind = EntityKind::from_code(parts[5]).ok_or_else(|| fail("unknown entity kind"))?;
    if kind == EntityKind::Node {
        return Ok(Token::Node(node));
    }
    if parts.len() < 13 {
        return Err(fail("endpoint token with fewer than 13 parts"));
    }
    Ok(Token::Endpoint(EndpointInfo {
        node,
        id,
        kind,
        topic: demangle(parts[9]),
        type_name: demangle(parts[10]),
        type_hash: parts[11].to_owned(),
        qos: QosProfile::decode(parts[12]).map_err(|_| fail("bad QoS"))?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gid::Gid;
    use crate::qos::Durability;

    fn camera_driver() -> NodeInfo {
        NodeInfo {
            domain: 0,
            zid: "8b20917502ee955ac4476e0266340d5c".into(),
            nid: 0,
            enclave: "/".into(),
            namespace: "/".into(),
            name: "camera_driver".into(),
        }
    }

    const POINTS_PUBLISHER: &str = "@ros2_lv/0/8b20917502ee955ac4476e0266340d5c/0/7/MP/%/%/camera_driver/%camera%points/sensor_msgs::msg::dds_::PointCloud2_/RIHS01_9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5/2::,5:,:,:,,";

    fn points_publisher() -> EndpointInfo {
        EndpointInfo {
            node: camera_driver(),
            id: 7,
            kind: EntityKind::Publisher,
            topic: "/camera/points".into(),
            type_name: "sensor_msgs::msg::dds_::PointCloud2_".into(),
            type_hash: "RIHS01_9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5".into(),
            qos: QosProfile::sensor_data(),
        }
    }

    #[test]
    fn node_token_and_gid_match_the_worked_example() {
        let token = node_token(&camera_driver());
        assert_eq!(
            token,
            "@ros2_lv/0/8b20917502ee955ac4476e0266340d5c/0/0/NN/%/%/camera_driver"
        );
        assert_eq!(
            Gid::of_token(&token).to_string(),
            "c7b14638c926d126bc015df15614cc6b"
        );
    }

    #[test]
    fn publisher_token_and_gid_match_the_worked_example() {
        let token = endpoint_token(&points_publisher());
        assert_eq!(token, POINTS_PUBLISHER);
        assert_eq!(
            Gid::of_token(&token).to_string(),
            "7d3b22c6a516d307c54b002fa91ba934"
        );
    }

    #[test]
    fn subscription_in_a_namespace() {
        let endpoint = EndpointInfo {
            node: NodeInfo {
                nid: 3,
                namespace: "/robot1".into(),
                name: "cam".into(),
                ..camera_driver()
            },
            id: 12,
            kind: EntityKind::Subscription,
            topic: "/robot1/camera/points".into(),
            qos: QosProfile::keep_last(1).durability(Durability::TransientLocal),
            ..points_publisher()
        };
        let token = endpoint_token(&endpoint);
        assert!(token.starts_with(
            "@ros2_lv/0/8b20917502ee955ac4476e0266340d5c/3/12/MS/%/%robot1/cam/%robot1%camera%points/"
        ));
        assert!(token.ends_with("/:1:,1:,:,:,,"));
        assert_eq!(parse_token(&token).unwrap(), Token::Endpoint(endpoint));
    }

    #[test]
    fn design_doc_talker_gid() {
        let token = "@ros2_lv/2/8b20917502ee955ac4476e0266340d5c/0/10/MP/%/%/talker/%chatter/std_msgs::msg::dds_::String_/RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18/::,7:,:,:,,";
        assert_eq!(
            Gid::of_token(token).to_string(),
            "ac170f31eadcd9ff0cd86d7a17907d1c"
        );
        let Token::Endpoint(talker) = parse_token(token).unwrap() else {
            panic!("endpoint")
        };
        assert_eq!(
            (talker.node.domain, talker.id, talker.topic.as_str()),
            (2, 10, "/chatter")
        );
        assert_eq!(talker.qos, QosProfile::keep_last(7));
    }

    #[test]
    fn xxh3_reference_vectors() {
        assert_eq!(Gid::of_token("").to_string(), "7f498d4624c30160d8984701d306aa99");
        assert_eq!(
            Gid::of_token("abc").to_string(),
            "50392f89945faf7885613a73b65ab006"
        );
    }

    #[test]
    fn tokens_round_trip_and_tolerate_extensions() {
        assert_eq!(
            parse_token(POINTS_PUBLISHER).unwrap(),
            Token::Endpoint(points_publisher())
        );
        let rolling = format!("{POINTS_PUBLISHER}/backends:cpu:");
        assert_eq!(
            parse_token(&rolling).unwrap(),
            Token::Endpoint(points_publisher())
        );
        assert_eq!(
            parse_token(&node_token(&camera_driver())).unwrap(),
            Token::Node(camera_driver())
        );
        assert_eq!(camera_driver().fully_qualified_name(), "/camera_driver");
    }

    #[test]
    fn malformed_tokens_are_errors() {
        for bad in [
            "",
            "@ros2_lv/0",
            "@other/0/z/0/0/NN/%/%/n",
            "@ros2_lv/x/z/0/0/NN/%/%/n",
            "@ros2_lv/0/z/0/0/XX/%/%/n",
            "@ros2_lv/0/z/0/0/MP/%/%/n",
            "@ros2_lv/0/z/0/0/NN/%//n",
            "@ros2_lv/0/z/0/1/MP/%/%/n/%t/T_/H/bad-qos",
        ] {
            assert!(parse_token(bad).is_err(), "{bad:?}");
        }
    }
}
