//! YAML and JSON text to a [`Value`] of a given type, as `ros2 topic pub` reads its argument:
//! a mapping of the fields to set (nested as the message is), every other field at its
//! default. `header: auto` and a `builtin_interfaces/Time` given as `now` take the current
//! time, as with ros2.
//!
//! YAML is read with `yaml-rust2`: a maintained pure-Rust YAML 1.2 parser (the successor of
//! `yaml-rust`, without unsafe code or a C library); `serde_yaml` is deprecated and unmaintained.
//! Only its plain tree is used, so no serde layer is needed.

use std::sync::Arc;

use yaml_rust2::{Yaml, YamlLoader};
use zshm_rosidl::{ArrayKind, Primitive};

use super::plan::{FieldPlan, Kind, StructPlan};
use super::{DynamicError, Value};

/// A parsed document, whichever text format it came from.
#[derive(Debug)]
enum Doc {
    Null,
    Bool(bool),
    Int(i128),
    /// A float with the text it was written as.
    Float(f64, String),
    Str(String),
    List(Vec<Doc>),
    Map(Vec<(String, Doc)>),
}

impl Doc {
    /// How the value is quoted in an error: `'abc'`, `1.5`, `a list`.
    fn describe(&self) -> String {
        match self {
            Doc::Null => "null".into(),
            Doc::Bool(b) => b.to_string(),
            Doc::Int(i) => i.to_string(),
            Doc::Float(_, text) => text.clone(),
            Doc::Str(s) => format!("'{s}'"),
            Doc::List(_) => "a list".into(),
            Doc::Map(_) => "a mapping".into(),
        }
    }
}

fn from_yaml_node(node: Yaml) -> Result<Doc, String> {
    Ok(match node {
        Yaml::Null => Doc::Null,
        Yaml::Boolean(b) => Doc::Bool(b),
        Yaml::Integer(i) => Doc::Int(i.into()),
        Yaml::Real(text) => match Yaml::Real(text.clone()).as_f64() {
            Some(v) => Doc::Float(v, text),
            None => Doc::Str(text),
        },
        Yaml::String(s) => Doc::Str(s),
        Yaml::Array(items) => Doc::List(items.into_iter().map(from_yaml_node).collect::<Result<_, _>>()?),
        Yaml::Hash(map) => {
            let mut fields = Vec::with_capacity(map.len());
            for (key, value) in map {
                let key = match key {
                    Yaml::String(s) => s,
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Real(r) => r,
                    other => return Err(format!("mapping keys must be field names, not {other:?}")),
                };
                fields.push((key, from_yaml_node(value)?));
            }
            Doc::Map(fields)
        }
        Yaml::Alias(_) => return Err("YAML aliases are not supported".into()),
        Yaml::BadValue => return Err("invalid YAML value".into()),
    })
}

fn from_json_node(node: serde_json::Value) -> Doc {
    match node {
        serde_json::Value::Null => Doc::Null,
        serde_json::Value::Bool(b) => Doc::Bool(b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Doc::Int(i.into())
            } else if let Some(u) = n.as_u64() {
                Doc::Int(u.into())
            } else {
                Doc::Float(n.as_f64().unwrap_or(f64::NAN), n.to_string())
            }
        }
        serde_json::Value::String(s) => Doc::Str(s),
        serde_json::Value::Array(items) => Doc::List(items.into_iter().map(from_json_node).collect()),
        serde_json::Value::Object(map) => {
            Doc::Map(map.into_iter().map(|(k, v)| (k, from_json_node(v))).collect())
        }
    }
}

/// Parses YAML text into a value of `plan`'s type.
pub(crate) fn from_yaml(plan: &StructPlan, text: &str, now: (i32, u32)) -> Result<Value, DynamicError> {
    let docs = YamlLoader::load_from_str(text).map_err(|err| DynamicError::Syntax {
        format: "YAML",
        message: err.to_string(),
    })?;
    if docs.len() > 1 {
        return Err(DynamicError::Syntax {
            format: "YAML",
            message: format!("{} documents given, one message expected", docs.len()),
        });
    }
    let doc = match docs.into_iter().next() {
        Some(node) => from_yaml_node(node).map_err(|message| DynamicError::Syntax {
            format: "YAML",
            message,
        })?,
        None => Doc::Null,
    };
    conform_root(plan, doc, now)
}

/// Parses JSON text into a value of `plan`'s type.
pub(crate) fn from_json(plan: &StructPlan, text: &str, now: (i32, u32)) -> Result<Value, DynamicError> {
    let node: serde_json::Value = serde_json::from_str(text).map_err(|err| DynamicError::Syntax {
        format: "JSON",
        message: err.to_string(),
    })?;
    conform_root(plan, from_json_node(node), now)
}

fn conform_root(plan: &StructPlan, doc: Doc, now: (i32, u32)) -> Result<Value, DynamicError> {
    let mut value = plan.default_value();
    let doc = match doc {
        // An empty argument, `{}`: every field at its default.
        Doc::Null => return Ok(value),
        doc => doc,
    };
    Conformer { now }
        .merge_struct(plan, doc, &mut value)
        .map_err(|(path, problem)| DynamicError::Value { path, problem })?;
    Ok(value)
}

type Fail = (String, String);

fn at(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_owned()
    } else if segment.starts_with('[') {
        format!("{path}{segment}")
    } else {
        format!("{path}.{segment}")
    }
}

struct Conformer {
    now: (i32, u32),
}

impl Conformer {
    /// Sets the fields named in `doc` on `value` (already at its default), path by path.
    fn merge_struct(&self, plan: &StructPlan, doc: Doc, value: &mut Value) -> Result<(), Fail> {
        self.merge_struct_at(plan, doc, value, "")
    }

    fn merge_struct_at(
        &self,
        plan: &StructPlan,
        doc: Doc,
        value: &mut Value,
        path: &str,
    ) -> Result<(), Fail> {
        let full = format!("{}/{}", plan.name.package, plan.name.name);
        // ros2's shortcuts: `header: auto`, `stamp: now`.
        if let Doc::Str(word) = &doc {
            if full == "std_msgs/Header" && word == "auto" {
                let stamp = value.get_mut("stamp").expect("Header has a stamp");
                *stamp = self.time();
                return Ok(());
            }
            if full == "builtin_interfaces/Time" && word == "now" {
                *value = self.time();
                return Ok(());
            }
        }
        let Doc::Map(entries) = doc else {
            return Err((
                path.to_owned(),
                format!("expected a mapping of {full}'s fields, got {}", doc.describe()),
            ));
        };
        for (name, item) in entries {
            let field_path = at(path, &name);
            let Some(field) = plan.fields.iter().find(|f| *f.name == *name && !f.placeholder) else {
                let known: Vec<&str> = plan
                    .fields
                    .iter()
                    .filter(|f| !f.placeholder)
                    .map(|f| &*f.name)
                    .collect();
                let has = if known.is_empty() {
                    format!("{full} has no fields")
                } else {
                    format!("{full} has {}", known.join(", "))
                };
                return Err((field_path, format!("unknown field ({has})")));
            };
            let slot = value.get_mut(&name).expect("defaults hold every field");
            *slot = self.field(field, item, slot.clone(), &field_path)?;
        }
        Ok(())
    }

    fn time(&self) -> Value {
        Value::Struct(vec![
            (Arc::from("sec"), Value::Int(self.now.0.into())),
            (Arc::from("nanosec"), Value::UInt(self.now.1.into())),
        ])
    }

    fn field(&self, field: &FieldPlan, doc: Doc, current: Value, path: &str) -> Result<Value, Fail> {
        if field.array == ArrayKind::Single {
            return self.element(&field.kind, doc, current, path);
        }
        // `data: []` and lists; a string for a uint8[] is refused (say the numbers).
        let Doc::List(items) = doc else {
            return Err((
                path.to_owned(),
                format!("expected {} (a list), got {}", field.describe(), doc.describe()),
            ));
        };
        match field.array {
            ArrayKind::Fixed(n) if items.len() != n as usize => {
                return Err((
                    path.to_owned(),
                    format!(
                        "{} needs exactly {n} elements, got {}",
                        field.describe(),
                        items.len()
                    ),
                ));
            }
            ArrayKind::Bounded(n) if items.len() > n as usize => {
                return Err((
                    path.to_owned(),
                    format!(
                        "{} takes at most {n} elements, got {}",
                        field.describe(),
                        items.len()
                    ),
                ));
            }
            _ => {}
        }
        let mut values = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let zero = field.kind.zero();
            values.push(self.element(&field.kind, item, zero, &format!("{path}[{i}]"))?);
        }
        if field.kind.is_byte_like() {
            Ok(Value::Bytes(
                values.iter().map(|v| v.as_u64().unwrap_or(0) as u8).collect(),
            ))
        } else {
            Ok(Value::Array(values))
        }
    }

    fn element(&self, kind: &Kind, doc: Doc, mut current: Value, path: &str) -> Result<Value, Fail> {
        let wrong = |doc: &Doc| {
            (
                path.to_owned(),
                format!("expected {}, got {}", kind.describe(), doc.describe()),
            )
        };
        match kind {
            Kind::Struct(plan) => {
                self.merge_struct_at(plan, doc, &mut current, path)?;
                Ok(current)
            }
            Kind::String { bound } | Kind::WString { bound } => {
                // As ros2 does (`str(value)`): `data: 5` is the string "5".
                let text = match doc {
                    Doc::Str(s) => s,
                    Doc::Int(i) => i.to_string(),
                    Doc::Float(v, _) => super::yaml_out::python_repr(v),
                    Doc::Bool(b) => if b { "True" } else { "False" }.to_owned(),
                    other => return Err(wrong(&other)),
                };
                if let Some(bound) = bound {
                    let len = text.chars().count();
                    if len > *bound as usize {
                        return Err((
                            path.to_owned(),
                            format!("{} takes at most {bound} characters, got {len}", kind.describe()),
                        ));
                    }
                }
                Ok(Value::String(text))
            }
            Kind::Primitive(Primitive::Bool) => match doc {
                Doc::Bool(b) => Ok(Value::Bool(b)),
                other => Err(wrong(&other)),
            },
            Kind::Primitive(p) if p.is_float() => {
                let v = match &doc {
                    Doc::Float(v, _) => *v,
                    Doc::Int(i) => *i as f64,
                    Doc::Str(s) => s.trim().parse::<f64>().map_err(|_| wrong(&doc))?,
                    other => return Err(wrong(other)),
                };
                if *p == Primitive::Float32 && v.is_finite() && v.abs() > f64::from(f32::MAX) {
                    return Err((path.to_owned(), format!("{v} is out of range for float32")));
                }
                Ok(Value::Float(if *p == Primitive::Float32 {
                    f64::from(v as f32)
                } else {
                    v
                }))
            }
            Kind::Primitive(p) => {
                let int: i128 = match &doc {
                    Doc::Int(i) => *i,
                    Doc::Str(s) => s.trim().parse::<i128>().map_err(|_| wrong(&doc))?,
                    other => return Err(wrong(other)),
                };
                let (lo, hi) = p.int_range().expect("integer types have a range");
                if int < lo || int > hi {
                    return Err((
                        path.to_owned(),
                        format!("{int} is out of range for {} ({lo}..={hi})", p.keyword()),
                    ));
                }
                Ok(match p {
                    Primitive::Int8 | Primitive::Int16 | Primitive::Int32 | Primitive::Int64 => {
                        Value::Int(int as i64)
                    }
                    _ => Value::UInt(int as u64),
                })
            }
        }
    }
}
