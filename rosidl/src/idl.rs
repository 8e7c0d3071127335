//! The subset of OMG IDL 4.2 that ROS 2 interface files use (what `rosidl_adapter` writes from a
//! `.msg`, and what packages that define their types in `.idl` write by hand): nested
//! `module`s, `struct`s, `typedef`s of arrays, `const`s in `<Type>_Constants` modules, and the
//! `@default(value=...)` annotation. Other annotations (`@verbatim`, `@key`, `@unit`, ...) are
//! read and ignored; they change neither the wire nor the hash.
//!
//! Written by hand: no maintained Rust crate parses IDL into ROS's type model.

use std::collections::BTreeMap;

use crate::model::{
    ArrayKind, BaseType, Constant, Field, FieldType, Literal, Namespace, Primitive, TypeName,
};
use crate::parse::{self, ParseError};

/// A struct found in an `.idl` file, with the constants of its `<Name>_Constants` module.
#[derive(Debug, Clone)]
pub struct IdlStruct {
    /// Its full name.
    pub name: TypeName,
    /// Members in order.
    pub fields: Vec<Field>,
    /// Constants in order.
    pub constants: Vec<Constant>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Number(String),
    Str(String),
    Punct(&'static str),
}

struct Lexer<'a> {
    text: &'a str,
    position: usize,
    line: usize,
}

const PUNCTUATION: [&str; 13] = ["::", "{", "}", ";", "<", ">", ",", "=", "(", ")", "[", "]", "@"];

impl Lexer<'_> {
    fn tokens(mut self) -> Result<Vec<(usize, Token)>, (usize, String)> {
        let mut tokens = Vec::new();
        while let Some(token) = self.next()? {
            tokens.push((self.line, token));
        }
        Ok(tokens)
    }

    fn rest(&self) -> &str {
        &self.text[self.position..]
    }

    fn advance(&mut self, n: usize) {
        self.line += self.text[self.position..self.position + n].matches('\n').count();
        self.position += n;
    }

    fn next(&mut self) -> Result<Option<Token>, (usize, String)> {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            let skipped = rest.len() - trimmed.len();
            self.advance(skipped);
            let rest = self.rest();
            if rest.starts_with("//") || rest.starts_with('#') {
                let end = rest.find('\n').unwrap_or(rest.len());
                self.advance(end);
            } else if rest.starts_with("/*") {
                let end = rest
                    .find("*/")
                    .ok_or((self.line, "unterminated /* comment".to_owned()))?;
                self.advance(end + 2);
            } else {
                break;
            }
        }
        let rest = self.rest();
        let Some(first) = rest.chars().next() else {
            return Ok(None);
        };
        if let Some(p) = PUNCTUATION.iter().find(|p| rest.starts_with(**p)) {
            self.advance(p.len());
            return Ok(Some(Token::Punct(p)));
        }
        if first == '"' {
            let mut value = String::new();
            let mut chars = rest.char_indices().skip(1);
            while let Some((index, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(match escaped {
                                'n' => '\n',
                                't' => '\t',
                                other => other,
                            });
                        }
                    }
                    '"' => {
                        self.advance(index + 1);
                        // Adjacent string literals concatenate, as in C.
                        return Ok(Some(Token::Str(value)));
                    }
                    c => value.push(c),
                }
            }
            return Err((self.line, "unterminated string literal".to_owned()));
        }
        if first.is_ascii_alphabetic() || first == '_' {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let word = rest[..end].to_owned();
            self.advance(end);
            return Ok(Some(Token::Ident(word)));
        }
        if first.is_ascii_digit() || first == '-' || first == '+' || first == '.' {
            let end = rest
                .char_indices()
                .skip(1)
                .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '.' || *c == '-' || *c == '+'))
                .map(|(i, _)| i)
                .unwrap_or(rest.len());
            let number = rest[..end].to_owned();
            self.advance(end);
            return Ok(Some(Token::Number(number)));
        }
        Err((self.line, format!("unexpected character {first:?}")))
    }
}

struct Parser<'a> {
    tokens: Vec<(usize, Token)>,
    index: usize,
    type_name: &'a str,
    typedefs: BTreeMap<String, FieldType>,
    structs: Vec<IdlStruct>,
    constants: BTreeMap<String, Vec<Constant>>,
}

impl Parser<'_> {
    fn error(&self, message: String) -> ParseError {
        let line = self
            .tokens
            .get(self.index)
            .or(self.tokens.last())
            .map(|(l, _)| *l)
            .unwrap_or(0);
        ParseError {
            type_name: self.type_name.to_owned(),
            line,
            message,
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.index).map(|(_, t)| t)
    }

    fn next(&mut self) -> Result<Token, ParseError> {
        let token = self
            .peek()
            .cloned()
            .ok_or_else(|| self.error("unexpected end of file".to_owned()))?;
        self.index += 1;
        Ok(token)
    }

    fn expect(&mut self, punct: &str) -> Result<(), ParseError> {
        match self.next()? {
            Token::Punct(p) if p == punct => Ok(()),
            other => Err(self.error(format!("expected `{punct}`, found {other:?}"))),
        }
    }

    fn ident(&mut self) -> Result<String, ParseError> {
        match self.next()? {
            Token::Ident(word) => Ok(word),
            other => Err(self.error(format!("expected a name, found {other:?}"))),
        }
    }

    fn eat(&mut self, punct: &str) -> bool {
        if self.peek() == Some(&Token::Punct(leak(punct))) {
            self.index += 1;
            true
        } else {
            false
        }
    }

    fn definitions(&mut self, modules: &mut Vec<String>) -> Result<(), ParseError> {
        while let Some(token) = self.peek().cloned() {
            match token {
                Token::Punct("}") => return Ok(()),
                Token::Punct("@") => {
                    self.annotation()?;
                }
                Token::Ident(word) if word == "module" => {
                    self.index += 1;
                    let name = self.ident()?;
                    self.expect("{")?;
                    modules.push(name);
                    self.definitions(modules)?;
                    modules.pop();
                    self.expect("}")?;
                    self.expect(";")?;
                }
                Token::Ident(word) if word == "struct" => {
                    self.index += 1;
                    self.structure(modules)?;
                }
                Token::Ident(word) if word == "typedef" => {
                    self.index += 1;
                    let ty = self.type_spec(modules)?;
                    let name = self.ident()?;
                    let ty = self.array_suffix(ty)?;
                    self.expect(";")?;
                    self.typedefs.insert(name, ty);
                }
                Token::Ident(word) if word == "const" => {
                    self.index += 1;
                    let ty = self.type_spec(modules)?;
                    let name = self.ident()?;
                    self.expect("=")?;
                    let value_text = self.value_text()?;
                    self.expect(";")?;
                    let value = parse::parse_literal(&ty.base, &value_text)
                        .map_err(|e| self.error(format!("constant {name}: {e}")))?;
                    let owner = modules
                        .last()
                        .and_then(|m| m.strip_suffix("_Constants"))
                        .ok_or_else(|| {
                            self.error(format!("constant {name} is outside a <Type>_Constants module"))
                        })?
                        .to_owned();
                    self.constants.entry(owner).or_default().push(Constant {
                        name,
                        ty: ty.base,
                        value,
                    });
                }
                other => {
                    return Err(self.error(format!(
                        "unexpected {other:?}: expected module, struct, typedef or const"
                    )));
                }
            }
        }
        Ok(())
    }

    /// `@name` or `@name(...)`; returns the `value` of a `@default`.
    fn annotation(&mut self) -> Result<Option<String>, ParseError> {
        self.expect("@")?;
        let name = self.ident()?;
        let mut default = None;
        if self.eat("(") {
            let mut depth = 1;
            let mut key: Option<String> = None;
            while depth > 0 {
                match self.next()? {
                    Token::Punct("(") => depth += 1,
                    Token::Punct(")") => depth -= 1,
                    Token::Ident(word) if key.is_none() => key = Some(word),
                    Token::Punct("=") if name == "default" && key.as_deref() == Some("value") => {
                        default = Some(self.value_text()?);
                    }
                    _ => {}
                }
            }
        }
        Ok(default)
    }

    /// A literal as text: a number, a string (re-quoted), `TRUE`/`FALSE`, or a name.
    fn value_text(&mut self) -> Result<String, ParseError> {
        let mut text = match self.next()? {
            Token::Number(n) => n,
            Token::Str(s) => format!("{s:?}"),
            Token::Ident(word) => word,
            other => return Err(self.error(format!("expected a value, found {other:?}"))),
        };
        // Adjacent string literals concatenate.
        while let Some(Token::Str(more)) = self.peek().cloned() {
            self.index += 1;
            let joined = format!("{}{more}", text.trim_matches('"'));
            text = format!("{joined:?}");
        }
        Ok(text)
    }

    fn structure(&mut self, modules: &[String]) -> Result<(), ParseError> {
        let name = self.ident()?;
        self.expect("{")?;
        let mut fields = Vec::new();
        let mut default: Option<String> = None;
        while !self.eat("}") {
            if self.peek() == Some(&Token::Punct("@")) {
                if let Some(value) = self.annotation()? {
                    default = Some(value);
                }
                continue;
            }
            let ty = self.type_spec(modules)?;
            let field_name = self.ident()?;
            let ty = self.array_suffix(ty)?;
            self.expect(";")?;
            if !parse::is_field_name(&field_name) {
                return Err(self.error(format!("`{field_name}` is not a valid field name")));
            }
            let default_value = match default.take() {
                None => None,
                Some(text) => {
                    let text = match (&ty.base, text.as_str()) {
                        (BaseType::Primitive(Primitive::Bool), "TRUE") => "true".to_owned(),
                        (BaseType::Primitive(Primitive::Bool), "FALSE") => "false".to_owned(),
                        _ => text,
                    };
                    let literal = if ty.array == ArrayKind::Single {
                        parse::parse_literal(&ty.base, &text)
                    } else {
                        // rosidl writes array defaults as a string "(1, 2, 3)".
                        let inner = text
                            .trim_matches('"')
                            .trim_start_matches('(')
                            .trim_end_matches(')');
                        inner
                            .split(',')
                            .filter(|item| !item.trim().is_empty())
                            .map(|item| parse::parse_literal(&ty.base, item))
                            .collect::<Result<Vec<_>, _>>()
                            .map(Literal::Array)
                    };
                    Some((
                        literal.map_err(|e| self.error(format!("field {field_name}: {e}")))?,
                        text,
                    ))
                }
            };
            fields.push(Field {
                name: field_name,
                ty,
                default: default_value.as_ref().map(|(l, _)| l.clone()),
                default_text: default_value.map(|(_, t)| t),
            });
        }
        self.expect(";")?;
        let [package, namespace] = modules else {
            return Err(self.error(format!(
                "struct {name} must be inside `module <package> {{ module msg|srv|action {{`"
            )));
        };
        let namespace = match namespace.as_str() {
            "msg" => Namespace::Msg,
            "srv" => Namespace::Srv,
            "action" => Namespace::Action,
            other => return Err(self.error(format!("module {other}: expected msg, srv or action"))),
        };
        self.structs.push(IdlStruct {
            name: TypeName::new(package, namespace, &name),
            fields,
            constants: Vec::new(),
        });
        Ok(())
    }

    fn array_suffix(&mut self, mut ty: FieldType) -> Result<FieldType, ParseError> {
        if self.eat("[") {
            let size = match self.next()? {
                Token::Number(n) => n.parse::<u32>().ok().filter(|n| *n > 0),
                _ => None,
            }
            .ok_or_else(|| self.error("an array size is a positive integer".to_owned()))?;
            self.expect("]")?;
            if ty.array != ArrayKind::Single {
                return Err(self.error("arrays of arrays or sequences cannot be expressed in ROS".to_owned()));
            }
            ty.array = ArrayKind::Fixed(size);
        }
        Ok(ty)
    }

    fn type_spec(&mut self, modules: &[String]) -> Result<FieldType, ParseError> {
        let single = |base| FieldType {
            base,
            array: ArrayKind::Single,
        };
        let first = self.ident()?;
        let primitive = |p| Ok(single(BaseType::Primitive(p)));
        match first.as_str() {
            "boolean" => return primitive(Primitive::Bool),
            "octet" => return primitive(Primitive::Byte),
            "char" => return primitive(Primitive::IdlChar),
            "wchar" => return primitive(Primitive::WChar),
            "int8" => return primitive(Primitive::Int8),
            "uint8" => return primitive(Primitive::UInt8),
            "int16" | "short" => return primitive(Primitive::Int16),
            "uint16" => return primitive(Primitive::UInt16),
            "int32" => return primitive(Primitive::Int32),
            "uint32" => return primitive(Primitive::UInt32),
            "int64" => return primitive(Primitive::Int64),
            "uint64" => return primitive(Primitive::UInt64),
            "float" => return primitive(Primitive::Float32),
            "double" => return primitive(Primitive::Float64),
            "unsigned" => {
                return match self.ident()?.as_str() {
                    "short" => primitive(Primitive::UInt16),
                    "long" if self.eat_word("long") => primitive(Primitive::UInt64),
                    "long" => primitive(Primitive::UInt32),
                    other => Err(self.error(format!("unsigned {other}: expected short, long or long long"))),
                };
            }
            "long" => {
                if self.eat_word("double") {
                    return Err(self.error("long double has no Rust type; use double".to_owned()));
                }
                return if self.eat_word("long") {
                    primitive(Primitive::Int64)
                } else {
                    primitive(Primitive::Int32)
                };
            }
            "string" | "wstring" => {
                let bound = if self.eat("<") {
                    let bound = self.size()?;
                    self.expect(">")?;
                    Some(bound)
                } else {
                    None
                };
                return Ok(single(if first == "string" {
                    BaseType::String { bound }
                } else {
                    BaseType::WString { bound }
                }));
            }
            "sequence" => {
                self.expect("<")?;
                let element = self.type_spec(modules)?;
                let array = if self.eat(",") {
                    ArrayKind::Bounded(self.size()?)
                } else {
                    ArrayKind::Unbounded
                };
                self.expect(">")?;
                if element.array != ArrayKind::Single {
                    return Err(self.error("sequences of arrays cannot be expressed in ROS".to_owned()));
                }
                return Ok(FieldType {
                    base: element.base,
                    array,
                });
            }
            _ => {}
        }
        let mut path = vec![first];
        while self.eat("::") {
            path.push(self.ident()?);
        }
        if let [name] = path.as_slice()
            && let Some(ty) = self.typedefs.get(name)
        {
            return Ok(ty.clone());
        }
        let name = match path.as_slice() {
            [package, namespace, name] => TypeName::parse(&format!("{package}/{namespace}/{name}")),
            [name] => match modules {
                [package, namespace] => TypeName::parse(&format!("{package}/{namespace}/{name}")),
                _ => None,
            },
            _ => None,
        }
        .ok_or_else(|| self.error(format!("unknown type `{}`", path.join("::"))))?;
        Ok(single(BaseType::Nested(name)))
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Ident(w)) if w == word) {
            self.index += 1;
            true
        } else {
            false
        }
    }

    fn size(&mut self) -> Result<u32, ParseError> {
        match self.next()? {
            Token::Number(n) => n.parse::<u32>().ok().filter(|n| *n > 0),
            _ => None,
        }
        .ok_or_else(|| self.error("a bound is a positive integer".to_owned()))
    }
}

fn leak(punct: &str) -> &'static str {
    PUNCTUATION.iter().find(|p| **p == punct).copied().unwrap_or("")
}

/// Parses an `.idl` file into its structs (with their constants attached).
pub fn parse_idl(type_name: &str, text: &str) -> Result<Vec<IdlStruct>, ParseError> {
    let tokens = Lexer {
        text,
        position: 0,
        line: 1,
    }
    .tokens()
    .map_err(|(line, message)| ParseError {
        type_name: type_name.to_owned(),
        line,
        message,
    })?;
    let mut parser = Parser {
        tokens,
        index: 0,
        type_name,
        typedefs: BTreeMap::new(),
        structs: Vec::new(),
        constants: BTreeMap::new(),
    };
    parser.definitions(&mut Vec::new())?;
    if parser.index != parser.tokens.len() {
        return Err(parser.error("unexpected `}`".to_owned()));
    }
    let mut structs = parser.structs;
    for def in &mut structs {
        if let Some(constants) = parser.constants.remove(&def.name.name) {
            def.constants = constants;
        }
    }
    Ok(structs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_rosidl_adapter_writes() {
        let text = r#"
// generated from rosidl_adapter/resource/msg.idl.em
#include "std_msgs/msg/Header.idl"
module demo_msgs {
  module msg {
    typedef double double__9[9];
    module Reading_Constants {
      const uint8 KIND_A = 1;
      const string NAME = "x" "y";
    };
    @verbatim (language="comment", text=
      "A reading." "\n" "Two lines.")
    struct Reading {
      std_msgs::msg::Header header;
      @default (value=1.5)
      double gain;
      double__9 covariance;
      sequence<demo_msgs::msg::Other, 3> others;
      sequence<string<5>> names;
      char c;
      wchar w;
      unsigned long long big;
      @default (value=TRUE)
      boolean flag;
      @default (value="(1, 2)")
      sequence<int32> pair;
    };
  };
};
"#;
        let structs = parse_idl("demo_msgs/msg/Reading", text).unwrap();
        assert_eq!(structs.len(), 1);
        let reading = &structs[0];
        assert_eq!(reading.name.to_string(), "demo_msgs/msg/Reading");
        assert_eq!(reading.constants.len(), 2);
        assert_eq!(reading.constants[1].value, Literal::String("xy".into()));
        let types: Vec<String> = reading.fields.iter().map(|f| f.ty.to_string()).collect();
        assert_eq!(
            types,
            [
                "std_msgs/Header",
                "float64",
                "float64[9]",
                "demo_msgs/Other[<=3]",
                "string<=5[]",
                "char",
                "wchar",
                "uint64",
                "bool",
                "int32[]"
            ]
        );
        assert_eq!(reading.fields[1].default, Some(Literal::Float(1.5)));
        assert_eq!(reading.fields[5].ty.base, BaseType::Primitive(Primitive::IdlChar));
        assert_eq!(reading.fields[8].default, Some(Literal::Bool(true)));
        assert_eq!(
            reading.fields[9].default,
            Some(Literal::Array(vec![Literal::Int(1), Literal::Int(2)]))
        );
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_idl(
            "p/msg/T",
            "module p {\n module msg {\n struct T {\n  float128 x;\n };\n };\n};\n",
        )
        .unwrap_err();
        assert_eq!(err.line, 4, "{err}");
        assert!(
            parse_idl(
                "p/msg/T",
                "module p { module msg { struct T { long double x; }; }; };"
            )
            .is_err()
        );
        assert!(
            parse_idl("p/msg/T", "struct T { int32 x; };")
                .unwrap_err()
                .message
                .contains("inside")
        );
    }
}
