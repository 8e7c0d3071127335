//! RIHS01 type hashes, as `rosidl_generator_type_description` and rcl's `type_hash.c` compute them.
//!
//! The hash is the SHA-256 of a JSON text: the type's description (name and fields, each field's
//! type id, capacity, string capacity and nested type name; no defaults, no constants, no
//! comments) and the descriptions of every type it refers to, sorted by name. The JSON is written
//! as Python's `json.dumps` writes it with its default separators (`", "`, `": "`), ASCII only.

use sha2::{Digest, Sha256};

use crate::model::{ArrayKind, BaseType, Field, Primitive, TypeName};
use crate::set::{InterfaceError, InterfaceSet};
use crate::type_description::{IndividualDescription, TypeDescription, describe};

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

/// The JSON text whose SHA-256 is the type hash: [`describe`]'s data, default values left out.
pub fn hashed_json(set: &InterfaceSet, name: &TypeName) -> Result<String, InterfaceError> {
    Ok(description_json(&describe(set, name)?))
}

/// The JSON text of a description as the hash covers it (default values left out): what a
/// client of a type description service hashes to check what it received.
pub fn description_json(description: &TypeDescription) -> String {
    let mut out = String::from("{\"type_description\": ");
    individual(&description.type_description, &mut out);
    out.push_str(", \"referenced_type_descriptions\": [");
    for (index, referenced) in description.referenced_type_descriptions.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        individual(referenced, &mut out);
    }
    out.push_str("]}");
    out
}

fn individual(description: &IndividualDescription, out: &mut String) {
    out.push_str("{\"type_name\": ");
    json_string(&description.type_name, out);
    out.push_str(", \"fields\": [");
    for (index, field) in description.fields.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str("{\"name\": ");
        json_string(&field.name, out);
        out.push_str(&format!(
            ", \"type\": {{\"type_id\": {}, \"capacity\": {}, \"string_capacity\": {}, \"nested_type_name\": ",
            field.type_id, field.capacity, field.string_capacity
        ));
        json_string(&field.nested_type_name, out);
        out.push_str("}}");
    }
    out.push_str("]}");
}

/// A JSON string as Python's `json.dumps` writes it (`ensure_ascii`).
fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// The RIHS01 hash of a message, service or action in `set`.
pub fn type_hash(set: &InterfaceSet, name: &TypeName) -> Result<String, InterfaceError> {
    let json = hashed_json(set, name)?;
    Ok(rihs01(json.as_bytes()))
}

/// `RIHS01_` and the lowercase hex SHA-256 of `bytes`.
pub fn rihs01(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::from("RIHS01_");
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Namespace;

    #[test]
    fn std_msgs_string_json_is_exactly_the_published_text() {
        let mut set = InterfaceSet::new();
        set.add_file("std_msgs", "msg/String.msg", "string data\n")
            .unwrap();
        let name = TypeName::new("std_msgs", Namespace::Msg, "String");
        assert_eq!(
            hashed_json(&set, &name).unwrap(),
            "{\"type_description\": {\"type_name\": \"std_msgs/msg/String\", \"fields\": [{\"name\": \"data\", \"type\": {\"type_id\": 17, \"capacity\": 0, \"string_capacity\": 0, \"nested_type_name\": \"\"}}]}, \"referenced_type_descriptions\": []}"
        );
        assert_eq!(
            type_hash(&set, &name).unwrap(),
            "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
        );
    }

    #[test]
    fn char_is_hashed_as_uint8() {
        let mut set = InterfaceSet::new();
        set.add_file("std_msgs", "msg/Char.msg", "char data\n").unwrap();
        assert_eq!(
            type_hash(&set, &TypeName::new("std_msgs", Namespace::Msg, "Char")).unwrap(),
            "RIHS01_3ad2d04dd29ba19d04b16659afa3ccaedd691914b02a64e82e252f2fa6a586a9"
        );
    }
}
