//! The value tree a dynamic message decodes to and encodes from.

use std::sync::Arc;

/// One value of a message, as its type describes it.
///
/// Integers keep their sign class (`Int` for `int8`..`int64`, `UInt` for `uint8`..`uint64`,
/// `byte` and `char`), both float widths are `Float` (a `float32` widened exactly), `string`
/// and `wstring` are `String`. Sequences and arrays of `uint8`, `byte` or `char` are `Bytes`,
/// so a 7 MB point cloud is one buffer, not seven million nodes. A struct lists its fields in
/// definition order, including rosidl's `structure_needs_at_least_one_member` of an empty
/// message (it is on the wire; the YAML and JSON writers leave it out, as ROS does).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A `bool`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer (also `byte` and `char`).
    UInt(u64),
    /// A `float32` or `float64`.
    Float(f64),
    /// A `string` or `wstring`.
    String(String),
    /// A sequence or array of `uint8`, `byte` or `char`.
    Bytes(Vec<u8>),
    /// Any other sequence or array.
    Array(Vec<Value>),
    /// A message: its fields, in order.
    Struct(Vec<(Arc<str>, Value)>),
}

impl Value {
    /// The field `name` of a struct.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(fields) => fields.iter().find(|(n, _)| &**n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A field reached through a dotted path, such as `header.stamp.sec` (`ros2 topic echo
    /// --field`). The empty path is the value itself.
    pub fn get_path(&self, path: &str) -> Option<&Value> {
        if path.is_empty() {
            return Some(self);
        }
        path.split('.').try_fold(self, |value, name| value.get(name))
    }

    /// The field `name` of a struct, to change it.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        match self {
            Value::Struct(fields) => fields.iter_mut().find(|(n, _)| &**n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// An integer value as `u64`, when it is one and not negative.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::UInt(v) => Some(*v),
            Value::Int(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    /// An integer value as `i64`, when it is one and fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::UInt(v) => i64::try_from(*v).ok(),
            _ => None,
        }
    }

    /// A float value (integers are not converted).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(v) => Some(*v),
            _ => None,
        }
    }

    /// A string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(v) => Some(v),
            _ => None,
        }
    }
}
