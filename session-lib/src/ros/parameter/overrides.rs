//! [`ParameterOverrides`]: parameter values given before a node declares its parameters, from
//! ROS arguments (`--ros-args -p name:=value --params-file FILE.yaml`) or set in code. When the
//! node declares a parameter that has an override, the override replaces the default (and must
//! pass the same checks).
//!
//! Values are YAML, typed as rcl types them: `true` is a bool, `3` an integer, `2.5` a double,
//! `'3'` or `abc` a string, `[1, 2]` an integer array (every item of one type). A parameters
//! file is ROS 2's:
//!
//! ```yaml
//! /**:                  # every node (`/*` matches one namespace level, `/**` any number)
//!   ros__parameters:
//!     use_sim_time: false
//! /robot/sim_camera:    # one node by its full name; `sim_camera:` means `/sim_camera`
//!   ros__parameters:
//!     rate: 30.0
//!     camera:           # nested keys are joined with '.': camera.frame_id
//!       frame_id: base
//! ```
//!
//! Entries apply in order, the later one winning: files and `-p` in command-line order, the
//! sections of a file in file order. This library keeps no process-global arguments: programs
//! pass theirs in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use yaml_rust2::{Yaml, YamlLoader};

use super::value::ParameterValue;

/// Why ROS arguments or a parameters file could not be read. Each names the argument, or the
/// file and the key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OverrideError {
    /// A ROS argument zshm does not support (only `-p`/`--param` and `--params-file` are).
    #[error("unsupported ROS argument `{arg}`: zshm reads only `-p name:=value` and `--params-file FILE`")]
    Unsupported {
        /// The argument.
        arg: String,
    },
    /// `-p` or `--params-file` without its value.
    #[error("`{flag}` needs a value")]
    Missing {
        /// The flag.
        flag: String,
    },
    /// A `-p` argument that is not `name:=value` (or `node:name:=value`), or whose value is not a
    /// parameter value.
    #[error("bad parameter argument `{arg}`: {why}")]
    BadParam {
        /// The argument.
        arg: String,
        /// What is wrong.
        why: String,
    },
    /// The parameters file could not be read.
    #[error("cannot read parameters file {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The parameters file is not YAML.
    #[error("parameters file {}: not valid YAML: {detail}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        detail: String,
    },
    /// The parameters file is YAML but not in ROS 2's layout, or a value is not a parameter
    /// value; `key` says where.
    #[error("parameters file {}: key `{key}`: {why}", path.display())]
    Layout {
        /// The file.
        path: PathBuf,
        /// The key (node, then parameter, joined by '.').
        key: String,
        /// What is wrong.
        why: String,
    },
}

/// One override: a node pattern (`/**`, `/ns/node`), a parameter name and its value.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    node: String,
    name: String,
    value: ParameterValue,
}

/// Parameter values that replace the defaults of the nodes they match, in order of precedence
/// (the later wins).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParameterOverrides {
    entries: Vec<Entry>,
}

impl ParameterOverrides {
    /// No overrides.
    pub fn new() -> Self {
        Self::default()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Overrides `name` for every node, above what is there already.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<ParameterValue>) -> &mut Self {
        self.set_for("/**", name, value)
    }

    /// Overrides `name` for the nodes `node` matches (a full name such as `/ns/node`, or a
    /// pattern with `*` and `**`; a missing leading `/` is added).
    pub fn set_for(
        &mut self,
        node: &str,
        name: impl Into<String>,
        value: impl Into<ParameterValue>,
    ) -> &mut Self {
        self.entries.push(Entry {
            node: absolute(node),
            name: name.into(),
            value: value.into(),
        });
        self
    }

    /// Adds `other`'s overrides above these.
    pub fn extend(&mut self, other: ParameterOverrides) {
        self.entries.extend(other.entries);
    }

    /// The overrides of the node whose fully qualified name is `node`, the later winning.
    pub fn for_node(&self, node: &str) -> BTreeMap<String, ParameterValue> {
        let mut values = BTreeMap::new();
        for entry in self.entries.iter().filter(|e| node_matches(&e.node, node)) {
            values.insert(entry.name.clone(), entry.value.clone());
        }
        values
    }

    /// Reads ROS arguments: what follows `--ros-args` on a command line (further `--ros-args`
    /// and `--` markers are skipped). `-p [node:]name:=value` and `--param` set one value,
    /// `--params-file FILE` reads a file, in the order given.
    pub fn from_ros_args<S: AsRef<str>>(args: &[S]) -> Result<Self, OverrideError> {
        let mut overrides = Self::new();
        let mut args = args.iter().map(AsRef::as_ref);
        while let Some(arg) = args.next() {
            match arg {
                "--ros-args" | "--" => {}
                "-p" | "--param" => {
                    let param = args
                        .next()
                        .ok_or_else(|| OverrideError::Missing { flag: arg.into() })?;
                    overrides.add_param_arg(param)?;
                }
                "--params-file" => {
                    let file = args
                        .next()
                        .ok_or_else(|| OverrideError::Missing { flag: arg.into() })?;
                    overrides.extend(Self::from_params_file(Path::new(file))?);
                }
                other => return Err(OverrideError::Unsupported { arg: other.into() }),
            }
        }
        Ok(overrides)
    }

    fn add_param_arg(&mut self, arg: &str) -> Result<(), OverrideError> {
        let bad = |why: &str| OverrideError::BadParam {
            arg: arg.into(),
            why: why.into(),
        };
        let (key, text) = arg.split_once(":=").ok_or_else(|| bad("expected name:=value"))?;
        let (node, name) = match key.split_once(':') {
            Some((node, name)) => (node, name),
            None => ("/**", key),
        };
        if name.is_empty() || node.is_empty() {
            return Err(bad("the name is empty"));
        }
        let value = parse_value(text).map_err(|why| bad(&why))?;
        self.set_for(node, name, value);
        Ok(())
    }

    /// Reads a parameters file in ROS 2's layout (see the module docs).
    pub fn from_params_file(path: &Path) -> Result<Self, OverrideError> {
        let text = std::fs::read_to_string(path).map_err(|source| OverrideError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::from_params_yaml(&text, path)
    }

    /// Reads parameters-file text; `path` names it in errors.
    pub fn from_params_yaml(text: &str, path: &Path) -> Result<Self, OverrideError> {
        let layout = |key: &str, why: &str| OverrideError::Layout {
            path: path.to_owned(),
            key: key.into(),
            why: why.into(),
        };
        let docs = YamlLoader::load_from_str(text).map_err(|err| OverrideError::Syntax {
            path: path.to_owned(),
            detail: err.to_string(),
        })?;
        let mut overrides = Self::new();
        let Some(doc) = docs.into_iter().next() else {
            return Ok(overrides);
        };
        let Yaml::Hash(nodes) = doc else {
            return Err(layout("", "expected a map of node names"));
        };
        for (node, section) in nodes {
            let node = scalar_key(&node).ok_or_else(|| layout("", "a node name must be a string"))?;
            let Yaml::Hash(section) = section else {
                return Err(layout(&node, "expected `ros__parameters:` under the node name"));
            };
            for (key, params) in section {
                if scalar_key(&key).as_deref() != Some("ros__parameters") {
                    return Err(layout(&node, "only `ros__parameters:` may be under a node name"));
                }
                let mut flat = Vec::new();
                flatten("", params, &mut flat)
                    .map_err(|(key, why)| layout(&format!("{node}.{key}"), &why))?;
                for (name, value) in flat {
                    overrides.set_for(&node, name, value);
                }
            }
        }
        Ok(overrides)
    }
}

/// A map key as text (YAML allows numbers and bools as keys).
fn scalar_key(key: &Yaml) -> Option<String> {
    match key {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Collects the parameters under `yaml`, nested maps joined with '.'; `Err` holds the key.
fn flatten(
    prefix: &str,
    yaml: Yaml,
    out: &mut Vec<(String, ParameterValue)>,
) -> Result<(), (String, String)> {
    let Yaml::Hash(map) = yaml else {
        return Err((prefix.into(), "expected a map of parameters".into()));
    };
    for (key, value) in map {
        let key = scalar_key(&key)
            .ok_or_else(|| (prefix.to_owned(), "a parameter name must be a string".to_owned()))?;
        let name = if prefix.is_empty() {
            key
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Yaml::Hash(_) => flatten(&name, value, out)?,
            value => {
                let parsed = from_yaml(&value).map_err(|why| (name.clone(), why))?;
                out.push((name, parsed));
            }
        }
    }
    Ok(())
}

/// Parses one value as YAML, typed as rcl types it (see the module docs).
pub fn parse_value(text: &str) -> Result<ParameterValue, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|err| format!("not valid YAML: {err}"))?;
    match docs.into_iter().next() {
        Some(doc) => from_yaml(&doc),
        None => Err("the value is empty".into()),
    }
}

fn from_yaml(yaml: &Yaml) -> Result<ParameterValue, String> {
    Ok(match yaml {
        Yaml::Boolean(b) => ParameterValue::Bool(*b),
        Yaml::Integer(i) => ParameterValue::Integer(*i),
        Yaml::Real(_) => ParameterValue::Double(yaml.as_f64().ok_or("not a number")?),
        Yaml::String(s) => ParameterValue::String(s.clone()),
        Yaml::Array(items) => array(items)?,
        Yaml::Hash(_) => return Err("a map is not a parameter value".into()),
        Yaml::Null => return Err("a null is not a parameter value".into()),
        _ => return Err("not a parameter value".into()),
    })
}

/// An array of one item type; an empty one is a bool array (as `ros2 param set` makes it).
fn array(items: &[Yaml]) -> Result<ParameterValue, String> {
    let values: Vec<ParameterValue> = items.iter().map(from_yaml).collect::<Result<_, _>>()?;
    let Some(first) = values.first() else {
        return Ok(ParameterValue::BoolArray(Vec::new()));
    };
    let kind = first.parameter_type();
    if values.iter().any(|v| v.parameter_type() != kind) {
        return Err("the items of an array must all be of one type".into());
    }
    let mut out = match kind {
        super::ParameterType::Bool => ParameterValue::BoolArray(Vec::new()),
        super::ParameterType::Integer => ParameterValue::IntegerArray(Vec::new()),
        super::ParameterType::Double => ParameterValue::DoubleArray(Vec::new()),
        super::ParameterType::String => ParameterValue::StringArray(Vec::new()),
        _ => return Err("arrays may hold bools, integers, doubles or strings only".into()),
    };
    for value in values {
        match (&mut out, value) {
            (ParameterValue::BoolArray(v), ParameterValue::Bool(b)) => v.push(b),
            (ParameterValue::IntegerArray(v), ParameterValue::Integer(i)) => v.push(i),
            (ParameterValue::DoubleArray(v), ParameterValue::Double(d)) => v.push(d),
            (ParameterValue::StringArray(v), ParameterValue::String(s)) => v.push(s),
            _ => unreachable!("every item has the first item's type"),
        }
    }
    Ok(out)
}

fn absolute(node: &str) -> String {
    if node.starts_with('/') {
        node.to_owned()
    } else {
        format!("/{node}")
    }
}

/// Whether node pattern `pattern` (`/**`, `/*/camera`, `/ns/node`) matches the fully qualified
/// name `node`: `*` is one name level, `**` any number of levels (none included).
fn node_matches(pattern: &str, node: &str) -> bool {
    fn levels(s: &str) -> Vec<&str> {
        s.split('/').filter(|l| !l.is_empty()).collect()
    }
    fn matches(pattern: &[&str], node: &[&str]) -> bool {
        match pattern.split_first() {
            None => node.is_empty(),
            Some((&"**", rest)) => (0..=node.len()).any(|skip| matches(rest, &node[skip..])),
            Some((level, rest)) => node
                .split_first()
                .is_some_and(|(first, tail)| (*level == "*" || level == first) && matches(rest, tail)),
        }
    }
    matches(&levels(pattern), &levels(node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_as_rcl_types_them() {
        assert_eq!(parse_value("true"), Ok(true.into()));
        assert_eq!(parse_value("3"), Ok(3i64.into()));
        assert_eq!(parse_value("2.5"), Ok(2.5.into()));
        assert_eq!(parse_value("'3'"), Ok("3".into()));
        assert_eq!(parse_value("abc"), Ok("abc".into()));
        assert_eq!(parse_value("[1, 2]"), Ok(vec![1i64, 2].into()));
        assert_eq!(parse_value("[a, 'b']"), Ok(vec!["a", "b"].into()));
        assert_eq!(parse_value("[0.5, 1.5]"), Ok(vec![0.5, 1.5].into()));
        assert_eq!(parse_value("[true]"), Ok(vec![true].into()));
        assert!(parse_value("[1, a]").unwrap_err().contains("one type"));
        assert!(parse_value("{a: 1}").is_err());
        assert!(parse_value("[").is_err());
    }

    #[test]
    fn ros_args_set_values_in_order_for_all_or_one_node() {
        let o = ParameterOverrides::from_ros_args(&[
            "--ros-args",
            "-p",
            "rate:=5.0",
            "-p",
            "cam:width:=8",
            "--param",
            "rate:=7.5",
        ])
        .unwrap();
        assert_eq!(o.for_node("/cam")["rate"], 7.5.into());
        assert_eq!(o.for_node("/cam")["width"], 8i64.into());
        assert!(!o.for_node("/ns/cam").contains_key("width"));
        for bad in [&["-p"][..], &["-p", "rate"], &["-r", "a:=b"], &["-p", ":=1"]] {
            assert!(ParameterOverrides::from_ros_args(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn node_patterns_match_levels() {
        assert!(node_matches("/**", "/a/b/c"));
        assert!(node_matches("/**", "/c"));
        assert!(node_matches("/*/c", "/a/c"));
        assert!(!node_matches("/*/c", "/c"));
        assert!(node_matches("/**/c", "/c"));
        assert!(node_matches("/a/c", "/a/c"));
        assert!(!node_matches("/c", "/a/c"));
    }

    #[test]
    fn params_files_flatten_and_the_later_section_wins() {
        let text = "/**:\n  ros__parameters:\n    rate: 1.0\n    cam:\n      id: x\nsim:\n  ros__parameters:\n    rate: 2.0\n";
        let o = ParameterOverrides::from_params_yaml(text, Path::new("p.yaml")).unwrap();
        let sim = o.for_node("/sim");
        assert_eq!(sim["rate"], 2.0.into());
        assert_eq!(sim["cam.id"], "x".into());
        assert_eq!(o.for_node("/other")["rate"], 1.0.into());
    }

    #[test]
    fn bad_params_files_name_the_file_and_the_key() {
        let cases = [
            ("a: [", "p.yaml: not valid YAML"),
            ("- 1", "p.yaml: key ``"),
            ("sim:\n  rate: 1", "p.yaml: key `sim`"),
            (
                "sim:\n  ros__parameters:\n    rate: ~",
                "p.yaml: key `sim.rate`: a null",
            ),
            ("sim:\n  ros__parameters:\n    l: [1, a]", "p.yaml: key `sim.l`"),
        ];
        for (text, expected) in cases {
            let err = ParameterOverrides::from_params_yaml(text, Path::new("p.yaml")).unwrap_err();
            assert!(err.to_string().contains(expected), "{text:?}: {err}");
        }
        let missing = ParameterOverrides::from_params_file(Path::new("/nonexistent/p.yaml")).unwrap_err();
        assert!(missing.to_string().contains("/nonexistent/p.yaml"), "{missing}");
    }
}
