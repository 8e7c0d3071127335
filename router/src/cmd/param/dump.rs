//! `zshm param dump NODE`: every parameter of the node as a ROS 2 parameters file on stdout
//! (`/<node>:` → `ros__parameters:` → names split on `.`, keys sorted), which `--params-file`
//! and `zshm param load` read back with the same types (`--json`: `{"node", "parameters"}`).

use std::collections::BTreeMap;
use std::process::ExitCode;

use zshm::ros::parameter::ParameterValue;

use super::remote::{Remote, TargetArgs};
use crate::support::out::outln;

/// `zshm param dump`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node and how to reach it.
    #[command(flatten)]
    pub target: TargetArgs,
}

/// A tree of names split on `.`: a leaf holds a value.
#[derive(Default)]
struct Tree {
    value: Option<ParameterValue>,
    children: BTreeMap<String, Tree>,
}

impl Tree {
    fn insert(&mut self, name: &str, value: ParameterValue) {
        let mut at = self;
        for part in name.split('.') {
            at = at.children.entry(part.to_owned()).or_default();
        }
        at.value = Some(value);
    }

    fn write(&self, indent: usize, out: &mut String) {
        for (key, child) in &self.children {
            let pad = " ".repeat(indent);
            // A name that is both a value and a prefix (`a` and `a.b`) cannot nest in YAML: such
            // children are written with their full dotted key instead.
            match (&child.value, child.children.is_empty()) {
                (Some(value), true) => out.push_str(&format!("{pad}{key}: {value}\n")),
                (None, _) => {
                    out.push_str(&format!("{pad}{key}:\n"));
                    child.write(indent + 2, out);
                }
                (Some(value), false) => {
                    out.push_str(&format!("{pad}{key}: {value}\n"));
                    child.write_flat(key, indent, out);
                }
            }
        }
    }

    fn write_flat(&self, prefix: &str, indent: usize, out: &mut String) {
        for (key, child) in &self.children {
            let full = format!("{prefix}.{key}");
            if let Some(value) = &child.value {
                out.push_str(&format!("{}{full}: {value}\n", " ".repeat(indent)));
            }
            child.write_flat(&full, indent, out);
        }
    }
}

/// The parameters file of `node` with `values`.
pub fn to_yaml(node: &str, values: &[(String, ParameterValue)]) -> String {
    let mut tree = Tree::default();
    for (name, value) in values {
        tree.insert(name, value.clone());
    }
    let mut out = format!("{node}:\n  ros__parameters:\n");
    tree.write(4, &mut out);
    out
}

/// Prints the node's parameters.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let remote = Remote::open(&args.target).await?;
    let names = super::list::names(&remote).await;
    let values = match &names {
        Ok(names) => super::get::values(&remote, names).await,
        Err(_) => Ok(None),
    };
    let target = remote.target().to_owned();
    remote.close().await?;
    let names = names?;
    let Some(values) = values? else {
        anyhow::bail!("node {target} undeclared a parameter while it was being dumped: dump again");
    };
    let pairs: Vec<(String, ParameterValue)> = names.into_iter().zip(values).collect();
    if args.target.json {
        let parameters: serde_json::Map<String, serde_json::Value> =
            pairs.iter().map(|(n, v)| (n.clone(), v.to_json())).collect();
        outln!(
            "{}",
            serde_json::json!({ "node": target, "parameters": parameters })
        );
    } else {
        outln!("{}", to_yaml(&target, &pairs).trim_end());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use zshm::ros::parameter::ParameterOverrides;

    use super::*;

    #[test]
    fn a_dump_reads_back_as_the_same_values() {
        let values: Vec<(String, ParameterValue)> = vec![
            ("a".into(), 1i64.into()),
            ("a.b".into(), "x y".into()),
            ("cam.frame_id".into(), "base".into()),
            ("cam.rate".into(), 15.0.into()),
            ("flags".into(), vec![true, false].into()),
            ("names".into(), vec!["1", "b"].into()),
            ("on".into(), true.into()),
            ("text".into(), "true".into()),
        ];
        let yaml = to_yaml("/sim", &values);
        assert!(
            yaml.starts_with(
                "/sim:\n  ros__parameters:\n    a: 1\n    a.b: 'x y'\n    cam:\n      frame_id: base\n"
            ),
            "{yaml}"
        );
        let back = ParameterOverrides::from_params_yaml(&yaml, Path::new("dump.yaml")).unwrap();
        let back: Vec<(String, ParameterValue)> = back.for_node("/sim").into_iter().collect();
        assert_eq!(back, values, "{yaml}");
    }
}
