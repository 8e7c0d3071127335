//! ROS 2 names: validation of node names, namespaces and topic names, and expansion of relative
//! and private (`~`) topic names to fully qualified names, following rcl
//! (`rcl_validate_topic_name`, `rcl_expand_topic_name`, `rmw_validate_full_topic_name`).
//!
//! * A node name is `[A-Za-z_][A-Za-z0-9_]*`.
//! * A namespace is absolute (`/`, `/robot1`, `/a/b`); a relative one gets a leading `/`.
//! * A topic name is made of tokens `[A-Za-z0-9_]+` (none starting with a digit) separated by
//!   single `/`, never ends with `/`, and may start with `~` (the node's private namespace) and
//!   contain the substitutions `{node}`, `{ns}` and `{namespace}`.
//! * Expansion: `/x` stays; `~` becomes `<namespace>/<node>`; `x` becomes `<namespace>/x`.

/// Why a name is not a valid ROS 2 name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// The name is empty.
    #[error("{kind} name is empty")]
    Empty {
        /// Node, namespace or topic.
        kind: &'static str,
    },
    /// A character outside `[A-Za-z0-9_/~{}]`.
    #[error("{kind} name `{name}` has an invalid character {ch:?} at {index}")]
    InvalidCharacter {
        /// Node, namespace or topic.
        kind: &'static str,
        /// The name.
        name: String,
        /// The character.
        ch: char,
        /// Its byte index.
        index: usize,
    },
    /// A token (the part between slashes) starts with a digit.
    #[error("{kind} name `{name}` has a token starting with a digit")]
    TokenStartsWithDigit {
        /// Node, namespace or topic.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// `//`, or a trailing `/`.
    #[error("{kind} name `{name}` has an empty token (`//` or a trailing `/`)")]
    EmptyToken {
        /// Node, namespace or topic.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// `~` anywhere but at the start, or not followed by `/`.
    #[error("topic name `{0}` may only start with `~` or `~/`")]
    MisplacedTilde(String),
    /// An unknown or unbalanced `{...}` substitution.
    #[error(
        "topic name `{0}` has an unknown or unbalanced substitution (known: {{node}}, {{ns}}, {{namespace}})"
    )]
    BadSubstitution(String),
}

/// Checks a node name.
pub fn validate_node_name(name: &str) -> Result<(), NameError> {
    const KIND: &str = "node";
    if name.is_empty() {
        return Err(NameError::Empty { kind: KIND });
    }
    if let Some((index, ch)) = name
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(NameError::InvalidCharacter {
            kind: KIND,
            name: name.into(),
            ch,
            index,
        });
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(NameError::TokenStartsWithDigit {
            kind: KIND,
            name: name.into(),
        });
    }
    Ok(())
}

/// Checks a namespace and returns it absolute, without a trailing `/` (`/` for the root).
pub fn normalize_namespace(namespace: &str) -> Result<String, NameError> {
    let absolute = if namespace.starts_with('/') {
        namespace.to_owned()
    } else {
        format!("/{namespace}")
    };
    if absolute == "/" {
        return Ok(absolute);
    }
    validate_fully_qualified("namespace", &absolute)?;
    Ok(absolute)
}

/// Expands `topic` for the node `node_name` in `namespace` (as given by
/// [`normalize_namespace`]) into a fully qualified name.
///
/// ```
/// use zshm_protocol::names::expand_topic_name;
/// assert_eq!(expand_topic_name("points", "cam", "/robot1").unwrap(), "/robot1/points");
/// assert_eq!(expand_topic_name("~/status", "cam", "/robot1").unwrap(), "/robot1/cam/status");
/// assert_eq!(expand_topic_name("/camera/points", "cam", "/robot1").unwrap(), "/camera/points");
/// assert!(expand_topic_name("camera//points", "cam", "/").is_err());
/// ```
pub fn expand_topic_name(topic: &str, node_name: &str, namespace: &str) -> Result<String, NameError> {
    const KIND: &str = "topic";
    if topic.is_empty() {
        return Err(NameError::Empty { kind: KIND });
    }
    if let Some((index, ch)) = topic
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || "_/~{}".contains(*c)))
    {
        return Err(NameError::InvalidCharacter {
            kind: KIND,
            name: topic.into(),
            ch,
            index,
        });
    }
    if topic[1..].contains('~') || (topic.starts_with('~') && topic.len() > 1 && !topic.starts_with("~/")) {
        return Err(NameError::MisplacedTilde(topic.into()));
    }
    let substituted = substitute(topic, node_name, namespace)?;
    let prefix = |ns: &str| if ns == "/" { String::new() } else { ns.to_owned() };
    let expanded = if let Some(rest) = substituted.strip_prefix('~') {
        format!("{}/{node_name}{rest}", prefix(namespace))
    } else if substituted.starts_with('/') {
        substituted
    } else {
        format!("{}/{substituted}", prefix(namespace))
    };
    validate_fully_qualified(KIND, &expanded).map_err(|err| match err {
        // Report the name the user wrote, not the expansion.
        NameError::EmptyToken { kind, .. } => NameError::EmptyToken {
            kind,
            name: topic.into(),
        },
        NameError::TokenStartsWithDigit { kind, .. } => NameError::TokenStartsWithDigit {
            kind,
            name: topic.into(),
        },
        other => other,
    })?;
    Ok(expanded)
}

fn substitute(topic: &str, node_name: &str, namespace: &str) -> Result<String, NameError> {
    let mut out = String::with_capacity(topic.len());
    let mut rest = topic;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| NameError::BadSubstitution(topic.into()))?
            + open;
        out.push_str(&rest[..open]);
        match &rest[open + 1..close] {
            "node" => out.push_str(node_name),
            "ns" | "namespace" => out.push_str(namespace.trim_start_matches('/')),
            _ => return Err(NameError::BadSubstitution(topic.into())),
        }
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return Err(NameError::BadSubstitution(topic.into()));
    }
    out.push_str(rest);
    Ok(out)
}

fn validate_fully_qualified(kind: &'static str, name: &str) -> Result<(), NameError> {
    if let Some((index, ch)) = name
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '/'))
    {
        return Err(NameError::InvalidCharacter {
            kind,
            name: name.into(),
            ch,
            index,
        });
    }
    for token in name.split('/').skip(1) {
        if token.is_empty() {
            return Err(NameError::EmptyToken {
                kind,
                name: name.into(),
            });
        }
        if token.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(NameError::TokenStartsWithDigit {
                kind,
                name: name.into(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_follows_rcl() {
        let cases = [
            ("chatter", "talker", "/", "/chatter"),
            ("chatter", "talker", "/robot1", "/robot1/chatter"),
            ("/chatter", "talker", "/robot1", "/chatter"),
            ("~", "talker", "/", "/talker"),
            ("~/out", "talker", "/a/b", "/a/b/talker/out"),
            ("{node}/out", "talker", "/ns", "/ns/talker/out"),
            ("/{ns}/x", "talker", "/robot1", "/robot1/x"),
            ("camera/points", "cam", "/", "/camera/points"),
            ("_hidden/x2", "n", "/", "/_hidden/x2"),
        ];
        for (topic, node, ns, expected) in cases {
            assert_eq!(expand_topic_name(topic, node, ns).unwrap(), expected, "{topic}");
        }
    }

    #[test]
    fn invalid_topic_names_are_refused() {
        for bad in [
            "", "a//b", "a/", "/", "1abc", "a/2b", "a b", "a-b", "x~", "~x", "{bogus}", "{node", "a}b", "ä",
        ] {
            assert!(
                expand_topic_name(bad, "n", "/").is_err(),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn node_names_and_namespaces() {
        validate_node_name("camera_driver").unwrap();
        for bad in ["", "1cam", "cam-1", "a/b"] {
            assert!(validate_node_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(normalize_namespace("").unwrap(), "/");
        assert_eq!(normalize_namespace("robot1").unwrap(), "/robot1");
        assert_eq!(normalize_namespace("/a/b").unwrap(), "/a/b");
        for bad in ["/a/", "//a", "/1a", "/a b"] {
            assert!(normalize_namespace(bad).is_err(), "{bad:?}");
        }
    }
}
