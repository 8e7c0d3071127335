//! What an interface definition says: type names, field types, fields, constants, defaults.
//!
//! These are plain data. [`crate::parse`] builds them from `.msg` / `.srv` / `.action` text and
//! [`crate::InterfaceSet`] adds the types ROS derives from services and actions.

use std::fmt;

/// The namespace of a type inside its package: `msg`, `srv` or `action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Namespace {
    /// `pkg/msg/T`.
    Msg,
    /// `pkg/srv/T` (a service and the request, response and event types derived from it).
    Srv,
    /// `pkg/action/T` (an action and every type derived from it).
    Action,
}

impl Namespace {
    /// `msg`, `srv` or `action`.
    pub fn as_str(self) -> &'static str {
        match self {
            Namespace::Msg => "msg",
            Namespace::Srv => "srv",
            Namespace::Action => "action",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text {
            "msg" => Some(Namespace::Msg),
            "srv" => Some(Namespace::Srv),
            "action" => Some(Namespace::Action),
            _ => None,
        }
    }
}

/// A full ROS type name, `package/namespace/Name`, e.g. `sensor_msgs/msg/PointCloud2`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeName {
    /// The package, e.g. `sensor_msgs`.
    pub package: String,
    /// `msg`, `srv` or `action`.
    pub namespace: Namespace,
    /// The type, e.g. `PointCloud2`, `AddTwoInts_Request`.
    pub name: String,
}

impl TypeName {
    /// A name from its three parts.
    pub fn new(package: &str, namespace: Namespace, name: &str) -> Self {
        Self {
            package: package.to_owned(),
            namespace,
            name: name.to_owned(),
        }
    }

    /// Parses `pkg/msg/Name` (also `pkg/srv/..`, `pkg/action/..`) or the short form `pkg/Name`,
    /// which means `pkg/msg/Name`. `None` when the text has neither form.
    pub fn parse(text: &str) -> Option<Self> {
        let parts: Vec<&str> = text.split('/').collect();
        let (package, namespace, name) = match parts.as_slice() {
            [package, namespace, name] => (*package, Namespace::parse(namespace)?, *name),
            [package, name] => (*package, Namespace::Msg, *name),
            _ => return None,
        };
        if !crate::naming::is_package_name(package) || !crate::naming::is_derived_type_name(name) {
            return None;
        }
        Some(Self::new(package, namespace, name))
    }

    /// The DDS name rmw_zenoh and the DDS RMWs use, e.g. `sensor_msgs::msg::dds_::PointCloud2_`.
    pub fn dds_name(&self) -> String {
        format!(
            "{}::{}::dds_::{}_",
            self.package,
            self.namespace.as_str(),
            self.name
        )
    }

    /// Parses a DDS name `pkg::msg::dds_::Name_` back.
    pub fn from_dds_name(text: &str) -> Option<Self> {
        let parts: Vec<&str> = text.split("::").collect();
        match parts.as_slice() {
            [package, namespace, "dds_", name] => {
                let name = name.strip_suffix('_')?;
                Self::parse(&format!("{package}/{namespace}/{name}"))
            }
            _ => None,
        }
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.package, self.namespace.as_str(), self.name)
    }
}

/// A primitive type of the `.msg` language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// `bool`.
    Bool,
    /// `byte` (an IDL octet).
    Byte,
    /// `char` (an unsigned 8-bit integer in `.msg`, unlike IDL's char).
    Char,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
    /// `float32`.
    Float32,
    /// `float64`.
    Float64,
    /// IDL's `char` (only from `.idl` files; hashed as type id 13, unlike `.msg` char).
    IdlChar,
    /// IDL's `wchar`: a UTF-16 unit (only from `.idl` files).
    WChar,
}

impl Primitive {
    /// Every primitive with its `.msg` keyword.
    pub const ALL: [(Primitive, &'static str); 13] = [
        (Primitive::Bool, "bool"),
        (Primitive::Byte, "byte"),
        (Primitive::Char, "char"),
        (Primitive::Int8, "int8"),
        (Primitive::UInt8, "uint8"),
        (Primitive::Int16, "int16"),
        (Primitive::UInt16, "uint16"),
        (Primitive::Int32, "int32"),
        (Primitive::UInt32, "uint32"),
        (Primitive::Int64, "int64"),
        (Primitive::UInt64, "uint64"),
        (Primitive::Float32, "float32"),
        (Primitive::Float64, "float64"),
    ];

    /// The `.msg` keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Primitive::IdlChar => "char",
            Primitive::WChar => "wchar",
            other => Self::ALL
                .iter()
                .find(|(p, _)| *p == other)
                .map(|(_, k)| *k)
                .unwrap_or("?"),
        }
    }

    /// The primitive a `.msg` keyword names.
    pub fn from_keyword(word: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, k)| *k == word).map(|(p, _)| *p)
    }

    /// Size in bytes on the wire, which is also its CDR alignment.
    pub fn size(self) -> usize {
        match self {
            Primitive::Bool
            | Primitive::Byte
            | Primitive::Char
            | Primitive::IdlChar
            | Primitive::Int8
            | Primitive::UInt8 => 1,
            Primitive::Int16 | Primitive::UInt16 | Primitive::WChar => 2,
            Primitive::Int32 | Primitive::UInt32 | Primitive::Float32 => 4,
            Primitive::Int64 | Primitive::UInt64 | Primitive::Float64 => 8,
        }
    }

    /// True for `float32` and `float64`.
    pub fn is_float(self) -> bool {
        matches!(self, Primitive::Float32 | Primitive::Float64)
    }

    /// The range of an integer type (`bool` is 0..=1), `None` for floats.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Primitive::Bool => (0, 1),
            Primitive::Byte | Primitive::Char | Primitive::IdlChar | Primitive::UInt8 => (0, u8::MAX.into()),
            Primitive::Int8 => (i8::MIN.into(), i8::MAX.into()),
            Primitive::Int16 => (i16::MIN.into(), i16::MAX.into()),
            Primitive::UInt16 | Primitive::WChar => (0, u16::MAX.into()),
            Primitive::Int32 => (i32::MIN.into(), i32::MAX.into()),
            Primitive::UInt32 => (0, u32::MAX.into()),
            Primitive::Int64 => (i64::MIN.into(), i64::MAX.into()),
            Primitive::UInt64 => (0, u64::MAX.into()),
            Primitive::Float32 | Primitive::Float64 => return None,
        })
    }

    /// True for the one-byte unsigned types a `&[u8]` can hold as they are.
    pub fn is_byte_like(self) -> bool {
        matches!(self, Primitive::Byte | Primitive::Char | Primitive::UInt8)
    }
}

/// The element type of a field, without its array part.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BaseType {
    /// A primitive.
    Primitive(Primitive),
    /// `string` or `string<=N`.
    String {
        /// The bound in bytes, if any.
        bound: Option<u32>,
    },
    /// `wstring` or `wstring<=N`.
    WString {
        /// The bound in UTF-16 units, if any.
        bound: Option<u32>,
    },
    /// Another message type.
    Nested(TypeName),
}

/// Whether and how a field repeats its element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// One value.
    Single,
    /// `T[N]`: exactly N values, no count on the wire.
    Fixed(u32),
    /// `T[<=N]`: up to N values, a count on the wire.
    Bounded(u32),
    /// `T[]`: any number of values, a count on the wire.
    Unbounded,
}

impl ArrayKind {
    /// True for the sequences (`T[]`, `T[<=N]`), which carry a count on the wire.
    pub fn is_sequence(self) -> bool {
        matches!(self, ArrayKind::Bounded(_) | ArrayKind::Unbounded)
    }
}

/// A field's full type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldType {
    /// The element type.
    pub base: BaseType,
    /// Single value, fixed array or sequence.
    pub array: ArrayKind,
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.base {
            BaseType::Primitive(p) => f.write_str(p.keyword())?,
            BaseType::String { bound: None } => f.write_str("string")?,
            BaseType::String { bound: Some(n) } => write!(f, "string<={n}")?,
            BaseType::WString { bound: None } => f.write_str("wstring")?,
            BaseType::WString { bound: Some(n) } => write!(f, "wstring<={n}")?,
            BaseType::Nested(name) => write!(f, "{}/{}", name.package, name.name)?,
        }
        match self.array {
            ArrayKind::Single => Ok(()),
            ArrayKind::Fixed(n) => write!(f, "[{n}]"),
            ArrayKind::Bounded(n) => write!(f, "[<={n}]"),
            ArrayKind::Unbounded => f.write_str("[]"),
        }
    }
}

/// A literal value: a constant's value or a field's default.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `true` / `false`.
    Bool(bool),
    /// An integer (wide enough for every ROS integer type).
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// A string.
    String(String),
    /// A list, the default of an array field.
    Array(Vec<Literal>),
}

/// A field of a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The field name.
    pub name: String,
    /// Its type.
    pub ty: FieldType,
    /// Its default value, if the definition gives one (else the type's zero value).
    pub default: Option<Literal>,
    /// The default as written, for type descriptions.
    pub default_text: Option<String>,
}

/// The member rosidl adds to a message that has no fields, so every struct has one member. It
/// is on the wire and in the type hash; generated types and dynamic values hide it.
pub const PLACEHOLDER_FIELD: &str = "structure_needs_at_least_one_member";

impl Field {
    /// True for rosidl's placeholder member of an empty message.
    pub fn is_placeholder(&self) -> bool {
        self.name == PLACEHOLDER_FIELD
    }
}

/// A constant of a message (`TYPE NAME=VALUE`).
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    /// The name (upper case).
    pub name: String,
    /// A primitive or a string.
    pub ty: BaseType,
    /// The value.
    pub value: Literal,
}

/// Where a type's definition comes from, for `interface show` and type description sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A `.msg`, `.srv` or `.action` file: its suffix and full text.
    File {
        /// `msg`, `srv`, `action` or `idl`.
        encoding: &'static str,
        /// The file's text.
        text: String,
    },
    /// A type ROS derives (request, response, event, goal, ...): no text of its own.
    Implicit,
}

/// One message type: its fields in declaration order and its constants.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageDef {
    /// Its full name.
    pub name: TypeName,
    /// Fields in order (for an empty message, the single placeholder member).
    pub fields: Vec<Field>,
    /// Constants in order.
    pub constants: Vec<Constant>,
    /// The text it was parsed from.
    pub source: Source,
}

/// A service: its request, response and event message types (all in the set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceDef {
    /// `pkg/srv/Name` (or `pkg/action/Name_SendGoal` for an action's services).
    pub name: TypeName,
    /// `Name_Request`.
    pub request: TypeName,
    /// `Name_Response`.
    pub response: TypeName,
    /// `Name_Event`.
    pub event: TypeName,
    /// The `.srv` text, or [`Source::Implicit`] for an action's services.
    pub source: Source,
}

/// An action: its goal, result and feedback types, its two services and its feedback message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionDef {
    /// `pkg/action/Name`.
    pub name: TypeName,
    /// `Name_Goal`.
    pub goal: TypeName,
    /// `Name_Result`.
    pub result: TypeName,
    /// `Name_Feedback`.
    pub feedback: TypeName,
    /// `Name_SendGoal` (a service).
    pub send_goal: TypeName,
    /// `Name_GetResult` (a service).
    pub get_result: TypeName,
    /// `Name_FeedbackMessage`.
    pub feedback_message: TypeName,
    /// The `.action` text.
    pub source: Source,
}
