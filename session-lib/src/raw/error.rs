//! The errors of the raw layer, one per operation: declaring, publishing.

/// Why a publisher or a subscription could not be declared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeclareError {
    /// The key expression is not valid zenoh syntax: fix the key (no `//`, no empty chunk, `*`
    /// and `**` only as whole chunks).
    #[error("invalid key expression `{key}`")]
    KeyExpr {
        /// The key expression.
        key: String,
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
    /// zenoh refused the declaration (for example, the session is closed).
    #[error("zenoh refused the declaration on `{key}`")]
    Zenoh {
        /// The key expression.
        key: String,
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
}

impl DeclareError {
    /// True when the caller's input is at fault (an invalid key expression), not the system.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, DeclareError::KeyExpr { .. })
    }

    pub(crate) fn parse_key(key: &str) -> Result<zenoh::key_expr::KeyExpr<'static>, Self> {
        zenoh::key_expr::KeyExpr::try_from(key.to_owned()).map_err(|source| DeclareError::KeyExpr {
            key: key.to_owned(),
            source,
        })
    }
}

/// Why a message could not be sent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// zenoh refused the put (for example, the session is closed).
    #[error("zenoh refused to publish on `{key}`")]
    Zenoh {
        /// The key expression.
        key: String,
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
}
