pub(crate) mod datareader;
pub(crate) mod datasample;
pub(crate) mod datawriter;
pub(crate) mod simpledatareader;
pub(crate) mod wrappers;

pub use simpledatareader::*;
pub use datareader::*;
pub use datasample::*;
pub use datawriter::*;
