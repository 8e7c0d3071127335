//! [`ParameterValue`] and [`ParameterType`]: a parameter's value as a Rust enum, and its
//! conversion to and from `rcl_interfaces/msg/ParameterValue`, the wire form in which every
//! field is always serialized and `type` says which one counts.

use std::fmt;

use crate::msgs::rcl_interfaces::msg as wire;

/// The type of a parameter, with rcl_interfaces' numbering (`ParameterType.msg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ParameterType {
    /// No value (`PARAMETER_NOT_SET`, 0).
    NotSet,
    /// `bool` (1).
    Bool,
    /// `int64` (2).
    Integer,
    /// `float64` (3).
    Double,
    /// `string` (4).
    String,
    /// `byte[]` (5).
    ByteArray,
    /// `bool[]` (6).
    BoolArray,
    /// `int64[]` (7).
    IntegerArray,
    /// `float64[]` (8).
    DoubleArray,
    /// `string[]` (9).
    StringArray,
}

impl ParameterType {
    /// The wire number (`rcl_interfaces/msg/ParameterType`).
    pub fn code(self) -> u8 {
        match self {
            ParameterType::NotSet => wire::ParameterType::PARAMETER_NOT_SET,
            ParameterType::Bool => wire::ParameterType::PARAMETER_BOOL,
            ParameterType::Integer => wire::ParameterType::PARAMETER_INTEGER,
            ParameterType::Double => wire::ParameterType::PARAMETER_DOUBLE,
            ParameterType::String => wire::ParameterType::PARAMETER_STRING,
            ParameterType::ByteArray => wire::ParameterType::PARAMETER_BYTE_ARRAY,
            ParameterType::BoolArray => wire::ParameterType::PARAMETER_BOOL_ARRAY,
            ParameterType::IntegerArray => wire::ParameterType::PARAMETER_INTEGER_ARRAY,
            ParameterType::DoubleArray => wire::ParameterType::PARAMETER_DOUBLE_ARRAY,
            ParameterType::StringArray => wire::ParameterType::PARAMETER_STRING_ARRAY,
        }
    }

    /// The type of wire number `code`; `None` for a number rcl_interfaces does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        const ALL: [ParameterType; 10] = [
            ParameterType::NotSet,
            ParameterType::Bool,
            ParameterType::Integer,
            ParameterType::Double,
            ParameterType::String,
            ParameterType::ByteArray,
            ParameterType::BoolArray,
            ParameterType::IntegerArray,
            ParameterType::DoubleArray,
            ParameterType::StringArray,
        ];
        ALL.into_iter().find(|t| t.code() == code)
    }

    /// The word rclcpp uses for it in its reasons (`integer`, `string_array`, `not set`).
    pub fn name(self) -> &'static str {
        match self {
            ParameterType::NotSet => "not set",
            ParameterType::Bool => "bool",
            ParameterType::Integer => "integer",
            ParameterType::Double => "double",
            ParameterType::String => "string",
            ParameterType::ByteArray => "byte_array",
            ParameterType::BoolArray => "bool_array",
            ParameterType::IntegerArray => "integer_array",
            ParameterType::DoubleArray => "double_array",
            ParameterType::StringArray => "string_array",
        }
    }
}

impl fmt::Display for ParameterType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A parameter's value: one of the ROS parameter types, or none.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub enum ParameterValue {
    /// No value: declared without one (dynamic typing), or, in a set, "undeclare it".
    #[default]
    NotSet,
    /// `bool`.
    Bool(bool),
    /// `int64`.
    Integer(i64),
    /// `float64`.
    Double(f64),
    /// `string`.
    String(String),
    /// `byte[]`.
    ByteArray(Vec<u8>),
    /// `bool[]`.
    BoolArray(Vec<bool>),
    /// `int64[]`.
    IntegerArray(Vec<i64>),
    /// `float64[]`.
    DoubleArray(Vec<f64>),
    /// `string[]`.
    StringArray(Vec<String>),
}

impl ParameterValue {
    /// Its type.
    pub fn parameter_type(&self) -> ParameterType {
        match self {
            ParameterValue::NotSet => ParameterType::NotSet,
            ParameterValue::Bool(_) => ParameterType::Bool,
            ParameterValue::Integer(_) => ParameterType::Integer,
            ParameterValue::Double(_) => ParameterType::Double,
            ParameterValue::String(_) => ParameterType::String,
            ParameterValue::ByteArray(_) => ParameterType::ByteArray,
            ParameterValue::BoolArray(_) => ParameterType::BoolArray,
            ParameterValue::IntegerArray(_) => ParameterType::IntegerArray,
            ParameterValue::DoubleArray(_) => ParameterType::DoubleArray,
            ParameterValue::StringArray(_) => ParameterType::StringArray,
        }
    }

    /// The bool, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ParameterValue::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// The integer, if it is one.
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            ParameterValue::Integer(v) => Some(*v),
            _ => None,
        }
    }

    /// The double, if it is one.
    pub fn as_double(&self) -> Option<f64> {
        match self {
            ParameterValue::Double(v) => Some(*v),
            _ => None,
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParameterValue::String(v) => Some(v),
            _ => None,
        }
    }

    /// The value as `rcl_interfaces/msg/ParameterValue`.
    pub fn to_msg(&self) -> wire::ParameterValue {
        let mut msg = wire::ParameterValue {
            r#type: self.parameter_type().code(),
            ..Default::default()
        };
        match self.clone() {
            ParameterValue::NotSet => {}
            ParameterValue::Bool(v) => msg.bool_value = v,
            ParameterValue::Integer(v) => msg.integer_value = v,
            ParameterValue::Double(v) => msg.double_value = v,
            ParameterValue::String(v) => msg.string_value = v,
            ParameterValue::ByteArray(v) => msg.byte_array_value = v,
            ParameterValue::BoolArray(v) => msg.bool_array_value = v,
            ParameterValue::IntegerArray(v) => msg.integer_array_value = v,
            ParameterValue::DoubleArray(v) => msg.double_array_value = v,
            ParameterValue::StringArray(v) => msg.string_array_value = v,
        }
        msg
    }

    /// The value a `rcl_interfaces/msg/ParameterValue` carries; `None` when its `type` is not
    /// one rcl_interfaces defines.
    pub fn from_msg(msg: &wire::ParameterValue) -> Option<Self> {
        Some(match ParameterType::from_code(msg.r#type)? {
            ParameterType::NotSet => ParameterValue::NotSet,
            ParameterType::Bool => ParameterValue::Bool(msg.bool_value),
            ParameterType::Integer => ParameterValue::Integer(msg.integer_value),
            ParameterType::Double => ParameterValue::Double(msg.double_value),
            ParameterType::String => ParameterValue::String(msg.string_value.clone()),
            ParameterType::ByteArray => ParameterValue::ByteArray(msg.byte_array_value.clone()),
            ParameterType::BoolArray => ParameterValue::BoolArray(msg.bool_array_value.clone()),
            ParameterType::IntegerArray => ParameterValue::IntegerArray(msg.integer_array_value.clone()),
            ParameterType::DoubleArray => ParameterValue::DoubleArray(msg.double_array_value.clone()),
            ParameterType::StringArray => ParameterValue::StringArray(msg.string_array_value.clone()),
        })
    }

    /// The value as JSON (`null` when not set; a byte array as numbers).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            ParameterValue::NotSet => serde_json::Value::Null,
            ParameterValue::Bool(v) => json!(v),
            ParameterValue::Integer(v) => json!(v),
            ParameterValue::Double(v) => json!(v),
            ParameterValue::String(v) => json!(v),
            ParameterValue::ByteArray(v) => json!(v),
            ParameterValue::BoolArray(v) => json!(v),
            ParameterValue::IntegerArray(v) => json!(v),
            ParameterValue::DoubleArray(v) => json!(v),
            ParameterValue::StringArray(v) => json!(v),
        }
    }
}

/// A double as YAML reads it back as a double: always with a `.`, an exponent or a special word.
pub(crate) fn yaml_double(v: f64) -> String {
    if v.is_nan() {
        ".nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { ".inf".into() } else { "-.inf".into() }
    } else {
        let text = format!("{v:?}");
        if text.contains(['.', 'e', 'E']) {
            text
        } else {
            format!("{text}.0")
        }
    }
}

/// A string as a YAML scalar that reads back as that string (quoted when it would read as
/// something else, or is empty).
pub(crate) fn yaml_string(v: &str) -> String {
    let plain = !v.is_empty()
        && v.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        && !v.starts_with(['-', '.'])
        && matches!(
            yaml_rust2::YamlLoader::load_from_str(v).ok().as_deref(),
            Some([yaml_rust2::Yaml::String(s)]) if s == v
        );
    if plain {
        v.to_owned()
    } else {
        format!("'{}'", v.replace('\'', "''"))
    }
}

/// YAML flow form: `true`, `5`, `2.5`, `'text'`, `[1, 2]`; what `--params-file`, `-p` and
/// `zshm param set` read back as the same type (a byte array as its numbers).
impl fmt::Display for ParameterValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T>(f: &mut fmt::Formatter<'_>, items: &[T], each: impl Fn(&T) -> String) -> fmt::Result {
            let items: Vec<String> = items.iter().map(each).collect();
            write!(f, "[{}]", items.join(", "))
        }
        match self {
            ParameterValue::NotSet => f.write_str("~"),
            ParameterValue::Bool(v) => write!(f, "{v}"),
            ParameterValue::Integer(v) => write!(f, "{v}"),
            ParameterValue::Double(v) => f.write_str(&yaml_double(*v)),
            ParameterValue::String(v) => f.write_str(&yaml_string(v)),
            ParameterValue::ByteArray(v) => list(f, v, |b| b.to_string()),
            ParameterValue::BoolArray(v) => list(f, v, |b| b.to_string()),
            ParameterValue::IntegerArray(v) => list(f, v, |i| i.to_string()),
            ParameterValue::DoubleArray(v) => list(f, v, |d| yaml_double(*d)),
            ParameterValue::StringArray(v) => list(f, v, |s| yaml_string(s)),
        }
    }
}

macro_rules! from_value {
    ($($t:ty => $variant:ident),* $(,)?) => {
        $(impl From<$t> for ParameterValue {
            fn from(v: $t) -> Self {
                ParameterValue::$variant(v.into())
            }
        })*
    };
}

from_value! {
    bool => Bool,
    i64 => Integer,
    i32 => Integer,
    u32 => Integer,
    f64 => Double,
    f32 => Double,
    String => String,
    &str => String,
    Vec<u8> => ByteArray,
    Vec<bool> => BoolArray,
    Vec<i64> => IntegerArray,
    Vec<f64> => DoubleArray,
    Vec<String> => StringArray,
}

impl From<Vec<&str>> for ParameterValue {
    fn from(v: Vec<&str>) -> Self {
        ParameterValue::StringArray(v.into_iter().map(str::to_owned).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_survives_the_wire_form() {
        let values = [
            ParameterValue::NotSet,
            true.into(),
            5i64.into(),
            2.5.into(),
            "text".into(),
            vec![1u8, 2].into(),
            vec![true, false].into(),
            vec![1i64, -2].into(),
            vec![0.5, 1.0].into(),
            vec!["a", "b"].into(),
        ];
        for (code, value) in values.iter().enumerate() {
            let msg = value.to_msg();
            assert_eq!(usize::from(msg.r#type), code);
            assert_eq!(ParameterValue::from_msg(&msg).as_ref(), Some(value));
        }
        let bad = wire::ParameterValue {
            r#type: 10,
            ..Default::default()
        };
        assert_eq!(ParameterValue::from_msg(&bad), None);
    }

    #[test]
    fn display_is_yaml_that_keeps_the_type() {
        assert_eq!(ParameterValue::Double(15.0).to_string(), "15.0");
        assert_eq!(ParameterValue::Double(1e20).to_string(), "1e20");
        assert_eq!(ParameterValue::String("5".into()).to_string(), "'5'");
        assert_eq!(ParameterValue::String("true".into()).to_string(), "'true'");
        assert_eq!(ParameterValue::String("".into()).to_string(), "''");
        assert_eq!(ParameterValue::String("it's".into()).to_string(), "'it''s'");
        assert_eq!(
            ParameterValue::String("camera_frame".into()).to_string(),
            "camera_frame"
        );
        assert_eq!(ParameterValue::from(vec!["a", "1"]).to_string(), "[a, '1']");
    }
}
