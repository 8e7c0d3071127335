//! The architecture holds: each module of the library imports only from the layers below it, as the
//! "Layers" table of docs/architecture.md lists them, and the `zshm` program's parts import only
//! downward (`main` → `cmd` → `support` → `cli`, and no command from another command's file except
//! the shared ones). Reads the sources; a new import against the table fails here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The library's layers from docs/architecture.md, lowest first: `| 1 | `text` | purpose |`.
fn readme_layers() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let section = readme
        .split("\n### Layers of the library")
        .nth(1)
        .expect("docs/architecture.md has a '### Layers of the library' section");
    let mut layers = Vec::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(number), Some(module)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        if let Ok(number) = number.parse::<usize>() {
            assert_eq!(number, layers.len() + 1, "layers are numbered in order: {line}");
            layers.push(module.trim_matches('`').to_owned());
        }
    }
    assert!(layers.len() > 5, "the layer table was not found: {layers:?}");
    layers
}

/// The modules `lib.rs` re-exports from the protocol crate (`pub use zshm_protocol::cdr;`).
fn protocol_reexports() -> Vec<String> {
    let lib = std::fs::read_to_string(repo().join("session-lib/src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub use zshm_protocol::"))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The code of a file without its comments (doc links may point anywhere).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segments named after `crate::`, including each item of `crate::{a, b::c}`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        } else {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.push(name);
        }
        rest = after;
    }
    found
}

/// `src/<module>/...` or `src/<module>.rs` → `<module>`.
fn top_module(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap();
    let first = relative
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_owned()
}

#[test]
fn library_modules_import_only_from_lower_layers() {
    let layers = readme_layers();
    let rank: BTreeMap<&str, usize> = layers.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
    let src = repo().join("session-lib/src");
    let protocol = protocol_reexports();
    let mut violations = Vec::new();
    for file in sources(&src) {
        let module = top_module(&src, &file);
        if module == "lib" {
            continue; // the facade re-exports from every layer
        }
        let Some(&own) = rank.get(module.as_str()) else {
            violations.push(format!(
                "{}: module `{module}` is not in the layer table of docs/architecture.md",
                file.display()
            ));
            continue;
        };
        for target in crate_paths(&code(&file)) {
            if protocol.contains(&target) {
                continue; // the protocol crate lies below every layer
            }
            match rank.get(target.as_str()) {
                Some(&theirs) if theirs <= own => {}
                Some(_) => violations.push(format!(
                    "{}: `{module}` imports `{target}`, a higher layer",
                    file.display()
                )),
                None => violations.push(format!(
                    "{}: `crate::{target}` is not a layer; import from the module that owns it",
                    file.display()
                )),
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layer violations:\n{}",
        violations.join("\n")
    );
}

#[test]
fn every_library_module_is_in_the_layer_table() {
    let layers = readme_layers();
    let lib = std::fs::read_to_string(repo().join("session-lib/src/lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod ")))
        .filter_map(|l| l.strip_suffix(';'))
        .collect();
    assert_eq!(
        declared, layers,
        "lib.rs declares its modules in the layer order of docs/architecture.md"
    );
}

#[test]
fn the_program_imports_downward_and_commands_stand_alone() {
    let src = repo().join("router/src");
    // Who may import whom, by top-level part of the program.
    let allowed: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("main", &["cli", "cmd", "support"][..]),
        ("cmd", &["cli", "cmd", "support"][..]),
        ("support", &["cli", "support"][..]),
        ("cli", &["cli"][..]),
    ]);
    let mut violations = Vec::new();
    for file in sources(&src) {
        let part = top_module(&src, &file);
        let code = code(&file);
        for target in crate_paths(&code) {
            if !allowed[part.as_str()].contains(&target.as_str()) {
                violations.push(format!("{}: `{part}` imports `crate::{target}`", file.display()));
            }
        }
        // A command reads alone: it may use the shared flags and helpers, not another command.
        // `cmd/tests.rs` is not a command:
        // it drives the whole command line (`Cli`) in-process.
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let in_cmd_root = file.parent() == Some(src.join("cmd").as_path());
        if in_cmd_root && name != "mod" && name != "tests" {
            for line in code.lines().filter(|l| l.contains("super::")) {
                violations.push(format!(
                    "{}: a command imports another: {}",
                    file.display(),
                    line.trim()
                ));
            }
        }
    }
    // The benchmark's roles share one module instead of importing each other.
    let iox = code(&src.join("cmd/bench/iox.rs"));
    if iox.contains("role::") {
        violations.push("cmd/bench/iox.rs imports from role.rs (use bench/shared.rs)".into());
    }
    assert!(
        violations.is_empty(),
        "import violations:\n{}",
        violations.join("\n")
    );
}

/// The sibling modules a file of `folder` names, through `super::x` or `crate::<folder>::x`
/// (each item of a `{a, b}` group too). `folder_path` is the folder as a crate path, e.g.
/// `ros::lane` (empty for the crate root).
fn sibling_imports(code: &str, folder_path: &str, siblings: &[String]) -> Vec<String> {
    let prefixes = ["super::".to_owned(), in_folder(folder_path)];
    let mut found = Vec::new();
    for prefix in &prefixes {
        let mut rest = code;
        while let Some(at) = rest.find(prefix.as_str()) {
            let after = &rest[at + prefix.len()..];
            let names: Vec<String> = match after.strip_prefix('{') {
                Some(group) => {
                    let end = group.find('}').unwrap_or(group.len());
                    group[..end]
                        .split(',')
                        .map(|item| first_segment(item.trim()))
                        .collect()
                }
                None => vec![first_segment(after)],
            };
            for name in names {
                if siblings.contains(&name) && !found.contains(&name) {
                    found.push(name);
                }
            }
            rest = after;
        }
    }
    found
}

/// How the crate names a child of the folder `folder_path`: `crate::ros::lane::` (`crate::` for
/// the crate root).
fn in_folder(folder_path: &str) -> String {
    if folder_path.is_empty() {
        "crate::".to_owned()
    } else {
        format!("crate::{folder_path}::")
    }
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Import circles among the modules of each folder under `src`: its files, and its sub-folders
/// with every file inside them (a sub-folder imports what any of its files imports through the
/// crate path; a folder's own `mod.rs` declares its children and is left out: a child using its
/// parent's items is no circle). Each circle as `a → b → a`.
fn circles_in_folders(src: &Path, crate_prefix: &str) -> Vec<String> {
    let mut folders = vec![src.to_path_buf()];
    let mut circles = Vec::new();
    while let Some(folder) = folders.pop() {
        let mut modules: BTreeMap<String, PathBuf> = BTreeMap::new();
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path.clone());
                if path.join("mod.rs").exists() {
                    modules.insert(
                        entry.file_name().to_string_lossy().into_owned(),
                        path.join("mod.rs"),
                    );
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                if !["mod", "lib", "main"].contains(&stem.as_str()) {
                    modules.insert(stem, path);
                }
            }
        }
        let relative = folder.strip_prefix(src).unwrap();
        let folder_path = std::iter::once(crate_prefix.to_owned())
            .chain(
                relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned()),
            )
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("::");
        let names: Vec<String> = modules.keys().cloned().collect();
        // For a module that is a folder (`x/mod.rs`), `super::` in it means this folder's
        // parent, so only its `crate::` paths name siblings here.
        let edges: BTreeMap<String, Vec<String>> = modules
            .iter()
            .map(|(name, file)| {
                let code = if file.ends_with("mod.rs") {
                    // Every file of the sub-folder counts. From a file `depth` modules below
                    // this folder, `super::` that many times names this folder's children;
                    // fewer name modules inside the sub-folder, which are no siblings here.
                    let sub = file.parent().unwrap();
                    sources(sub)
                        .iter()
                        .map(|f| {
                            let below = f.strip_prefix(sub).unwrap();
                            let depth = below.components().count() - usize::from(f.ends_with("mod.rs")) + 1;
                            code(f)
                                .replace(&"super::".repeat(depth), &in_folder(&folder_path))
                                .replace("super::", "parent::")
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                } else {
                    code(file)
                };
                let mut targets = sibling_imports(&code, &folder_path, &names);
                targets.retain(|t| t != name);
                (name.clone(), targets)
            })
            .collect();
        for start in &names {
            // Depth-first from each module; a path back to it is a circle, reported once from
            // its smallest member.
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            while let Some((at, path)) = stack.pop() {
                for next in &edges[&at] {
                    if next == start {
                        if path.iter().all(|m| m >= start) {
                            let mut shown = path.clone();
                            shown.push(start.clone());
                            circles.push(format!("{}: {}", folder.display(), shown.join(" → ")));
                        }
                    } else if !path.contains(next) {
                        let mut longer = path.clone();
                        longer.push(next.clone());
                        stack.push((next.clone(), longer));
                    }
                }
            }
        }
    }
    circles.sort();
    circles
}

#[test]
fn no_file_imports_a_sibling_that_imports_it_back() {
    let mut circles = Vec::new();
    for src in [
        "session-lib/src",
        "ops/src",
        "protocol/src",
        "router/src",
        "rosidl/src",
        "bridge/src",
    ] {
        let root = repo().join(src);
        for circle in circles_in_folders(&root, "") {
            // `<repo>/<src>/<folder>: a → b → a` as `<src>/<folder>: a → b → a`.
            let (folder, path) = circle.split_once(": ").unwrap();
            let inner = Path::new(folder)
                .strip_prefix(&root)
                .unwrap()
                .display()
                .to_string();
            let folder = [src, &inner]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("/");
            circles.push(format!("{folder}: {path}"));
        }
    }
    assert!(
        circles.is_empty(),
        "import circles between the files of one folder (give the shared part a home of its own):\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_circle_check_sees_a_circle_between_two_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bench")).unwrap();
    std::fs::write(dir.path().join("bench/mod.rs"), "mod report;\nmod targets;\n").unwrap();
    std::fs::write(dir.path().join("bench/report.rs"), "use super::targets::table;\n").unwrap();
    std::fs::write(
        dir.path().join("bench/targets.rs"),
        "use crate::bench::{plan, report::CaseResult};\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("bench/plan.rs"), "pub struct Case;\n").unwrap();
    let circles = circles_in_folders(dir.path(), "");
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(circles[0].ends_with("report → targets → report"), "{circles:?}");
}

/// The circle the check once missed: a file and a sub-folder whose inner files import it back.
#[test]
fn the_circle_check_sees_into_sub_folders() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ros/parameter")).unwrap();
    std::fs::write(
        dir.path().join("ros/mod.rs"),
        "mod node;
mod parameter;
",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ros/node.rs"),
        "use super::parameter::Store;
",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ros/parameter/mod.rs"),
        "mod store;
",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ros/parameter/store.rs"),
        "use super::super::x;
use crate::ros::node::Node;
",
    )
    .unwrap();
    let circles = circles_in_folders(dir.path(), "");
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(circles[0].ends_with("node → parameter → node"), "{circles:?}");
}

#[test]
fn the_checker_sees_grouped_and_nested_paths() {
    let found = crate_paths("use crate::{config::Role, shm};\nlet x = crate::ros::Node::new();");
    assert_eq!(found, ["config", "shm", "ros"]);
    assert!(
        crate_paths("// crate::ros in a comment").len() == 1,
        "code() strips comments, not crate_paths"
    );
}
