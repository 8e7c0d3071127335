//! Writes a [`Value`] as one line of JSON: fields in definition order, every array (also
//! `uint8[]`) a list of numbers, floats as Python's `repr` writes them and NaN and the
//! infinities as the strings `"nan"`, `"inf"`, `"-inf"` (JSON has no literal for them). Never
//! abbreviated. rosidl's placeholder field of an empty message is left out (`{}`).

use std::fmt::Write as _;

use super::Value;
use super::plan::PLACEHOLDER;

/// `value` as compact JSON.
pub(crate) fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value);
    out
}

fn write(out: &mut String, value: &Value) {
    match value {
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Value::UInt(v) => {
            let _ = write!(out, "{v}");
        }
        Value::Float(v) => out.push_str(&json_float(*v)),
        Value::String(s) => string(out, s),
        Value::Bytes(bytes) => {
            out.push('[');
            for (i, b) in bytes.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{b}");
            }
            out.push(']');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::Struct(fields) => {
            out.push('{');
            let mut first = true;
            for (name, field) in fields.iter().filter(|(n, _)| &**n != PLACEHOLDER) {
                if !first {
                    out.push(',');
                }
                first = false;
                string(out, name);
                out.push(':');
                write(out, field);
            }
            out.push('}');
        }
    }
}

/// A float in JSON: Python's repr, or `"nan"` / `"inf"` / `"-inf"`.
pub(crate) fn json_float(v: f64) -> String {
    if v.is_nan() {
        "\"nan\"".into()
    } else if v == f64::INFINITY {
        "\"inf\"".into()
    } else if v == f64::NEG_INFINITY {
        "\"-inf\"".into()
    } else {
        super::yaml_out::python_repr(v)
    }
}

fn string(out: &mut String, s: &str) {
    out.push_str(&serde_json::Value::String(s.to_owned()).to_string());
}
