//! Dynamic messages: any ROS message type, known only at run time from its definition.
//!
//! A [`MessageType`] is resolved once from an [`InterfaceSet`] (the shipped packages, or a
//! set with one's own definitions) and then decodes CDR to a [`Value`] tree, encodes a tree
//! back to CDR (byte for byte what the generated code writes), gives the type's default value
//! (definition defaults honoured: a `geometry_msgs/Quaternion` has `w: 1.0`), reads YAML or
//! JSON as `ros2 topic pub` does (fields not given keep their defaults; mistakes name the
//! field path), and writes YAML as `ros2 topic echo` prints it, or JSON.
//!
//! Decoding never panics and never allocates by a claimed length beyond the buffer: every
//! length goes through [`CdrReader`](crate::cdr::CdrReader)'s checks. Sequences of `uint8`,
//! `byte` and `char` stay one [`Value::Bytes`] buffer, so a 7 MB point cloud decodes in about
//! the time of a copy.
//!
//! This layer sits above [`msgs`](crate::msgs) (the generated types) and below [`ros`](crate::ros)
//! (nodes): it is what the `zshm topic echo` / `pub` commands, services and parameters build on.
//!
//! ```
//! use zshm::dynamic::{MessageType, YamlOptions};
//!
//! let twist = MessageType::shipped("geometry_msgs/msg/Twist")?;
//! let value = twist.from_yaml("{linear: {x: 0.5}}")?;
//! let cdr = twist.encode(&value)?;
//! assert_eq!(twist.decode(&cdr)?, value);
//! let text = value.to_yaml(&YamlOptions::default());
//! assert!(text.starts_with("linear:\n  x: 0.5\n  y: 0.0\n"));
//!
//! let err = twist.from_yaml("{linear: {x: abc}}").unwrap_err();
//! assert_eq!(err.to_string(), "linear.x: expected float64, got 'abc'");
//! # Ok::<(), zshm::dynamic::DynamicError>(())
//! ```

mod codec;
mod input;
mod json_out;
mod plan;
mod value;
mod yaml_out;

use std::sync::Arc;

use zshm_rosidl::{InterfaceSet, TypeName};

use crate::cdr::CdrError;
pub use value::Value;

/// Why a dynamic message could not be built, read or written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DynamicError {
    /// The name does not parse as `pkg/msg/Type` (or `pkg/Type`).
    #[error("'{name}' is not a message type name (expected pkg/msg/Type)")]
    BadTypeName {
        /// The text given.
        name: String,
    },
    /// The type, or a type it nests, is not in the interface set.
    #[error("unknown message type {name} (see `zshm interface list`)")]
    UnknownType {
        /// The missing type.
        name: String,
    },
    /// The payload is not valid CDR of the type; `path` is the field being read.
    #[error("{}{source}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
    Cdr {
        /// Dotted path of the field (`points[2].x`), empty for the header.
        path: String,
        /// What was wrong with the bytes.
        #[source]
        source: CdrError,
    },
    /// The text is not valid YAML or JSON.
    #[error("invalid {format}: {message}")]
    Syntax {
        /// `YAML` or `JSON`.
        format: &'static str,
        /// The parser's message, with its line and column.
        message: String,
    },
    /// A value does not fit its field: unknown field, wrong type, out of range, too long.
    #[error("{}{problem}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
    Value {
        /// Dotted path of the field (`linear.x`, `points[2]`), empty for the message itself.
        path: String,
        /// What was expected and what was given.
        problem: String,
    },
}

impl DynamicError {
    /// True when the caller's input is at fault (a type name, YAML/JSON text or a value), so
    /// the `zshm` program exits 2; false for received bytes that do not decode.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            DynamicError::BadTypeName { .. }
                | DynamicError::UnknownType { .. }
                | DynamicError::Syntax { .. }
                | DynamicError::Value { .. }
        )
    }
}

/// How [`Value::to_yaml`] writes a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlOptions {
    /// Sequences and strings longer than this are cut and end in `...`, as `ros2 topic echo`
    /// does (its `--truncate-length`, 128 by default); `None` writes everything (`--full`).
    pub truncate: Option<usize>,
}

impl Default for YamlOptions {
    fn default() -> Self {
        Self { truncate: Some(128) }
    }
}

impl Value {
    /// Block YAML as `ros2 topic echo` prints a message (without the `---` that follows it),
    /// ending in a newline. An empty message is `{}`.
    pub fn to_yaml(&self, options: &YamlOptions) -> String {
        let mut out = String::new();
        yaml_out::write(&mut out, self, options.truncate);
        out
    }

    /// One line of JSON, never abbreviated: fields in order, byte arrays as lists of numbers,
    /// floats as Python's `repr`, NaN and infinities as `"nan"`, `"inf"`, `"-inf"`.
    pub fn to_json(&self) -> String {
        json_out::to_string(self)
    }
}

/// A message type resolved from its definition, ready to decode, encode and convert values.
/// Cheap to clone.
#[derive(Debug, Clone)]
pub struct MessageType {
    plan: Arc<plan::StructPlan>,
    hash: Arc<str>,
}

impl MessageType {
    /// Resolves `name` and every type it nests in `set`.
    pub fn new(set: &InterfaceSet, name: &TypeName) -> Result<Self, DynamicError> {
        let plan = plan::StructPlan::compile(set, name)?;
        let hash = set.type_hash(name).map_err(|_| DynamicError::UnknownType {
            name: name.to_string(),
        })?;
        Ok(Self {
            plan,
            hash: hash.into(),
        })
    }

    /// A type of the packages shipped with zshm, by name (`geometry_msgs/msg/Twist`, or
    /// `geometry_msgs/Twist`).
    pub fn shipped(name: &str) -> Result<Self, DynamicError> {
        let parsed = TypeName::parse(name).ok_or_else(|| DynamicError::BadTypeName {
            name: name.to_owned(),
        })?;
        Self::new(InterfaceSet::shipped(), &parsed)
    }

    /// The type's name.
    pub fn name(&self) -> &TypeName {
        &self.plan.name
    }

    /// The REP-2011 type hash (`RIHS01_...`), as rmw_zenoh puts it in key expressions.
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// Decodes a whole CDR payload (encapsulation header included). Trailing bytes are
    /// allowed, as for the generated types.
    pub fn decode(&self, cdr: &[u8]) -> Result<Value, DynamicError> {
        codec::decode(&self.plan, cdr)
    }

    /// Encodes `value` as a whole little-endian CDR payload. Fails with the field path when
    /// the value does not fit the type (wrong kind, out of range, wrong array length).
    pub fn encode(&self, value: &Value) -> Result<Vec<u8>, DynamicError> {
        codec::encode(&self.plan, value)
    }

    /// The message with every field at its default.
    pub fn default_value(&self) -> Value {
        self.plan.default_value()
    }

    /// Reads YAML (flow `{linear: {x: 0.5}}` or block) as `ros2 topic pub` does: the fields
    /// given are set, the others keep their defaults. An empty text is the default message.
    pub fn from_yaml(&self, text: &str) -> Result<Value, DynamicError> {
        input::from_yaml(&self.plan, text, now())
    }

    /// Reads JSON, with the same rules as [`from_yaml`](Self::from_yaml).
    pub fn from_json(&self, text: &str) -> Result<Value, DynamicError> {
        input::from_json(&self.plan, text, now())
    }
}

/// The wall clock as a ROS `Time` (`header: auto`, `stamp: now`).
fn now() -> (i32, u32) {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (
        i32::try_from(since.as_secs()).unwrap_or(i32::MAX),
        since.subsec_nanos(),
    )
}

#[cfg(test)]
mod tests;
