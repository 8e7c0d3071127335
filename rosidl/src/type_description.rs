//! Type descriptions (`type_description_interfaces/msg/TypeDescription`) and type sources, as a
//! `~/get_type_description` service returns them.
//!
//! [`describe`] gives the very data the RIHS01 hash is computed from ([`crate::hashed_json`]
//! writes this struct out, default values left out), so a client that receives it can hash it
//! again and compare. [`sources`] gives the definition files behind a type and its references,
//! as rosidl's generated `full__description.c` embeds them: the file's suffix and text, or
//! `implicit` and no text for the types ROS derives (`X_Request`, `X_Event`, `X_Goal`, ...).

use crate::model::{ArrayKind, BaseType, Field, Literal, Primitive, Source, TypeName};
use crate::set::{InterfaceError, InterfaceSet};

/// A type and everything it refers to (`TypeDescription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDescription {
    /// The type itself.
    pub type_description: IndividualDescription,
    /// Every type it refers to, directly or not, itself left out, sorted by name.
    pub referenced_type_descriptions: Vec<IndividualDescription>,
}

/// One type's name and fields (`IndividualTypeDescription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndividualDescription {
    /// `pkg/msg/Name` (`srv` or `action` for the types derived from those).
    pub type_name: String,
    /// The fields in declaration order.
    pub fields: Vec<DescribedField>,
}

/// One field (`Field` with its `FieldType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribedField {
    /// The field name.
    pub name: String,
    /// The `FieldType` type id (element type plus 48, 96 or 144 for arrays and sequences).
    pub type_id: u8,
    /// The array's size or the sequence's bound, else 0.
    pub capacity: u64,
    /// The strings' bound, else 0.
    pub string_capacity: u64,
    /// The nested type's full name, else empty.
    pub nested_type_name: String,
    /// The default as Python's `str()` writes it (`True`, `0.5`, `[1, 2]`), else empty. Not hashed.
    pub default_value: String,
}

/// The definition behind one type (`TypeSource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeSource {
    /// `pkg/msg/Name`.
    pub type_name: String,
    /// The file's suffix (`msg`, `srv`, `action`, `idl`), or `implicit` for a derived type.
    pub encoding: String,
    /// The file's text, empty for a derived type.
    pub raw_file_contents: String,
}

/// The description of a message, service or action of `set`, exactly what its hash covers.
pub fn describe(set: &InterfaceSet, name: &TypeName) -> Result<TypeDescription, InterfaceError> {
    let referenced = set
        .referenced_types(name)?
        .iter()
        .map(|referenced| individual(set, referenced))
        .collect::<Result<_, _>>()?;
    Ok(TypeDescription {
        type_description: individual(set, name)?,
        referenced_type_descriptions: referenced,
    })
}

/// The sources of `name` and of every type it refers to, in the order of [`describe`].
pub fn sources(set: &InterfaceSet, name: &TypeName) -> Result<Vec<TypeSource>, InterfaceError> {
    let mut names = vec![name.clone()];
    names.extend(set.referenced_types(name)?);
    names
        .into_iter()
        .map(|name| {
            let source = set
                .message(&name)
                .map(|def| &def.source)
                .or_else(|| set.service(&name).map(|def| &def.source))
                .or_else(|| set.action(&name).map(|def| &def.source))
                .ok_or_else(|| InterfaceError::Unknown {
                    type_name: name.to_string(),
                })?;
            let (encoding, raw_file_contents) = match source {
                Source::File { encoding, text } => ((*encoding).to_owned(), text.clone()),
                Source::Implicit => ("implicit".to_owned(), String::new()),
            };
            Ok(TypeSource {
                type_name: name.to_string(),
                encoding,
                raw_file_contents,
            })
        })
        .collect()
}

fn individual(set: &InterfaceSet, name: &TypeName) -> Result<IndividualDescription, InterfaceError> {
    let fields = set
        .description_fields(name)
        .ok_or_else(|| InterfaceError::Unknown {
            type_name: name.to_string(),
        })?;
    Ok(IndividualDescription {
        type_name: name.to_string(),
        fields: fields.iter().map(described_field).collect(),
    })
}

fn described_field(field: &Field) -> DescribedField {
    DescribedField {
        name: field.name.clone(),
        type_id: type_id(field),
        capacity: capacity(field),
        string_capacity: string_capacity(field),
        nested_type_name: nested_type_name(field),
        default_value: field.default.as_ref().map(python_str).unwrap_or_default(),
    }
}

/// A default as Python's `str()` prints the value rosidl parsed (`True`, `3`, `0.5`, `hello`).
fn python_str(literal: &Literal) -> String {
    match literal {
        Literal::Bool(true) => "True".into(),
        Literal::Bool(false) => "False".into(),
        Literal::Int(n) => n.to_string(),
        Literal::Float(x) => format!("{x:?}"),
        Literal::String(text) => text.clone(),
        Literal::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|item| match item {
                    // Inside a list Python prints strings with their quotes.
                    Literal::String(text) => format!("'{text}'"),
                    other => python_str(other),
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// The type id of `type_description_interfaces/msg/FieldType` for a field.
pub fn type_id(field: &Field) -> u8 {
    let element = match &field.ty.base {
        BaseType::Nested(_) => 1,
        BaseType::Primitive(p) => match p {
            Primitive::Int8 => 2,
            // A `.msg` char is an unsigned 8-bit integer, not IDL's char (13).
            Primitive::UInt8 | Primitive::Char => 3,
            Primitive::Int16 => 4,
            Primitive::UInt16 => 5,
            Primitive::Int32 => 6,
            Primitive::UInt32 => 7,
            Primitive::Int64 => 8,
            Primitive::UInt64 => 9,
            Primitive::Float32 => 10,
            Primitive::Float64 => 11,
            Primitive::IdlChar => 13,
            Primitive::WChar => 14,
            Primitive::Bool => 15,
            Primitive::Byte => 16,
        },
        BaseType::String { bound: None } => 17,
        BaseType::WString { bound: None } => 18,
        BaseType::String { bound: Some(_) } => 21,
        BaseType::WString { bound: Some(_) } => 22,
    };
    element
        + match field.ty.array {
            ArrayKind::Single => 0,
            ArrayKind::Fixed(_) => 48,
            ArrayKind::Bounded(_) => 96,
            ArrayKind::Unbounded => 144,
        }
}

/// The `capacity` of a field: its array's size or bound, else 0.
pub fn capacity(field: &Field) -> u64 {
    match field.ty.array {
        ArrayKind::Fixed(n) | ArrayKind::Bounded(n) => n.into(),
        ArrayKind::Single | ArrayKind::Unbounded => 0,
    }
}

/// The `string_capacity` of a field: its strings' bound, else 0.
pub fn string_capacity(field: &Field) -> u64 {
    match field.ty.base {
        BaseType::String { bound: Some(n) } | BaseType::WString { bound: Some(n) } => n.into(),
        _ => 0,
    }
}

/// The `nested_type_name` of a field: the full name of its message type, else empty.
pub fn nested_type_name(field: &Field) -> String {
    match &field.ty.base {
        BaseType::Nested(name) => name.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Namespace;

    #[test]
    fn a_service_is_described_by_its_three_messages_and_its_sources() {
        let set = InterfaceSet::shipped();
        let name = TypeName::new("example_interfaces", Namespace::Srv, "AddTwoInts");
        let description = describe(set, &name).unwrap();
        let fields: Vec<&str> = description
            .type_description
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(fields, ["request_message", "response_message", "event_message"]);
        let referenced: Vec<&str> = description
            .referenced_type_descriptions
            .iter()
            .map(|d| d.type_name.as_str())
            .collect();
        assert!(referenced.contains(&"example_interfaces/srv/AddTwoInts_Request"));
        assert!(referenced.contains(&"service_msgs/msg/ServiceEventInfo"));
        let sources = sources(set, &name).unwrap();
        assert_eq!(sources[0].encoding, "srv");
        assert!(sources[0].raw_file_contents.contains("int64 sum"));
        let request = sources
            .iter()
            .find(|s| s.type_name == "example_interfaces/srv/AddTwoInts_Request")
            .unwrap();
        assert_eq!(
            (request.encoding.as_str(), request.raw_file_contents.as_str()),
            ("implicit", "")
        );
    }

    #[test]
    fn defaults_are_written_as_python_prints_them() {
        let set = InterfaceSet::shipped();
        let quaternion =
            describe(set, &TypeName::new("geometry_msgs", Namespace::Msg, "Quaternion")).unwrap();
        let w = quaternion
            .type_description
            .fields
            .iter()
            .find(|f| f.name == "w")
            .unwrap();
        assert_eq!(w.default_value, "1.0");
    }
}
