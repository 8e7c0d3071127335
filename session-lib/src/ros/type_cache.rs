//! [`TypeCache`]: the types a node's entities use, recorded as they are created, for its
//! type description service ([`super::type_description`]).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use zshm_rosidl::TypeName;

use super::liveliness::EndpointInfo;

/// The types a node's entities use, by hash.
#[derive(Debug, Default)]
pub(crate) struct TypeCache {
    types: Mutex<BTreeMap<String, String>>,
}

impl TypeCache {
    /// Records the type of an entity being created.
    pub(crate) fn record(&self, info: &EndpointInfo) {
        let name = TypeName::from_dds_name(&info.type_name)
            .map(|name| name.to_string())
            .unwrap_or_else(|| info.type_name.clone());
        self.types
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(info.type_hash.clone(), name);
    }

    /// The name (`pkg/msg/Type`) of the recorded type with this hash.
    pub(crate) fn name_of(&self, hash: &str) -> Option<String> {
        self.types
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(hash)
            .cloned()
    }

    /// A cache holding one type, for tests.
    #[cfg(test)]
    pub(crate) fn with(hash: &str, name: &str) -> Self {
        let cache = Self::default();
        cache
            .types
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(hash.to_owned(), name.to_owned());
        cache
    }
}
