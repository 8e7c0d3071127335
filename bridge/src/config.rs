//! What the bridge bridges: the DDS domain and interfaces, allow/deny regular expressions per
//! kind of endpoint, and frequency caps per topic, as zenoh-bridge-ros2dds configures them.
//!
//! Filters match the fully qualified ROS topic name (`/chatter`, not `rt/chatter`). A kind
//! names the endpoint on the DDS side whose topic would be bridged: `publisher` filters the
//! routes DDS → zenoh (a DDS publisher's topic), `subscriber` the routes zenoh → DDS (a DDS
//! subscription's topic), `service_server` the routes of zenoh clients to a DDS server and
//! `service_client` those of DDS clients to a zenoh server (on the service name). `allow` and `deny` can both be given: a topic passes when it matches an
//! allow (or there is none) and matches no deny.

use std::net::IpAddr;
use std::time::Duration;

use regex::Regex;

/// A kind of ROS endpoint on the DDS side, as the filters name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// A DDS publisher (routes DDS → zenoh).
    Publisher,
    /// A DDS subscription (routes zenoh → DDS).
    Subscriber,
    /// A DDS service server (routes zenoh clients to it).
    ServiceServer,
    /// A DDS service client (routes it to zenoh servers).
    ServiceClient,
}

impl Kind {
    /// The name used on the command line.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Publisher => "publisher",
            Kind::Subscriber => "subscriber",
            Kind::ServiceServer => "service_server",
            Kind::ServiceClient => "service_client",
        }
    }

    fn parse(text: &str) -> Result<Self, ConfigError> {
        match text {
            "publisher" | "publishers" | "pub" => Ok(Kind::Publisher),
            "subscriber" | "subscribers" | "sub" => Ok(Kind::Subscriber),
            "service_server" | "service_servers" => Ok(Kind::ServiceServer),
            "service_client" | "service_clients" => Ok(Kind::ServiceClient),
            // An action travels as its services and topics, which those kinds filter; a filter
            // on the action as one would silently do nothing, so it is refused instead.
            "action_server" | "action_client" => Err(ConfigError::NotBridgedYet {
                kind: text.to_owned(),
            }),
            _ => Err(ConfigError::UnknownKind {
                kind: text.to_owned(),
            }),
        }
    }
}

/// Why a bridge setting was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A filter is not `KIND=REGEX`, or a cap not `REGEX=HZ`.
    #[error("`{text}`: expected {expected}")]
    Syntax {
        /// The value given.
        text: String,
        /// What was expected.
        expected: &'static str,
    },
    /// The kind of a filter is not one the bridge knows.
    #[error("unknown endpoint kind `{kind}`: use publisher or subscriber")]
    UnknownKind {
        /// The kind given.
        kind: String,
    },
    /// The kind is an action kind, which the bridge does not filter as one.
    #[error(
        "`{kind}`: actions are bridged as their services and topics; filter those (service_server=^/name/_action/, publisher=^/name/_action/)"
    )]
    NotBridgedYet {
        /// The kind given.
        kind: String,
    },
    /// A regular expression does not compile.
    #[error("bad regular expression `{pattern}`")]
    Regex {
        /// The expression.
        pattern: String,
        /// The regex crate's explanation.
        #[source]
        source: regex::Error,
    },
    /// A frequency is not a positive number.
    #[error("`{text}`: the frequency must be a positive number of Hz")]
    Frequency {
        /// The value given.
        text: String,
    },
    /// An interface is not an IP address.
    #[error("DDS interface `{text}` is not an IP address (e.g. 127.0.0.1 or 192.168.1.10)")]
    Interface {
        /// The value given.
        text: String,
    },
    /// The domain does not fit DDS's port mapping (0 to 232).
    #[error("ROS domain {domain} is out of range: DDS supports 0 to 232")]
    Domain {
        /// The domain given.
        domain: u32,
    },
}

/// The highest DDS domain whose ports still fit in 16 bits (7400 + 250 × domain + 11).
pub const MAX_DOMAIN: u32 = 232;

/// One allow or deny rule.
#[derive(Debug, Clone)]
struct Rule {
    kind: Kind,
    allow: bool,
    regex: Regex,
}

/// A frequency cap on the topics matching `regex`.
#[derive(Debug, Clone)]
pub struct FrequencyCap {
    regex: Regex,
    /// The least time between two forwarded messages.
    pub period: Duration,
    /// The cap as given, in Hz.
    pub hz: f64,
}

/// Everything the bridge is told.
#[derive(Debug, Clone)]
pub struct BridgeConfig {
    /// The ROS domain: the DDS domain id and the zenoh key prefix.
    pub domain: u32,
    /// The local addresses DDS uses for discovery and data (default: loopback only).
    pub interfaces: Vec<IpAddr>,
    /// The bridge's node name on the zenoh side.
    pub node_name: String,
    rules: Vec<Rule>,
    caps: Vec<FrequencyCap>,
}

impl BridgeConfig {
    /// A bridge of `domain` on loopback, bridging everything.
    pub fn new(domain: u32) -> Result<Self, ConfigError> {
        if domain > MAX_DOMAIN {
            return Err(ConfigError::Domain { domain });
        }
        Ok(Self {
            domain,
            interfaces: vec![IpAddr::from([127, 0, 0, 1])],
            node_name: "zshm_bridge".into(),
            rules: Vec::new(),
            caps: Vec::new(),
        })
    }

    /// Replaces the DDS interfaces with these addresses (`127.0.0.1`, `192.168.1.10`).
    pub fn interfaces<'a>(
        mut self,
        addresses: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, ConfigError> {
        let parsed: Vec<IpAddr> = addresses
            .into_iter()
            .map(|text| {
                text.parse().map_err(|_| ConfigError::Interface {
                    text: text.to_owned(),
                })
            })
            .collect::<Result<_, _>>()?;
        if !parsed.is_empty() {
            self.interfaces = parsed;
        }
        Ok(self)
    }

    /// Adds an allow (`allow = true`) or deny rule from `KIND=REGEX`.
    pub fn rule(mut self, text: &str, allow: bool) -> Result<Self, ConfigError> {
        let (kind, pattern) = text.split_once('=').ok_or_else(|| ConfigError::Syntax {
            text: text.to_owned(),
            expected: "KIND=REGEX, e.g. publisher=^/camera/",
        })?;
        let kind = Kind::parse(kind.trim())?;
        self.rules.push(Rule {
            kind,
            allow,
            regex: compile(pattern)?,
        });
        Ok(self)
    }

    /// Adds a frequency cap from `REGEX=HZ`.
    pub fn max_frequency(mut self, text: &str) -> Result<Self, ConfigError> {
        let (pattern, hz) = text.rsplit_once('=').ok_or_else(|| ConfigError::Syntax {
            text: text.to_owned(),
            expected: "REGEX=HZ, e.g. ^/camera/=5",
        })?;
        let hz: f64 = hz
            .trim()
            .parse()
            .ok()
            .filter(|hz: &f64| hz.is_finite() && *hz > 0.0)
            .ok_or_else(|| ConfigError::Frequency {
                text: text.to_owned(),
            })?;
        self.caps.push(FrequencyCap {
            regex: compile(pattern)?,
            period: Duration::from_secs_f64(1.0 / hz),
            hz,
        });
        Ok(self)
    }

    /// Whether the topic of an endpoint of `kind` may be bridged.
    pub fn allows(&self, kind: Kind, topic: &str) -> bool {
        let mut allows = self.rules.iter().filter(|r| r.kind == kind && r.allow).peekable();
        let allowed = allows.peek().is_none() || allows.any(|r| r.regex.is_match(topic));
        let denied = self
            .rules
            .iter()
            .any(|r| r.kind == kind && !r.allow && r.regex.is_match(topic));
        allowed && !denied
    }

    /// The cap of `topic` (the first matching), if any.
    pub fn cap(&self, topic: &str) -> Option<&FrequencyCap> {
        self.caps.iter().find(|cap| cap.regex.is_match(topic))
    }
}

fn compile(pattern: &str) -> Result<Regex, ConfigError> {
    Regex::new(pattern).map_err(|source| ConfigError::Regex {
        pattern: pattern.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_and_deny_combine_per_kind() {
        let config = BridgeConfig::new(0)
            .unwrap()
            .rule("publisher=^/camera/", true)
            .unwrap()
            .rule("publisher=depth", false)
            .unwrap()
            .rule("subscriber=^/secret$", false)
            .unwrap();
        assert!(config.allows(Kind::Publisher, "/camera/points"));
        assert!(!config.allows(Kind::Publisher, "/camera/depth"));
        assert!(!config.allows(Kind::Publisher, "/chatter"));
        assert!(config.allows(Kind::Subscriber, "/chatter"));
        assert!(!config.allows(Kind::Subscriber, "/secret"));
    }

    #[test]
    fn bad_settings_are_errors_not_panics() {
        let base = || BridgeConfig::new(0).unwrap();
        assert!(matches!(
            base().rule("publisher", true),
            Err(ConfigError::Syntax { .. })
        ));
        assert!(matches!(
            base().rule("topic=x", true),
            Err(ConfigError::UnknownKind { .. })
        ));
        assert!(matches!(
            base().rule("action_server=x", true),
            Err(ConfigError::NotBridgedYet { .. })
        ));
        assert!(matches!(
            base().rule("publisher=(", true),
            Err(ConfigError::Regex { .. })
        ));
        assert!(matches!(
            base().max_frequency("x=0"),
            Err(ConfigError::Frequency { .. })
        ));
        assert!(matches!(
            base().max_frequency("x=abc"),
            Err(ConfigError::Frequency { .. })
        ));
        assert!(matches!(
            base().max_frequency("x"),
            Err(ConfigError::Syntax { .. })
        ));
        assert!(matches!(
            base().interfaces(["eth0"]),
            Err(ConfigError::Interface { .. })
        ));
        assert!(matches!(BridgeConfig::new(233), Err(ConfigError::Domain { .. })));
    }

    #[test]
    fn caps_match_by_regex_and_keep_the_period() {
        let config = BridgeConfig::new(0)
            .unwrap()
            .max_frequency("^/camera/.*=4")
            .unwrap();
        let cap = config.cap("/camera/points").unwrap();
        assert_eq!(cap.period, Duration::from_millis(250));
        assert!(config.cap("/chatter").is_none());
    }
}
