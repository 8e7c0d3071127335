//! Embeds the shipped interface packages (`interfaces/<package>/{msg,srv,action}/*`) into the
//! crate, so a build script or a program can read them without knowing where the crate lives.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // Read when the script runs, not when it was compiled: a build directory reused from another
    // checkout must not embed that checkout's (maybe deleted) folder.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("interfaces");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    // An empty set would build a zshm without its message types, failing far from the cause.
    assert!(
        !files.is_empty(),
        "no interface definitions under {}: the shipped packages are missing",
        root.display()
    );
    let mut out = String::from("/// Every shipped definition: (package, path inside the package, text).\n");
    out.push_str("pub(crate) const SHIPPED: &[(&str, &str, &str)] = &[\n");
    for file in files {
        let relative = file.strip_prefix(&root).expect("collected under root");
        let mut parts = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        let package = parts.next().expect("a package folder");
        let inner: Vec<String> = parts.collect();
        writeln!(
            out,
            "    ({package:?}, {:?}, include_str!({:?})),",
            inner.join("/"),
            file.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("shipped.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("msg" | "srv" | "action")
        ) {
            files.push(path);
        }
    }
}
