//! The type description service: every node answers `~/get_type_description`
//! (`type_description_interfaces/srv/GetTypeDescription`) for the types it uses, as Jazzy nodes
//! do (rcl's `node_type_cache.c` and `rcl_node_type_description_service_handle_request` in
//! `node.c`; rclcpp starts it unless the parameter `start_type_description_service` is false,
//! here [`NodeOptions::start_type_description_service`](super::NodeOptions)).
//!
//! The node records the name and hash of each publisher's, subscription's, server's and client's
//! type when the entity is created, and keeps it while the node lives (rcl forgets a type when
//! its last entity goes; zshm keeps it). A request is looked up by its hash only, as rcl does:
//!
//! * a hash that is not `RIHS01_` and 64 hex digits fails with `Failed to parse type hash`;
//! * a hash no entity of the node uses fails with `Type not currently in use by this node`;
//! * otherwise the answer is the type's description and, if asked, its sources.
//!
//! The description is [`zshm_rosidl::description::describe`] of the shipped interface set: the
//! very data the hash is computed from, so a client can hash it again ([`description_hash`]).
//! A type zshm does not ship (one's own, through `include_interfaces!`) is recorded, but its
//! description is not available: such a request fails and says so.

use zshm_rosidl::{InterfaceSet, TypeName, description};

use super::node_base::{NodeBase, NodeError};
use super::service::Service;
use super::type_cache::TypeCache;
use crate::msgs::type_description_interfaces::msg::{
    Field, FieldType, IndividualTypeDescription, TypeDescription, TypeSource,
};
use crate::msgs::type_description_interfaces::srv::{
    GetTypeDescription, GetTypeDescription_Request, GetTypeDescription_Response,
};

/// The service's name, relative to the node.
pub const SERVICE_NAME: &str = "~/get_type_description";

/// The failure reason for a hash that is not a RIHS01 hash (rcl's text).
pub const BAD_HASH: &str = "Failed to parse type hash";

/// The failure reason for a type no entity of the node uses (rcl's text).
pub const NOT_IN_USE: &str = "Type not currently in use by this node";

impl TypeCache {
    /// The answer to `request`.
    pub(crate) fn answer(&self, request: &GetTypeDescription_Request) -> GetTypeDescription_Response {
        if !is_rihs01(&request.type_hash) {
            return failure(BAD_HASH.into());
        }
        let Some(name) = self.name_of(&request.type_hash) else {
            return failure(NOT_IN_USE.into());
        };
        let set = InterfaceSet::shipped();
        let unavailable = || {
            failure(format!(
                "Type description of {name} is not available to this node"
            ))
        };
        let Some(type_name) = TypeName::parse(&name).filter(|type_name| set.contains(type_name)) else {
            return unavailable();
        };
        let Ok(described) = description::describe(set, &type_name) else {
            return unavailable();
        };
        let type_sources = if request.include_type_sources {
            match description::sources(set, &type_name) {
                Ok(sources) => sources.into_iter().map(type_source).collect(),
                Err(_) => return unavailable(),
            }
        } else {
            Vec::new()
        };
        GetTypeDescription_Response {
            successful: true,
            failure_reason: String::new(),
            type_description: TypeDescription {
                type_description: individual(described.type_description),
                referenced_type_descriptions: described
                    .referenced_type_descriptions
                    .into_iter()
                    .map(individual)
                    .collect(),
            },
            type_sources,
            extra_information: Vec::new(),
        }
    }
}

/// Offers `node`'s `~/get_type_description`, answering for the types its entities use.
pub(crate) async fn serve(node: &NodeBase) -> Result<Service<GetTypeDescription>, NodeError> {
    let types = node.types().clone();
    node.create_service::<GetTypeDescription>(SERVICE_NAME, move |request| types.answer(&request))
        .await
}

/// The RIHS01 hash of a received description, computed as the type's own hash is: equal to the
/// hash that was asked for when the description is complete and true.
pub fn description_hash(received: &TypeDescription) -> String {
    let individual = |d: &IndividualTypeDescription| description::IndividualDescription {
        type_name: d.type_name.clone(),
        fields: d
            .fields
            .iter()
            .map(|f| description::DescribedField {
                name: f.name.clone(),
                type_id: f.r#type.type_id,
                capacity: f.r#type.capacity,
                string_capacity: f.r#type.string_capacity,
                nested_type_name: f.r#type.nested_type_name.clone(),
                default_value: f.default_value.clone(),
            })
            .collect(),
    };
    let description = description::TypeDescription {
        type_description: individual(&received.type_description),
        referenced_type_descriptions: received
            .referenced_type_descriptions
            .iter()
            .map(individual)
            .collect(),
    };
    zshm_rosidl::rihs01(description::description_json(&description).as_bytes())
}

/// `RIHS01_` and 64 hex digits, as `rosidl_parse_type_hash_string` accepts.
fn is_rihs01(text: &str) -> bool {
    text.strip_prefix("RIHS01_")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn failure(failure_reason: String) -> GetTypeDescription_Response {
    GetTypeDescription_Response {
        successful: false,
        failure_reason,
        ..GetTypeDescription_Response::default()
    }
}

fn individual(described: description::IndividualDescription) -> IndividualTypeDescription {
    IndividualTypeDescription {
        type_name: described.type_name,
        fields: described
            .fields
            .into_iter()
            .map(|field| Field {
                name: field.name,
                r#type: FieldType {
                    type_id: field.type_id,
                    capacity: field.capacity,
                    string_capacity: field.string_capacity,
                    nested_type_name: field.nested_type_name,
                },
                default_value: field.default_value,
            })
            .collect(),
    }
}

fn type_source(source: description::TypeSource) -> TypeSource {
    TypeSource {
        type_name: source.type_name,
        encoding: source.encoding,
        raw_file_contents: source.raw_file_contents,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msgs::{Message, std_msgs};

    fn cache_with_string() -> TypeCache {
        TypeCache::with(std_msgs::msg::String::TYPE.hash, std_msgs::msg::String::TYPE.name)
    }

    fn request(hash: &str) -> GetTypeDescription_Request {
        GetTypeDescription_Request {
            type_name: "std_msgs/msg/String".into(),
            type_hash: hash.into(),
            include_type_sources: true,
        }
    }

    #[test]
    fn a_used_type_is_described_so_that_it_hashes_to_what_was_asked() {
        let response = cache_with_string().answer(&request(std_msgs::msg::String::TYPE.hash));
        assert!(response.successful, "{}", response.failure_reason);
        assert_eq!(response.type_description.type_description.fields[0].name, "data");
        assert_eq!(
            description_hash(&response.type_description),
            std_msgs::msg::String::TYPE.hash
        );
        assert_eq!(response.type_sources[0].encoding, "msg");
        assert_eq!(response.type_sources[0].raw_file_contents.trim(), "string data");
    }

    #[test]
    fn bad_and_unknown_hashes_fail_with_rcls_reasons() {
        let cache = cache_with_string();
        assert_eq!(cache.answer(&request("RIHS01_xyz")).failure_reason, BAD_HASH);
        let unused = format!("RIHS01_{}", "0".repeat(64));
        let response = cache.answer(&request(&unused));
        assert!(!response.successful);
        assert_eq!(response.failure_reason, NOT_IN_USE);
    }
}
