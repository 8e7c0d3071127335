//! A message type resolved once from its definitions: every nested type looked up, names and
//! defaults copied, so decoding and encoding never search the [`InterfaceSet`] again and the
//! result owns nothing borrowed.

use std::collections::HashMap;
use std::sync::Arc;

use zshm_rosidl::{ArrayKind, BaseType, InterfaceSet, Literal, MessageDef, Primitive, TypeName};

use super::{DynamicError, Value};

/// rosidl's field of an empty message: on the wire, hidden from people.
pub(crate) use zshm_rosidl::PLACEHOLDER_FIELD as PLACEHOLDER;

/// What one element of a field is.
#[derive(Debug)]
pub(crate) enum Kind {
    Primitive(Primitive),
    String { bound: Option<u32> },
    WString { bound: Option<u32> },
    Struct(Arc<StructPlan>),
}

/// One field of a struct.
#[derive(Debug)]
pub(crate) struct FieldPlan {
    pub name: Arc<str>,
    pub kind: Kind,
    pub array: ArrayKind,
    /// The definition's default, already in value form (`Quaternion.w` is 1.0).
    pub default: Value,
    /// Hidden from people (rosidl's `structure_needs_at_least_one_member`), kept on the wire.
    pub placeholder: bool,
}

/// A struct: its name and fields in order.
#[derive(Debug)]
pub(crate) struct StructPlan {
    pub name: TypeName,
    pub fields: Vec<FieldPlan>,
    /// A lower bound of its CDR size (alignment left out): a sequence count is checked against it.
    pub min_size: usize,
}

impl Kind {
    /// The type keyword people read in messages: `float64`, `string<=5`, `geometry_msgs/Vector3`.
    pub fn describe(&self) -> String {
        match self {
            Kind::Primitive(p) => p.keyword().to_owned(),
            Kind::String { bound: None } => "string".into(),
            Kind::String { bound: Some(n) } => format!("string<={n}"),
            Kind::WString { bound: None } => "wstring".into(),
            Kind::WString { bound: Some(n) } => format!("wstring<={n}"),
            Kind::Struct(plan) => format!("{}/{}", plan.name.package, plan.name.name),
        }
    }

    /// True for the element types whose sequences are held as [`Value::Bytes`].
    pub fn is_byte_like(&self) -> bool {
        matches!(self, Kind::Primitive(p) if p.is_byte_like())
    }

    fn min_size(&self) -> usize {
        match self {
            Kind::Primitive(p) => p.size(),
            Kind::String { .. } => 5,
            Kind::WString { .. } => 4,
            Kind::Struct(plan) => plan.min_size,
        }
    }

    /// The zero value of one element.
    pub fn zero(&self) -> Value {
        match self {
            Kind::Primitive(p) => zero_of(*p),
            Kind::String { .. } | Kind::WString { .. } => Value::String(String::new()),
            Kind::Struct(plan) => plan.default_value(),
        }
    }
}

impl FieldPlan {
    /// A lower bound of this field's CDR size.
    fn min_size(&self) -> usize {
        match self.array {
            ArrayKind::Single => self.kind.min_size(),
            ArrayKind::Fixed(n) => self.kind.min_size() * n as usize,
            ArrayKind::Bounded(_) | ArrayKind::Unbounded => 4,
        }
    }

    /// The full type as written in a definition: `float64[9]`, `geometry_msgs/Point[]`.
    pub fn describe(&self) -> String {
        let base = self.kind.describe();
        match self.array {
            ArrayKind::Single => base,
            ArrayKind::Fixed(n) => format!("{base}[{n}]"),
            ArrayKind::Bounded(n) => format!("{base}[<={n}]"),
            ArrayKind::Unbounded => format!("{base}[]"),
        }
    }
}

impl StructPlan {
    /// The message with every field at its default.
    pub fn default_value(&self) -> Value {
        Value::Struct(
            self.fields
                .iter()
                .map(|f| (f.name.clone(), f.default.clone()))
                .collect(),
        )
    }

    /// Resolves `name` and everything it nests in `set`.
    pub fn compile(set: &InterfaceSet, name: &TypeName) -> Result<Arc<StructPlan>, DynamicError> {
        Compiler {
            set,
            done: HashMap::new(),
        }
        .compile(name)
    }
}

fn zero_of(p: Primitive) -> Value {
    match p {
        Primitive::Bool => Value::Bool(false),
        Primitive::Float32 | Primitive::Float64 => Value::Float(0.0),
        Primitive::Int8 | Primitive::Int16 | Primitive::Int32 | Primitive::Int64 => Value::Int(0),
        _ => Value::UInt(0),
    }
}

struct Compiler<'s> {
    set: &'s InterfaceSet,
    done: HashMap<TypeName, Arc<StructPlan>>,
}

impl Compiler<'_> {
    fn compile(&mut self, name: &TypeName) -> Result<Arc<StructPlan>, DynamicError> {
        if let Some(plan) = self.done.get(name) {
            return Ok(plan.clone());
        }
        let def: &MessageDef = self.set.message(name).ok_or_else(|| DynamicError::UnknownType {
            name: name.to_string(),
        })?;
        let mut fields = Vec::with_capacity(def.fields.len());
        for field in &def.fields {
            let kind = match &field.ty.base {
                BaseType::Primitive(p) => Kind::Primitive(*p),
                BaseType::String { bound } => Kind::String { bound: *bound },
                BaseType::WString { bound } => Kind::WString { bound: *bound },
                BaseType::Nested(nested) => Kind::Struct(self.compile(nested)?),
            };
            let default = default_of(&kind, field.ty.array, field.default.as_ref());
            fields.push(FieldPlan {
                name: Arc::from(field.name.as_str()),
                kind,
                array: field.ty.array,
                default,
                placeholder: field.is_placeholder(),
            });
        }
        let min_size = fields.iter().map(FieldPlan::min_size).sum::<usize>().max(1);
        let plan = Arc::new(StructPlan {
            name: name.clone(),
            fields,
            min_size,
        });
        self.done.insert(name.clone(), plan.clone());
        Ok(plan)
    }
}

/// A field's default: the definition's literal where it has one, else zeros, empty strings,
/// empty sequences and fixed arrays of zeros.
fn default_of(kind: &Kind, array: ArrayKind, literal: Option<&Literal>) -> Value {
    let element = |literal: Option<&Literal>| match (kind, literal) {
        (Kind::Primitive(p), Some(lit)) => literal_value(*p, lit).unwrap_or_else(|| kind.zero()),
        (Kind::String { .. } | Kind::WString { .. }, Some(Literal::String(s))) => Value::String(s.clone()),
        _ => kind.zero(),
    };
    match array {
        ArrayKind::Single => element(literal),
        ArrayKind::Fixed(_) | ArrayKind::Bounded(_) | ArrayKind::Unbounded => {
            let items: Vec<Value> = match (array, literal) {
                (_, Some(Literal::Array(items))) => items.iter().map(|l| element(Some(l))).collect(),
                (ArrayKind::Fixed(n), _) => (0..n).map(|_| element(None)).collect(),
                _ => Vec::new(),
            };
            if kind.is_byte_like() {
                Value::Bytes(items.iter().map(|v| v.as_u64().unwrap_or(0) as u8).collect())
            } else {
                Value::Array(items)
            }
        }
    }
}

fn literal_value(p: Primitive, lit: &Literal) -> Option<Value> {
    Some(match (p, lit) {
        (Primitive::Bool, Literal::Bool(b)) => Value::Bool(*b),
        (Primitive::Bool, Literal::Int(i)) => Value::Bool(*i != 0),
        (Primitive::Float32, Literal::Float(f)) => Value::Float(f64::from(*f as f32)),
        (Primitive::Float32, Literal::Int(i)) => Value::Float(f64::from(*i as f32)),
        (Primitive::Float64, Literal::Float(f)) => Value::Float(*f),
        (Primitive::Float64, Literal::Int(i)) => Value::Float(*i as f64),
        (Primitive::Int8 | Primitive::Int16 | Primitive::Int32 | Primitive::Int64, Literal::Int(i)) => {
            Value::Int(i64::try_from(*i).ok()?)
        }
        (_, Literal::Int(i)) => Value::UInt(u64::try_from(*i).ok()?),
        _ => return None,
    })
}
