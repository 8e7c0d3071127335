//! # zshm-rosidl: ROS 2 interface definitions for zshm
//!
//! Reads ROS 2 interface definitions (`.msg`, `.srv`, `.action`, and `.idl` as ROS writes it), derives the types ROS derives
//! from services and actions (`X_Request`, `X_Response`, `X_Event`, `X_Goal`, `X_SendGoal`, ...),
//! computes their RIHS01 type hashes exactly as ROS 2 Jazzy does, and generates Rust types with
//! their CDR encoding for the `zshm` library. It also carries the interface packages zshm ships
//! ([`InterfaceSet::shipped`]).
//!
//! A crate with its own message types calls the [`Builder`] from its build script:
//!
//! ```no_run
//! // build.rs: `fn main` of a build script
//! if let Err(e) = zshm_rosidl::Builder::new().package("my_msgs", "interfaces/my_msgs").generate() {
//!     eprintln!("{e}");
//!     std::process::exit(1);
//! }
//! ```
//!
//! and includes the result once, with `zshm::include_interfaces!();`, which gives
//! `my_msgs::msg::MyType` next to zshm's own `zshm::msgs::std_msgs::msg::String`.

mod builder;
mod hash;
mod idl;
mod model;
mod naming;
pub mod parse;
mod rust;
mod set;
mod type_description;

pub use builder::{BuildError, Builder};
pub use hash::{hashed_json, rihs01};
pub use model::{
    ActionDef, ArrayKind, BaseType, Constant, Field, FieldType, Literal, MessageDef, Namespace,
    PLACEHOLDER_FIELD, Primitive, ServiceDef, Source, TypeName,
};
pub use parse::ParseError;
pub use rust::RustOptions;
pub use set::{InterfaceError, InterfaceSet};

/// Type descriptions and sources for type description services: [`describe`](description::describe)
/// gives the data the hash is computed from, and the field helpers (`type_id`, `capacity`, ...)
/// describe one field the same way.
pub mod description {
    pub use crate::hash::description_json;
    pub use crate::type_description::{
        DescribedField, IndividualDescription, TypeDescription, TypeSource, capacity, describe,
        nested_type_name, sources, string_capacity, type_id,
    };
}
