//! Generates the bench's own interface package, `zshm_bench` (`interfaces/zshm_bench/srv`):
//! the service sweep's `Blob`, whose response a server can loan.
//!
//! Also names the build: `ZSHM_BUILD`, a digest of every source the two programs are built from.
//! `zshm bench` runs its nodes in `zshm-bench-node` only when that program carries the same name
//! (`cmd/bench/mod.rs`): file times cannot tell, since an optimised build may link the two
//! minutes apart while `cargo run --bin zshm` leaves an older one beside a newer `zshm`.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

/// What the programs are built from, relative to the workspace: the crates' sources, manifests
/// and interfaces, the carried patches of upstream crates and the lock file (the versions of
/// everything else). Tests and docs are left out: editing them changes no program.
const SOURCES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "router/Cargo.toml",
    "router/build.rs",
    "router/src",
    "router/interfaces",
    "session-lib",
    "ops",
    "protocol",
    "rosidl",
    "bridge",
    "third_party",
];

/// Folders inside [`SOURCES`] that no program is built from.
const SKIPPED: &[&str] = &["tests", "benches", "examples", "target"];

fn main() {
    if let Err(error) = zshm_rosidl::Builder::new()
        .package("zshm_bench", "interfaces/zshm_bench")
        .generate()
    {
        eprintln!("{error}");
        std::process::exit(1);
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lies inside its workspace")
        .to_owned();
    // A 64-bit FNV-1a digest: the name only has to differ between builds of different sources,
    // and std's hashers do not promise the same digest across Rust releases.
    let mut digest = Fnv1a::default();
    for source in SOURCES {
        let path = workspace.join(source);
        println!("cargo:rerun-if-changed={}", path.display());
        for file in files(&path) {
            let Ok(bytes) = std::fs::read(&file) else { continue };
            digest.write(
                file.strip_prefix(&workspace)
                    .unwrap_or(&file)
                    .to_string_lossy()
                    .as_bytes(),
            );
            digest.write(&[0]);
            digest.write(&bytes);
        }
    }
    println!("cargo:rustc-env=ZSHM_BUILD={:016x}", digest.finish());
}

/// The files under `path` (or `path` itself), in a stable order.
fn files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_owned()];
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return Vec::new();
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    entries
        .into_iter()
        .filter(|entry| {
            let name = entry.file_name().unwrap_or_default().to_string_lossy();
            !name.starts_with('.') && !SKIPPED.contains(&name.as_ref())
        })
        .flat_map(|entry| files(&entry))
        .collect()
}

/// FNV-1a, 64 bits.
struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
