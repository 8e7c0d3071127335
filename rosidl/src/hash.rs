//! RIHS01 type hashes, as `rosidl_generator_type_description` and rcl's `type_hash.c` compute them.
//!
//! The hash is the SHA-256 of a JSON text: the type's description (name and fields, each field's
//! type id, capacity, string capacity and nested type name; no defaults, no constants, no
//! comments) and the descriptions of every type it refers to, sorted by name. The JSON is written
//! as Python's `json.dumps` writes it with its default separators (`", "`, `": "`), ASCII only.

use sha2::{Digest, Sha256};

use crate::model::TypeName;
use crate::set::{InterfaceError, InterfaceSet};
use crate::type_description::{IndividualDescription, TypeDescription, describe};

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

impl InterfaceSet {
    /// The RIHS01 type hash of a message, service or action, e.g. `RIHS01_df668c74…`. (Here
    /// rather than in `set.rs`: the hash is built on the set, not the set on the hash.)
    pub fn type_hash(&self, name: &TypeName) -> Result<String, InterfaceError> {
        Ok(rihs01(hashed_json(self, name)?.as_bytes()))
    }
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
            set.type_hash(&name).unwrap(),
            "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
        );
    }

    #[test]
    fn char_is_hashed_as_uint8() {
        let mut set = InterfaceSet::new();
        set.add_file("std_msgs", "msg/Char.msg", "char data\n").unwrap();
        assert_eq!(
            set.type_hash(&TypeName::new("std_msgs", Namespace::Msg, "Char"))
                .unwrap(),
            "RIHS01_3ad2d04dd29ba19d04b16659afa3ccaedd691914b02a64e82e252f2fa6a586a9"
        );
    }
}
