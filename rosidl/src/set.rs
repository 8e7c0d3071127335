//! A set of interface packages, with every type ROS derives from their services and actions, and
//! every nested type resolved.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::model::{
    ActionDef, ArrayKind, BaseType, Field, FieldType, MessageDef, Namespace, Primitive, ServiceDef, Source,
    TypeName,
};
use crate::parse::{self, ParseError};

/// Why a set of definitions cannot be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum InterfaceError {
    /// A file or folder could not be read.
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A definition does not follow the grammar.
    Parse(ParseError),
    /// A file's name is not `msg/Name.msg`, `srv/Name.srv` or `action/Name.action`.
    FileName {
        /// The offending name.
        path: String,
    },
    /// The same type is defined twice.
    Duplicate {
        /// The type.
        type_name: TypeName,
    },
    /// A field names a type that is in none of the packages.
    Unresolved {
        /// The type holding the field.
        type_name: String,
        /// The field.
        field: String,
        /// The missing type.
        missing: String,
    },
    /// A type contains itself, directly or through other types.
    Recursive {
        /// The chain of types, first and last the same.
        chain: Vec<TypeName>,
    },
    /// A type was asked for that the set does not hold.
    Unknown {
        /// The type.
        type_name: String,
    },
}

impl fmt::Display for InterfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterfaceError::Io { path, error } => write!(f, "cannot read {}: {error}", path.display()),
            InterfaceError::Parse(error) => error.fmt(f),
            InterfaceError::FileName { path } => write!(
                f,
                "{path}: interface files are named msg/Name.msg, srv/Name.srv or action/Name.action, Name in CamelCase"
            ),
            InterfaceError::Duplicate { type_name } => write!(f, "{type_name} is defined twice"),
            InterfaceError::Unresolved {
                type_name,
                field,
                missing,
            } => write!(
                f,
                "{type_name}: field {field} has type {missing}, which no package defines (add its package, or fix the name)"
            ),
            InterfaceError::Recursive { chain } => {
                let names: Vec<String> = chain.iter().map(ToString::to_string).collect();
                write!(f, "recursive types are not allowed: {}", names.join(" -> "))
            }
            InterfaceError::Unknown { type_name } => write!(f, "unknown type {type_name}"),
        }
    }
}

impl std::error::Error for InterfaceError {}

impl From<ParseError> for InterfaceError {
    fn from(error: ParseError) -> Self {
        InterfaceError::Parse(error)
    }
}

/// Message, service and action types by name.
#[derive(Debug, Clone, Default)]
pub struct InterfaceSet {
    messages: BTreeMap<TypeName, MessageDef>,
    services: BTreeMap<TypeName, ServiceDef>,
    actions: BTreeMap<TypeName, ActionDef>,
}

mod shipped {
    include!(concat!(env!("OUT_DIR"), "/shipped.rs"));
}

impl InterfaceSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The interface packages zshm ships (ROS 2 Jazzy's builtin_interfaces, std_msgs,
    /// geometry_msgs, sensor_msgs, ...), parsed once.
    pub fn shipped() -> &'static InterfaceSet {
        static SET: OnceLock<InterfaceSet> = OnceLock::new();
        SET.get_or_init(|| {
            let mut set = InterfaceSet::new();
            for (package, path, text) in shipped::SHIPPED {
                // The shipped files are checked by this crate's tests; an error here is a bug in
                // the definitions zshm was built with, not in anything a user gave.
                set.add_file(package, path, text)
                    .unwrap_or_else(|e| panic!("shipped interface {package}/{path}: {e}"));
            }
            set.check().unwrap_or_else(|e| panic!("shipped interfaces: {e}"));
            set
        })
    }

    /// The names of the shipped packages.
    pub fn shipped_packages() -> BTreeSet<&'static str> {
        shipped::SHIPPED.iter().map(|(package, _, _)| *package).collect()
    }

    /// Adds every `msg/*.msg`, `srv/*.srv` and `action/*.action` file under `dir`, as types of
    /// `package`. Returns the files read (for a build script's `rerun-if-changed`).
    pub fn add_package_dir(&mut self, package: &str, dir: &Path) -> Result<Vec<PathBuf>, InterfaceError> {
        let mut read = Vec::new();
        for namespace in ["msg", "srv", "action"] {
            let sub = dir.join(namespace);
            if !sub.is_dir() {
                continue;
            }
            let entries = std::fs::read_dir(&sub).map_err(|error| InterfaceError::Io {
                path: sub.clone(),
                error,
            })?;
            let mut files: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some(e) if e == namespace || e == "idl"))
                .collect();
            files.sort();
            for path in files {
                let text = std::fs::read_to_string(&path).map_err(|error| InterfaceError::Io {
                    path: path.clone(),
                    error,
                })?;
                let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                self.add_file(package, &format!("{namespace}/{file_name}"), &text)?;
                read.push(path);
            }
        }
        Ok(read)
    }

    /// Adds one definition: `path` is `msg/Name.msg`, `srv/Name.srv` or `action/Name.action`.
    pub fn add_file(&mut self, package: &str, path: &str, text: &str) -> Result<(), InterfaceError> {
        let bad_name = || InterfaceError::FileName {
            path: format!("{package}/{path}"),
        };
        let (dir, file) = path.split_once('/').ok_or_else(bad_name)?;
        let (name, extension) = file.rsplit_once('.').ok_or_else(bad_name)?;
        if (dir != extension && extension != "idl")
            || !crate::naming::is_type_name(name)
            || !crate::naming::is_package_name(package)
        {
            return Err(bad_name());
        }
        if extension == "idl" {
            return self.add_idl(package, dir, name, text);
        }
        match extension {
            "msg" => {
                let type_name = TypeName::new(package, Namespace::Msg, name);
                let source = Source::File {
                    encoding: "msg",
                    text: text.to_owned(),
                };
                let def = parse::parse_message(type_name, text, 1, source)?;
                self.insert_message(def)
            }
            "srv" => self.add_service(package, name, text),
            "action" => self.add_action(package, name, text),
            _ => Err(bad_name()),
        }
    }

    fn insert_message(&mut self, def: MessageDef) -> Result<(), InterfaceError> {
        if self.messages.contains_key(&def.name) {
            return Err(InterfaceError::Duplicate { type_name: def.name });
        }
        self.messages.insert(def.name.clone(), def);
        Ok(())
    }

    fn add_service(&mut self, package: &str, name: &str, text: &str) -> Result<(), InterfaceError> {
        let service_name = TypeName::new(package, Namespace::Srv, name);
        let sections = parse::split_sections(&service_name.to_string(), text, 2)?;
        let request = parse::parse_message(
            derived(&service_name, "Request"),
            &sections[0].1,
            sections[0].0,
            Source::Implicit,
        )?;
        let response = parse::parse_message(
            derived(&service_name, "Response"),
            &sections[1].1,
            sections[1].0,
            Source::Implicit,
        )?;
        let source = Source::File {
            encoding: "srv",
            text: text.to_owned(),
        };
        self.insert_service(service_name, request, response, source)
    }

    /// Inserts a service's request and response, derives its event type, and records it.
    fn insert_service(
        &mut self,
        name: TypeName,
        request: MessageDef,
        response: MessageDef,
        source: Source,
    ) -> Result<(), InterfaceError> {
        if self.services.contains_key(&name) {
            return Err(InterfaceError::Duplicate { type_name: name });
        }
        let event = MessageDef {
            name: derived(&name, "Event"),
            fields: vec![
                nested_field(
                    "info",
                    TypeName::new("service_msgs", Namespace::Msg, "ServiceEventInfo"),
                ),
                Field {
                    ty: FieldType {
                        base: BaseType::Nested(request.name.clone()),
                        array: ArrayKind::Bounded(1),
                    },
                    ..nested_field("request", request.name.clone())
                },
                Field {
                    ty: FieldType {
                        base: BaseType::Nested(response.name.clone()),
                        array: ArrayKind::Bounded(1),
                    },
                    ..nested_field("response", response.name.clone())
                },
            ],
            constants: Vec::new(),
            source: Source::Implicit,
        };
        let def = ServiceDef {
            name: name.clone(),
            request: request.name.clone(),
            response: response.name.clone(),
            event: event.name.clone(),
            source,
        };
        self.insert_message(request)?;
        self.insert_message(response)?;
        self.insert_message(event)?;
        self.services.insert(name, def);
        Ok(())
    }

    fn add_action(&mut self, package: &str, name: &str, text: &str) -> Result<(), InterfaceError> {
        let action = TypeName::new(package, Namespace::Action, name);
        let sections = parse::split_sections(&action.to_string(), text, 3)?;
        let mut parts = Vec::new();
        for ((first_line, section), suffix) in sections.iter().zip(["Goal", "Result", "Feedback"]) {
            parts.push(parse::parse_message(
                derived(&action, suffix),
                section,
                *first_line,
                Source::Implicit,
            )?);
        }
        let [goal, result, feedback]: [MessageDef; 3] = parts.try_into().expect("three sections");
        let source = Source::File {
            encoding: "action",
            text: text.to_owned(),
        };
        self.insert_action(action, [goal, result, feedback], source)
    }

    /// An `.idl` file: its structs are messages (`msg/`), a request and response (`srv/`), or a
    /// goal, result and feedback (`action/`).
    fn add_idl(&mut self, package: &str, dir: &str, name: &str, text: &str) -> Result<(), InterfaceError> {
        let namespace = match dir {
            "msg" => Namespace::Msg,
            "srv" => Namespace::Srv,
            "action" => Namespace::Action,
            _ => {
                return Err(InterfaceError::FileName {
                    path: format!("{package}/{dir}/{name}.idl"),
                });
            }
        };
        let top = TypeName::new(package, namespace, name);
        let structs = crate::idl::parse_idl(&top.to_string(), text)?;
        let mut by_name: BTreeMap<String, MessageDef> = BTreeMap::new();
        for idl in structs {
            if idl.name.package != package || idl.name.namespace != namespace {
                return Err(InterfaceError::Parse(ParseError {
                    type_name: top.to_string(),
                    line: 0,
                    message: format!(
                        "{} is declared in {package}/{dir}/{name}.idl, outside module {package}::{dir}",
                        idl.name
                    ),
                }));
            }
            let mut fields = idl.fields;
            if fields.is_empty() {
                fields.push(placeholder());
            }
            by_name.insert(
                idl.name.name.clone(),
                MessageDef {
                    name: idl.name,
                    fields,
                    constants: idl.constants,
                    source: Source::Implicit,
                },
            );
        }
        let source = Source::File {
            encoding: "idl",
            text: text.to_owned(),
        };
        let mut take = |suffix: &str| {
            let wanted = if suffix.is_empty() {
                name.to_owned()
            } else {
                format!("{name}_{suffix}")
            };
            by_name.remove(&wanted).ok_or_else(|| {
                InterfaceError::Parse(ParseError {
                    type_name: top.to_string(),
                    line: 0,
                    message: format!("the file declares no struct {wanted}"),
                })
            })
        };
        match namespace {
            Namespace::Msg => {
                let mut def = take("")?;
                def.source = source;
                self.insert_message(def)?;
                for (_, other) in std::mem::take(&mut by_name) {
                    self.insert_message(other)?;
                }
                Ok(())
            }
            Namespace::Srv => {
                let (request, response) = (take("Request")?, take("Response")?);
                self.insert_service(top, request, response, source)
            }
            Namespace::Action => {
                let parts = [take("Goal")?, take("Result")?, take("Feedback")?];
                self.insert_action(top, parts, source)
            }
        }
    }

    fn insert_action(
        &mut self,
        action: TypeName,
        [goal, result, feedback]: [MessageDef; 3],
        source: Source,
    ) -> Result<(), InterfaceError> {
        let uuid = TypeName::new("unique_identifier_msgs", Namespace::Msg, "UUID");
        let message = |name: TypeName, fields: Vec<Field>| MessageDef {
            name,
            fields,
            constants: Vec::new(),
            source: Source::Implicit,
        };

        let send_goal = derived(&action, "SendGoal");
        let send_goal_request = message(
            derived(&send_goal, "Request"),
            vec![
                nested_field("goal_id", uuid.clone()),
                nested_field("goal", goal.name.clone()),
            ],
        );
        let send_goal_response = message(
            derived(&send_goal, "Response"),
            vec![
                primitive_field("accepted", Primitive::Bool),
                nested_field(
                    "stamp",
                    TypeName::new("builtin_interfaces", Namespace::Msg, "Time"),
                ),
            ],
        );
        let get_result = derived(&action, "GetResult");
        let get_result_request = message(
            derived(&get_result, "Request"),
            vec![nested_field("goal_id", uuid.clone())],
        );
        let get_result_response = message(
            derived(&get_result, "Response"),
            vec![
                primitive_field("status", Primitive::Int8),
                nested_field("result", result.name.clone()),
            ],
        );
        let feedback_message = message(
            derived(&action, "FeedbackMessage"),
            vec![
                nested_field("goal_id", uuid),
                nested_field("feedback", feedback.name.clone()),
            ],
        );
        if self.actions.contains_key(&action) {
            return Err(InterfaceError::Duplicate { type_name: action });
        }
        let def = ActionDef {
            name: action.clone(),
            goal: goal.name.clone(),
            result: result.name.clone(),
            feedback: feedback.name.clone(),
            send_goal: send_goal.clone(),
            get_result: get_result.clone(),
            feedback_message: feedback_message.name.clone(),
            source,
        };
        self.insert_message(goal)?;
        self.insert_message(result)?;
        self.insert_message(feedback)?;
        self.insert_service(send_goal, send_goal_request, send_goal_response, Source::Implicit)?;
        self.insert_service(
            get_result,
            get_result_request,
            get_result_response,
            Source::Implicit,
        )?;
        self.insert_message(feedback_message)?;
        self.actions.insert(action, def);
        Ok(())
    }

    /// Checks that every nested type exists and that no type contains itself.
    pub fn check(&self) -> Result<(), InterfaceError> {
        for def in self.messages.values() {
            for field in &def.fields {
                if let BaseType::Nested(nested) = &field.ty.base
                    && !self.messages.contains_key(nested)
                {
                    return Err(InterfaceError::Unresolved {
                        type_name: def.name.to_string(),
                        field: field.name.clone(),
                        missing: nested.to_string(),
                    });
                }
            }
        }
        let mut done = BTreeSet::new();
        for name in self.messages.keys() {
            self.check_acyclic(name, &mut Vec::new(), &mut done)?;
        }
        Ok(())
    }

    fn check_acyclic<'a>(
        &'a self,
        name: &'a TypeName,
        path: &mut Vec<&'a TypeName>,
        done: &mut BTreeSet<&'a TypeName>,
    ) -> Result<(), InterfaceError> {
        if done.contains(name) {
            return Ok(());
        }
        if let Some(start) = path.iter().position(|n| *n == name) {
            let mut chain: Vec<TypeName> = path[start..].iter().map(|n| (*n).clone()).collect();
            chain.push(name.clone());
            return Err(InterfaceError::Recursive { chain });
        }
        path.push(name);
        if let Some(def) = self.messages.get(name) {
            for field in &def.fields {
                if let BaseType::Nested(nested) = &field.ty.base {
                    self.check_acyclic(nested, path, done)?;
                }
            }
        }
        path.pop();
        done.insert(name);
        Ok(())
    }

    /// A message type (also the derived ones: `X_Request`, `X_Goal`, `X_FeedbackMessage`, ...).
    pub fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        self.messages.get(name)
    }

    /// A service type (also an action's `X_SendGoal` and `X_GetResult`).
    pub fn service(&self, name: &TypeName) -> Option<&ServiceDef> {
        self.services.get(name)
    }

    /// An action type.
    pub fn action(&self, name: &TypeName) -> Option<&ActionDef> {
        self.actions.get(name)
    }

    /// Every message type, sorted by name.
    pub fn messages(&self) -> impl Iterator<Item = &MessageDef> {
        self.messages.values()
    }

    /// Every service type, sorted by name.
    pub fn services(&self) -> impl Iterator<Item = &ServiceDef> {
        self.services.values()
    }

    /// Every action type, sorted by name.
    pub fn actions(&self) -> impl Iterator<Item = &ActionDef> {
        self.actions.values()
    }

    /// Every package that defines at least one type.
    pub fn packages(&self) -> BTreeSet<&str> {
        self.messages.keys().map(|n| n.package.as_str()).collect()
    }

    /// True when the set holds a message, service or action of that name.
    pub fn contains(&self, name: &TypeName) -> bool {
        self.messages.contains_key(name)
            || self.services.contains_key(name)
            || self.actions.contains_key(name)
    }

    /// The members of a type as its type description lists them: a message's fields; a
    /// service's `request_message`, `response_message`, `event_message`; an action's `goal`,
    /// `result`, `feedback`, `send_goal_service`, `get_result_service`, `feedback_message`.
    pub fn description_fields(&self, name: &TypeName) -> Option<Vec<Field>> {
        if let Some(def) = self.messages.get(name) {
            return Some(def.fields.clone());
        }
        if let Some(service) = self.services.get(name) {
            return Some(vec![
                nested_field("request_message", service.request.clone()),
                nested_field("response_message", service.response.clone()),
                nested_field("event_message", service.event.clone()),
            ]);
        }
        let action = self.actions.get(name)?;
        Some(vec![
            nested_field("goal", action.goal.clone()),
            nested_field("result", action.result.clone()),
            nested_field("feedback", action.feedback.clone()),
            nested_field("send_goal_service", action.send_goal.clone()),
            nested_field("get_result_service", action.get_result.clone()),
            nested_field("feedback_message", action.feedback_message.clone()),
        ])
    }

    /// Every type `name` refers to, directly or not, itself left out, sorted by name.
    pub fn referenced_types(&self, name: &TypeName) -> Result<Vec<TypeName>, InterfaceError> {
        let mut found = BTreeSet::new();
        let mut stack = vec![name.clone()];
        while let Some(current) = stack.pop() {
            let fields = self
                .description_fields(&current)
                .ok_or_else(|| InterfaceError::Unknown {
                    type_name: current.to_string(),
                })?;
            for field in fields {
                if let BaseType::Nested(nested) = field.ty.base
                    && nested != *name
                    && found.insert(nested.clone())
                {
                    stack.push(nested);
                }
            }
        }
        // Sorted as text, as the Python generator sorts them: `pkg/action/..` before `pkg/msg/..`.
        let mut found: Vec<TypeName> = found.into_iter().collect();
        found.sort_by_cached_key(ToString::to_string);
        Ok(found)
    }

    /// The message definition in the concatenated form rosbag2 writes into `ros2msg` schemas
    /// (`LocalMessageDefinitionSource::get_full_text` in rosbag2_cpp): the type's own text as its
    /// file has it, then, depth first, each message it uses that has not appeared yet, in the
    /// order of their `pkg/Name` strings, each preceded by a newline, a line of 80 `=` and
    /// `MSG: pkg/Name`.
    pub fn concatenated_definition(&self, name: &TypeName) -> Result<String, InterfaceError> {
        let mut seen = BTreeSet::new();
        self.append_definition(name, &mut seen, 0)
    }

    fn append_definition(
        &self,
        name: &TypeName,
        seen: &mut BTreeSet<String>,
        depth: usize,
    ) -> Result<String, InterfaceError> {
        let mut out = self.raw_message_text(name)?;
        let fields = self
            .description_fields(name)
            .ok_or_else(|| InterfaceError::Unknown {
                type_name: name.to_string(),
            })?;
        // rosbag2 keeps a message's dependencies in a `std::set<std::string>`: sorted, once each.
        let mut dependencies = std::collections::BTreeMap::new();
        for field in fields {
            if let BaseType::Nested(nested) = &field.ty.base {
                dependencies.insert(format!("{}/{}", nested.package, nested.name), nested.clone());
            }
        }
        // Definitions are finite and acyclic; the bound only guards against a broken set.
        if depth > 64 {
            return Err(InterfaceError::Unknown {
                type_name: name.to_string(),
            });
        }
        for (short, nested) in dependencies {
            if seen.insert(short.clone()) {
                out.push('\n');
                out.push_str(&"=".repeat(80));
                out.push_str(&format!("\nMSG: {short}\n"));
                out.push_str(&self.append_definition(&nested, seen, depth + 1)?);
            }
        }
        Ok(out)
    }

    /// A message's text exactly as its `.msg` file has it; for a type without a file, the text
    /// [`message_text`](Self::message_text) writes.
    fn raw_message_text(&self, name: &TypeName) -> Result<String, InterfaceError> {
        match self.messages.get(name).map(|def| &def.source) {
            Some(Source::File { encoding, text }) if *encoding != "idl" => Ok(text.clone()),
            _ => self.message_text(name),
        }
    }

    /// A message's definition text: its file for a `.msg` type, else its fields and constants
    /// written out (derived types such as `X_Request` have no file of their own).
    pub fn message_text(&self, name: &TypeName) -> Result<String, InterfaceError> {
        let def = self.messages.get(name).ok_or_else(|| InterfaceError::Unknown {
            type_name: name.to_string(),
        })?;
        if let Source::File { text, .. } = &def.source {
            let mut text = text.clone();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            return Ok(text);
        }
        let mut out = String::new();
        for constant in &def.constants {
            let ty = FieldType {
                base: constant.ty.clone(),
                array: ArrayKind::Single,
            };
            out.push_str(&format!(
                "{ty} {}={}\n",
                constant.name,
                literal_text(&constant.value)
            ));
        }
        for field in def.fields.iter().filter(|f| !f.is_placeholder()) {
            match &field.default_text {
                Some(default) => out.push_str(&format!("{} {} {default}\n", field.ty, field.name)),
                None => out.push_str(&format!("{} {}\n", field.ty, field.name)),
            }
        }
        Ok(out)
    }
}

fn literal_text(literal: &crate::Literal) -> String {
    match literal {
        crate::Literal::Bool(b) => b.to_string(),
        crate::Literal::Int(i) => i.to_string(),
        crate::Literal::Float(f) => f.to_string(),
        crate::Literal::String(s) => format!("{s:?}"),
        crate::Literal::Array(items) => {
            let items: Vec<String> = items.iter().map(literal_text).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// `Name_Suffix` in the same package and namespace.
fn derived(parent: &TypeName, suffix: &str) -> TypeName {
    TypeName::new(
        &parent.package,
        parent.namespace,
        &format!("{}_{suffix}", parent.name),
    )
}

fn nested_field(name: &str, ty: TypeName) -> Field {
    Field {
        name: name.to_owned(),
        ty: FieldType {
            base: BaseType::Nested(ty),
            array: ArrayKind::Single,
        },
        default: None,
        default_text: None,
    }
}

fn placeholder() -> Field {
    primitive_field(crate::PLACEHOLDER_FIELD, Primitive::UInt8)
}

fn primitive_field(name: &str, primitive: Primitive) -> Field {
    Field {
        name: name.to_owned(),
        ty: FieldType {
            base: BaseType::Primitive(primitive),
            array: ArrayKind::Single,
        },
        default: None,
        default_text: None,
    }
}
