//! CDR to a [`Value`] tree and back, following a [`StructPlan`]. The bytes are the same as the
//! generated code writes (both go through [`CdrSink`]); reading goes through [`CdrReader`], so
//! every claimed length is checked against the bytes left before anything is allocated.

use zshm_rosidl::{ArrayKind, Primitive};

use super::plan::{FieldPlan, Kind, StructPlan};
use super::{DynamicError, Value};
use crate::cdr::{CdrError, CdrReader, CdrSink, ENCAPSULATION_LE};

/// The `field` name CDR errors carry; the full path is added by [`DynamicError`].
const FIELD: &str = "this field";

/// Where a decode or encode failed: path segments, innermost first, joined once at the top.
pub(crate) struct Trail<E> {
    segments: Vec<String>,
    error: E,
}

impl<E> Trail<E> {
    fn new(error: E) -> Self {
        Self {
            segments: Vec::new(),
            error,
        }
    }

    fn at(mut self, segment: String) -> Self {
        self.segments.push(segment);
        self
    }

    /// The dotted path (`points[3].x`) and the error.
    pub fn into_parts(self) -> (String, E) {
        let mut path = String::new();
        for segment in self.segments.iter().rev() {
            if !path.is_empty() && !segment.starts_with('[') {
                path.push('.');
            }
            path.push_str(segment);
        }
        (path, self.error)
    }
}

/// Decodes a whole payload (encapsulation header included).
pub(crate) fn decode(plan: &StructPlan, bytes: &[u8]) -> Result<Value, DynamicError> {
    let mut reader = CdrReader::new(bytes).map_err(|source| DynamicError::Cdr {
        path: String::new(),
        source,
    })?;
    read_struct(plan, &mut reader).map_err(|trail| {
        let (path, source) = trail.into_parts();
        DynamicError::Cdr { path, source }
    })
}

fn read_struct(plan: &StructPlan, r: &mut CdrReader<'_>) -> Result<Value, Trail<CdrError>> {
    let mut fields = Vec::with_capacity(plan.fields.len());
    for field in &plan.fields {
        let value = read_field(field, r).map_err(|t| t.at(field.name.to_string()))?;
        fields.push((field.name.clone(), value));
    }
    Ok(Value::Struct(fields))
}

fn read_field(field: &FieldPlan, r: &mut CdrReader<'_>) -> Result<Value, Trail<CdrError>> {
    let count = match field.array {
        ArrayKind::Single => return read_one(&field.kind, r),
        ArrayKind::Fixed(n) => n as usize,
        ArrayKind::Bounded(_) | ArrayKind::Unbounded => {
            if field.kind.is_byte_like() {
                return Ok(Value::Bytes(r.bytes(FIELD).map_err(Trail::new)?.to_vec()));
            }
            let min = match &field.kind {
                Kind::Primitive(p) => p.size(),
                Kind::String { .. } => 5,
                Kind::WString { .. } => 4,
                Kind::Struct(plan) => plan.min_size,
            };
            r.sequence_len(FIELD, min).map_err(Trail::new)?
        }
    };
    if field.kind.is_byte_like() {
        let mut bytes = Vec::with_capacity(count.min(r.remaining()));
        for _ in 0..count {
            bytes.push(r.u8().map_err(Trail::new)?);
        }
        return Ok(Value::Bytes(bytes));
    }
    // A fixed array's length comes from the definition, not the wire: still never reserve more
    // than the bytes left could hold.
    let mut items = Vec::with_capacity(count.min(r.remaining()));
    for i in 0..count {
        items.push(read_one(&field.kind, r).map_err(|t| t.at(format!("[{i}]")))?);
    }
    Ok(Value::Array(items))
}

fn read_one(kind: &Kind, r: &mut CdrReader<'_>) -> Result<Value, Trail<CdrError>> {
    let value = match kind {
        Kind::Primitive(p) => match p {
            Primitive::Bool => Value::Bool(r.bool(FIELD).map_err(Trail::new)?),
            Primitive::Byte | Primitive::Char | Primitive::IdlChar | Primitive::UInt8 => {
                Value::UInt(r.u8().map_err(Trail::new)?.into())
            }
            Primitive::WChar => Value::UInt(r.u16().map_err(Trail::new)?.into()),
            Primitive::Int8 => Value::Int(r.i8().map_err(Trail::new)?.into()),
            Primitive::Int16 => Value::Int(r.i16().map_err(Trail::new)?.into()),
            Primitive::UInt16 => Value::UInt(r.u16().map_err(Trail::new)?.into()),
            Primitive::Int32 => Value::Int(r.i32().map_err(Trail::new)?.into()),
            Primitive::UInt32 => Value::UInt(r.u32().map_err(Trail::new)?.into()),
            Primitive::Int64 => Value::Int(r.i64().map_err(Trail::new)?),
            Primitive::UInt64 => Value::UInt(r.u64().map_err(Trail::new)?),
            Primitive::Float32 => Value::Float(r.f32().map_err(Trail::new)?.into()),
            Primitive::Float64 => Value::Float(r.f64().map_err(Trail::new)?),
        },
        Kind::String { .. } => Value::String(r.string(FIELD).map_err(Trail::new)?.to_owned()),
        Kind::WString { .. } => Value::String(r.wstring(FIELD).map_err(Trail::new)?),
        Kind::Struct(plan) => read_struct(plan, r)?,
    };
    Ok(value)
}

/// A sink that grows a vector: one pass, the size is whatever was written.
struct VecSink(Vec<u8>);

impl CdrSink for VecSink {
    fn position(&self) -> usize {
        self.0.len()
    }
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn pad(&mut self, n: usize) {
        self.0.resize(self.0.len() + n, 0);
    }
    fn skip_uninit(&mut self, n: usize) {
        self.pad(n);
    }
}

/// Why a value does not fit its type (the path is added by the caller).
#[derive(Debug)]
pub(crate) struct Mismatch(pub String);

/// Encodes `value` as a whole payload of type `plan`.
pub(crate) fn encode(plan: &StructPlan, value: &Value) -> Result<Vec<u8>, DynamicError> {
    let mut sink = VecSink(Vec::with_capacity(64));
    sink.put(&ENCAPSULATION_LE);
    write_struct(plan, value, &mut sink).map_err(|trail| {
        let (path, Mismatch(problem)) = trail.into_parts();
        DynamicError::Value { path, problem }
    })?;
    Ok(sink.0)
}

fn write_struct(plan: &StructPlan, value: &Value, sink: &mut VecSink) -> Result<(), Trail<Mismatch>> {
    let Value::Struct(fields) = value else {
        return Err(Trail::new(Mismatch(format!("expected a {} message", plan.name))));
    };
    if fields.len() != plan.fields.len() {
        return Err(Trail::new(Mismatch(format!(
            "{} has {} fields, the value {}",
            plan.name,
            plan.fields.len(),
            fields.len()
        ))));
    }
    for (field, (name, value)) in plan.fields.iter().zip(fields) {
        if **name != *field.name {
            return Err(Trail::new(Mismatch(format!(
                "expected field {}, found {name}",
                field.name
            ))));
        }
        write_field(field, value, sink).map_err(|t| t.at(field.name.to_string()))?;
    }
    Ok(())
}

fn write_field(field: &FieldPlan, value: &Value, sink: &mut VecSink) -> Result<(), Trail<Mismatch>> {
    if field.array == ArrayKind::Single {
        return write_one(&field.kind, value, sink);
    }
    let len = match value {
        Value::Bytes(b) if field.kind.is_byte_like() => b.len(),
        Value::Array(items) => items.len(),
        _ => {
            return Err(Trail::new(Mismatch(format!("expected {}", field.describe()))));
        }
    };
    match field.array {
        ArrayKind::Fixed(n) if len != n as usize => {
            return Err(Trail::new(Mismatch(format!(
                "expected exactly {n} elements, got {len}"
            ))));
        }
        ArrayKind::Bounded(n) if len > n as usize => {
            return Err(Trail::new(Mismatch(format!(
                "at most {n} elements allowed, got {len}"
            ))));
        }
        ArrayKind::Bounded(_) | ArrayKind::Unbounded => sink.sequence_len(len),
        _ => {}
    }
    match value {
        Value::Bytes(bytes) => sink.put(bytes),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                write_one(&field.kind, item, sink).map_err(|t| t.at(format!("[{i}]")))?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn write_one(kind: &Kind, value: &Value, sink: &mut VecSink) -> Result<(), Trail<Mismatch>> {
    let wrong = || {
        Trail::new(Mismatch(format!(
            "expected {}, got {}",
            kind.describe(),
            kind_of(value)
        )))
    };
    match kind {
        Kind::Primitive(p) => match p {
            Primitive::Bool => match value {
                Value::Bool(b) => sink.bool(*b),
                _ => return Err(wrong()),
            },
            Primitive::Float32 => sink.f32(float_of(value).ok_or_else(wrong)? as f32),
            Primitive::Float64 => sink.f64(float_of(value).ok_or_else(wrong)?),
            p => {
                let int: i128 = match value {
                    Value::Int(v) => (*v).into(),
                    Value::UInt(v) => (*v).into(),
                    _ => return Err(wrong()),
                };
                let (lo, hi) = p.int_range().expect("integer types have a range");
                if int < lo || int > hi {
                    return Err(Trail::new(Mismatch(format!(
                        "{int} is out of range for {} ({lo}..={hi})",
                        p.keyword()
                    ))));
                }
                match p {
                    Primitive::Int8 => sink.i8(int as i8),
                    Primitive::Int16 => sink.i16(int as i16),
                    Primitive::UInt16 | Primitive::WChar => sink.u16(int as u16),
                    Primitive::Int32 => sink.i32(int as i32),
                    Primitive::UInt32 => sink.u32(int as u32),
                    Primitive::Int64 => sink.i64(int as i64),
                    Primitive::UInt64 => sink.u64(int as u64),
                    _ => sink.u8(int as u8),
                }
            }
        },
        Kind::String { bound } | Kind::WString { bound } => {
            let Value::String(text) = value else {
                return Err(wrong());
            };
            if let Some(bound) = bound {
                let len = text.chars().count();
                if len > *bound as usize {
                    return Err(Trail::new(Mismatch(format!(
                        "at most {bound} characters allowed, got {len}"
                    ))));
                }
            }
            if matches!(kind, Kind::String { .. }) {
                sink.string(text);
            } else {
                sink.wstring(text);
            }
        }
        Kind::Struct(plan) => write_struct(plan, value, sink)?,
    }
    Ok(())
}

/// A float field's value: a float, or an integer (as `ros2 topic pub` accepts `x: 1`).
fn float_of(value: &Value) -> Option<f64> {
    match value {
        Value::Float(v) => Some(*v),
        Value::Int(v) => Some(*v as f64),
        Value::UInt(v) => Some(*v as f64),
        _ => None,
    }
}

/// How a value is named in an error: `a string`, `a list`, `1.5`.
pub(crate) fn kind_of(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Int(v) => v.to_string(),
        Value::UInt(v) => v.to_string(),
        Value::Float(v) => v.to_string(),
        Value::String(s) => format!("'{s}'"),
        Value::Bytes(_) | Value::Array(_) => "a list".into(),
        Value::Struct(_) => "a mapping".into(),
    }
}
