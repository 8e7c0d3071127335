#[cfg(feature = "test")]
pub(crate) mod regions;
pub(crate) mod runtime;
pub(crate) mod tables;
