//! The build-script entry point: definitions in, one Rust file in `OUT_DIR` out.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::rust::{self, RustOptions};
use crate::set::{InterfaceError, InterfaceSet};

/// The file [`Builder::generate`] writes into `OUT_DIR`; `zshm::include_interfaces!()` includes it.
pub const OUTPUT_FILE: &str = "zshm_interfaces.rs";

/// Why generation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// The definitions are wrong (the message names the file, line and fix).
    Interface(InterfaceError),
    /// Not run from a build script: `OUT_DIR` is not set and no output file was given.
    NoOutDir,
    /// The output could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Interface(error) => write!(f, "zshm-rosidl: {error}"),
            BuildError::NoOutDir => f.write_str(
                "zshm-rosidl: OUT_DIR is not set; call Builder::generate from build.rs, or give Builder::output_file",
            ),
            BuildError::Write { path, error } => write!(f, "zshm-rosidl: cannot write {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<InterfaceError> for BuildError {
    fn from(error: InterfaceError) -> Self {
        BuildError::Interface(error)
    }
}

/// Generates Rust types for interface packages, from a build script.
///
/// Each package is a folder with `msg/`, `srv/` and `action/` subfolders, as in a ROS package.
/// Its types may use zshm's shipped packages (`std_msgs/Header`, `geometry_msgs/Pose`, ...) and
/// each other's. Cargo reruns the build script when a definition changes.
#[derive(Debug, Clone)]
pub struct Builder {
    packages: Vec<(String, PathBuf)>,
    output: Option<PathBuf>,
    options: RustOptions,
    shipped_too: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A builder for a crate that depends on `zshm`.
    pub fn new() -> Self {
        Self {
            packages: Vec::new(),
            output: None,
            options: RustOptions::default(),
            shipped_too: false,
        }
    }

    /// The builder zshm itself uses: every shipped package, generated against `crate`.
    #[doc(hidden)]
    pub fn for_zshm_itself() -> Self {
        Self {
            packages: Vec::new(),
            output: None,
            options: RustOptions {
                runtime: "crate".to_owned(),
                external: "crate::msgs".to_owned(),
            },
            shipped_too: true,
        }
    }

    /// Adds the package `name` whose definitions are in `dir` (relative paths are relative to
    /// the crate's folder, where cargo runs build scripts).
    pub fn package(mut self, name: &str, dir: impl AsRef<Path>) -> Self {
        self.packages.push((name.to_owned(), dir.as_ref().to_path_buf()));
        self
    }

    /// Writes to `path` instead of `$OUT_DIR/zshm_interfaces.rs`.
    pub fn output_file(mut self, path: impl AsRef<Path>) -> Self {
        self.output = Some(path.as_ref().to_path_buf());
        self
    }

    /// Where the generated code finds zshm (default `::zshm`, for a crate that depends on
    /// `zshm` under its own name).
    pub fn runtime_path(mut self, path: &str) -> Self {
        self.options.external = format!("{path}::msgs");
        self.options.runtime = path.to_owned();
        self
    }

    /// Parses, checks and generates; returns the file written. Prints `cargo:rerun-if-changed`
    /// for every folder and file read.
    pub fn generate(self) -> Result<PathBuf, BuildError> {
        let output = match self.output.clone() {
            Some(path) => path,
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or(BuildError::NoOutDir)?).join(OUTPUT_FILE),
        };
        let source = self.source()?;
        std::fs::write(&output, source).map_err(|error| BuildError::Write {
            path: output.clone(),
            error,
        })?;
        Ok(output)
    }

    /// The generated Rust source, without writing it.
    pub fn source(&self) -> Result<String, BuildError> {
        let mut set = InterfaceSet::shipped().clone();
        let mut generated: BTreeSet<String> = BTreeSet::new();
        if self.shipped_too {
            generated.extend(InterfaceSet::shipped_packages().into_iter().map(str::to_owned));
        }
        for (package, dir) in &self.packages {
            println!("cargo:rerun-if-changed={}", dir.display());
            for file in set.add_package_dir(package, dir)? {
                println!("cargo:rerun-if-changed={}", file.display());
            }
            generated.insert(package.clone());
        }
        set.check()?;
        Ok(rust::generate(&set, &generated, &self.options)?)
    }
}
