//! The `.msg` / `.srv` / `.action` grammar of rosidl (`rosidl_adapter`), read line by line.
//!
//! A line is `TYPE name`, `TYPE name DEFAULT` or a constant `TYPE NAME=VALUE`; `#` starts a
//! comment outside quotes. A `.srv` is two message texts around a `---` line, an `.action` three.

use std::fmt;

// The naming rules, where the parser's users have found them.
use crate::model::{
    ArrayKind, BaseType, Constant, Field, FieldType, Literal, MessageDef, PLACEHOLDER_FIELD, Primitive,
    Source, TypeName,
};
pub use crate::naming::{
    is_constant_name, is_derived_type_name, is_field_name, is_package_name, is_type_name,
};

/// A definition that does not follow the grammar: which type, which line, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The type being parsed, e.g. `my_msgs/msg/Foo`.
    pub type_name: String,
    /// The line number in its file (1-based), 0 for the file as a whole.
    pub line: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.type_name, self.message)
        } else {
            write!(f, "{} line {}: {}", self.type_name, self.line, self.message)
        }
    }
}

impl std::error::Error for ParseError {}

/// The parts of a `.srv` (2) or `.action` (3) text, split at `---` lines, each with the line
/// number its first line has in the file.
pub fn split_sections(
    type_name: &str,
    text: &str,
    expected: usize,
) -> Result<Vec<(usize, String)>, ParseError> {
    let mut sections = vec![(1, String::new())];
    for (index, line) in text.lines().enumerate() {
        if line.trim() == "---" {
            sections.push((index + 2, String::new()));
        } else {
            let current = &mut sections.last_mut().expect("starts with one section").1;
            current.push_str(line);
            current.push('\n');
        }
    }
    if sections.len() != expected {
        return Err(ParseError {
            type_name: type_name.to_owned(),
            line: 0,
            message: format!(
                "expected {} `---` separator line{}, found {}",
                expected - 1,
                if expected == 2 { "" } else { "s" },
                sections.len() - 1
            ),
        });
    }
    Ok(sections)
}

/// Parses one message text (a `.msg` file or one section of a `.srv` / `.action`).
/// `first_line` is the line number of its first line in the file, for error messages.
pub fn parse_message(
    name: TypeName,
    text: &str,
    first_line: usize,
    source: Source,
) -> Result<MessageDef, ParseError> {
    let mut fields: Vec<Field> = Vec::new();
    let mut constants: Vec<Constant> = Vec::new();
    let type_name = name.to_string();
    for (index, raw) in text.lines().enumerate() {
        let line_no = first_line + index;
        let error = |message: String| ParseError {
            type_name: type_name.clone(),
            line: line_no,
            message,
        };
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        let (type_text, rest) = match line.split_once(char::is_whitespace) {
            Some((t, rest)) => (t, rest.trim()),
            None => return Err(error(format!("`{line}`: expected `TYPE name`"))),
        };
        let ty = parse_field_type(type_text, &name.package).map_err(error)?;
        if let Some((constant, value)) = as_constant(rest) {
            if ty.array != ArrayKind::Single
                || matches!(ty.base, BaseType::Nested(_) | BaseType::WString { .. })
            {
                return Err(error(format!(
                    "constant {constant}: constants must be a primitive or a string, not {ty}"
                )));
            }
            if !is_constant_name(constant) {
                return Err(error(format!(
                    "`{constant}` is not a valid constant name (e.g. MAX_SPEED)"
                )));
            }
            if constants.iter().any(|c| c.name == constant) {
                return Err(error(format!("constant {constant} is defined twice")));
            }
            let value =
                parse_literal(&ty.base, value).map_err(|e| error(format!("constant {constant}: {e}")))?;
            constants.push(Constant {
                name: constant.to_owned(),
                ty: ty.base,
                value,
            });
            continue;
        }
        let (field_name, default_text) = match rest.split_once(char::is_whitespace) {
            Some((n, d)) => (n, Some(d.trim())),
            None => (rest, None),
        };
        if !is_field_name(field_name) {
            return Err(error(format!(
                "`{field_name}` is not a valid field name (lower case letters, digits and single underscores, starting with a letter)"
            )));
        }
        if fields.iter().any(|f| f.name == field_name) {
            return Err(error(format!("field {field_name} is defined twice")));
        }
        let default = match default_text {
            None => None,
            Some(text) => {
                if matches!(ty.base, BaseType::Nested(_)) {
                    return Err(error(format!(
                        "field {field_name}: only primitive and string fields can have a default value"
                    )));
                }
                Some(parse_default(&ty, text).map_err(|e| error(format!("field {field_name}: {e}")))?)
            }
        };
        fields.push(Field {
            name: field_name.to_owned(),
            ty,
            default,
            default_text: default_text.map(str::to_owned),
        });
    }
    if fields.is_empty() {
        fields.push(Field {
            name: PLACEHOLDER_FIELD.to_owned(),
            ty: FieldType {
                base: BaseType::Primitive(Primitive::UInt8),
                array: ArrayKind::Single,
            },
            default: None,
            default_text: None,
        });
    }
    Ok(MessageDef {
        name,
        fields,
        constants,
        source,
    })
}

/// `NAME=VALUE` (spaces allowed around `=`), when `rest` is a constant definition.
fn as_constant(rest: &str) -> Option<(&str, &str)> {
    let (name, value) = rest.split_once('=')?;
    let name = name.trim();
    (!name.is_empty() && !name.contains(char::is_whitespace) && !name.contains(['"', '\'']))
        .then_some((name, value.trim()))
}

/// The line without its comment: `#` outside single or double quotes starts one.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (index, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '#' => return &line[..index],
                _ => {}
            },
        }
    }
    line
}

/// Parses a field type such as `float64`, `string<=10`, `geometry_msgs/Point[]`, `int32[<=3]`,
/// `string<=5[4]`. A bare `Type` names a type of `package`.
pub fn parse_field_type(text: &str, package: &str) -> Result<FieldType, String> {
    let (base_text, array) = match text.find('[') {
        None => (text, ArrayKind::Single),
        Some(open) => {
            let inner = text[open + 1..]
                .strip_suffix(']')
                .ok_or_else(|| format!("`{text}`: an array type ends with `]`"))?;
            let array = if inner.is_empty() {
                ArrayKind::Unbounded
            } else if let Some(bound) = inner.strip_prefix("<=") {
                ArrayKind::Bounded(parse_size(bound).map_err(|e| format!("`{text}`: array bound {e}"))?)
            } else {
                ArrayKind::Fixed(parse_size(inner).map_err(|e| format!("`{text}`: array size {e}"))?)
            };
            (&text[..open], array)
        }
    };
    let base = parse_base_type(base_text, package).map_err(|e| format!("`{text}`: {e}"))?;
    Ok(FieldType { base, array })
}

fn parse_size(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(0) => Err("must be greater than 0".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a positive integer")),
    }
}

fn parse_base_type(text: &str, package: &str) -> Result<BaseType, String> {
    if let Some(primitive) = Primitive::from_keyword(text) {
        return Ok(BaseType::Primitive(primitive));
    }
    if text == "string" {
        return Ok(BaseType::String { bound: None });
    }
    if text == "wstring" {
        return Ok(BaseType::WString { bound: None });
    }
    if let Some(bound) = text.strip_prefix("string<=") {
        return Ok(BaseType::String {
            bound: Some(parse_size(bound).map_err(|e| format!("string bound {e}"))?),
        });
    }
    if let Some(bound) = text.strip_prefix("wstring<=") {
        return Ok(BaseType::WString {
            bound: Some(parse_size(bound).map_err(|e| format!("wstring bound {e}"))?),
        });
    }
    if matches!(text, "time" | "duration") {
        return Err(format!(
            "`{text}` is a ROS 1 type; use builtin_interfaces/Time or builtin_interfaces/Duration"
        ));
    }
    let (nested_package, name) = match text.split_once('/') {
        Some((p, n)) => (p, n),
        None => (package, text),
    };
    let name = name.strip_prefix("msg/").unwrap_or(name);
    if !is_package_name(nested_package) || !is_type_name(name) {
        return Err("unknown type: expected a primitive (bool, byte, char, int8..uint64, float32, float64), string, wstring or a message type like `pkg/Type`".to_owned());
    }
    Ok(BaseType::Nested(TypeName::new(
        nested_package,
        crate::Namespace::Msg,
        name,
    )))
}

/// Parses a field's default value: one literal, or `[a, b, ...]` for an array field.
fn parse_default(ty: &FieldType, text: &str) -> Result<Literal, String> {
    if ty.array == ArrayKind::Single {
        return parse_literal(&ty.base, text);
    }
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("the default of an array field is a list `[a, b]`, not `{text}`"))?;
    let items: Vec<Literal> = split_list(inner)
        .into_iter()
        .map(|item| parse_literal(&ty.base, item))
        .collect::<Result<_, _>>()?;
    match ty.array {
        ArrayKind::Fixed(n) if items.len() != n as usize => Err(format!(
            "the default has {} values, the array exactly {n}",
            items.len()
        )),
        ArrayKind::Bounded(n) if items.len() > n as usize => Err(format!(
            "the default has {} values, the array at most {n}",
            items.len()
        )),
        _ => Ok(Literal::Array(items)),
    }
}

/// Splits a list's inside at commas outside quotes; an empty inside is an empty list.
fn split_list(inner: &str) -> Vec<&str> {
    if inner.trim().is_empty() {
        return Vec::new();
    }
    let mut items = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (index, c) in inner.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                ',' => {
                    items.push(inner[start..index].trim());
                    start = index + 1;
                }
                _ => {}
            },
        }
    }
    items.push(inner[start..].trim());
    items
}

/// Parses one literal of a primitive or string type, checking its range or bound.
pub fn parse_literal(base: &BaseType, text: &str) -> Result<Literal, String> {
    let text = text.trim();
    match base {
        BaseType::Primitive(Primitive::Bool) => match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(Literal::Bool(true)),
            "false" | "0" => Ok(Literal::Bool(false)),
            _ => Err(format!("`{text}` is not a bool (true, false, 1 or 0)")),
        },
        BaseType::Primitive(p) if p.is_float() => {
            let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
            Ok(Literal::Float(value))
        }
        BaseType::Primitive(p) => {
            let (low, high) = p.int_range().expect("integer types have a range");
            let value: i128 = text.parse().map_err(|_| format!("`{text}` is not an integer"))?;
            if value < low || value > high {
                return Err(format!(
                    "{value} is out of range for {} ({low}..={high})",
                    p.keyword()
                ));
            }
            Ok(Literal::Int(value))
        }
        BaseType::String { bound } | BaseType::WString { bound } => {
            let value = unquote(text);
            let length = if matches!(base, BaseType::String { .. }) {
                value.len()
            } else {
                value.encode_utf16().count()
            };
            if let Some(bound) = bound
                && length > *bound as usize
            {
                return Err(format!("the string is {length} long, its bound is {bound}"));
            }
            Ok(Literal::String(value))
        }
        BaseType::Nested(name) => Err(format!("{name} cannot have a literal value")),
    }
}

/// A string literal: quoted with `"` or `'` (a backslash escapes the quote and itself), or the
/// text as it stands.
fn unquote(text: &str) -> String {
    let quoted = text.len() >= 2
        && ((text.starts_with('"') && text.ends_with('"'))
            || (text.starts_with('\'') && text.ends_with('\'')));
    if !quoted {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut chars = text[1..text.len() - 1].chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(next @ ('"' | '\'' | '\\')) => out.push(next),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Namespace;

    fn parse(text: &str) -> Result<MessageDef, ParseError> {
        parse_message(
            TypeName::new("pkg", Namespace::Msg, "T"),
            text,
            1,
            Source::Implicit,
        )
    }

    #[test]
    fn fields_constants_and_defaults() {
        let def = parse(
            "# comment\nint32 X=5 # five\nstring NAME = \"a#b\"\nfloat64 w 1\nstring<=5[<=3] names\nuint8[4] rgba [1, 2, 3, 4]\nOther o\n",
        )
        .unwrap();
        assert_eq!(def.constants.len(), 2);
        assert_eq!(def.constants[0].value, Literal::Int(5));
        assert_eq!(def.constants[1].value, Literal::String("a#b".into()));
        assert_eq!(def.fields[0].default, Some(Literal::Float(1.0)));
        assert_eq!(def.fields[1].ty.array, ArrayKind::Bounded(3));
        assert_eq!(def.fields[1].ty.base, BaseType::String { bound: Some(5) });
        assert_eq!(
            def.fields[2].default,
            Some(Literal::Array(vec![
                Literal::Int(1),
                Literal::Int(2),
                Literal::Int(3),
                Literal::Int(4)
            ]))
        );
        assert_eq!(
            def.fields[3].ty.base,
            BaseType::Nested(TypeName::new("pkg", Namespace::Msg, "Other"))
        );
    }

    #[test]
    fn an_empty_message_gets_the_placeholder() {
        let def = parse("# nothing\n").unwrap();
        assert_eq!(def.fields.len(), 1);
        assert!(def.fields[0].is_placeholder());
    }

    #[test]
    fn bad_lines_name_the_line_and_what_was_expected() {
        let err = parse("int32 a\nfloat65 b\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("unknown type"), "{err}");
        assert!(parse("uint8 x 300").unwrap_err().message.contains("out of range"));
        assert!(parse("int32 Bad").unwrap_err().message.contains("field name"));
        assert!(parse("int32 a\nint32 a").unwrap_err().message.contains("twice"));
        assert!(parse("time t").unwrap_err().message.contains("ROS 1"));
        assert!(parse("int32[0] a").is_err());
        assert!(parse("int32[2] a [1]").unwrap_err().message.contains("exactly 2"));
    }

    #[test]
    fn sections_of_a_service() {
        let parts = split_sections("pkg/srv/S", "int64 a\n---\nint64 b\n", 2).unwrap();
        assert_eq!(
            parts,
            vec![(1, "int64 a\n".to_owned()), (3, "int64 b\n".to_owned())]
        );
        assert!(split_sections("pkg/srv/S", "int64 a\n", 2).is_err());
    }
}
