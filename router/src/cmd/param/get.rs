//! `zshm param get NODE NAME`: one parameter's value, printed as `ros2 param get` prints it
//! (`Integer value is: 5`; `--hide-type`: the value alone; `--json`: `{"name", "type", "value"}`).
//! A parameter the node has not declared: `Parameter not set` on stderr, exit 1.

use std::process::ExitCode;

use zshm::msgs::rcl_interfaces::srv::{GetParameters, GetParameters_Request};
use zshm::ros::parameter::ParameterValue;

use super::remote::{self, Remote, TargetArgs};
use crate::support::out::outln;

/// `zshm param get`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node and how to reach it.
    #[command(flatten)]
    pub target: TargetArgs,
    /// The parameter.
    pub name: String,
    /// Print the value alone, without its type.
    #[arg(long)]
    pub hide_type: bool,
}

/// The values of `names`, or `None` when one of them is not declared (the node then answers
/// none, as rclcpp does).
pub async fn values(remote: &Remote, names: &[String]) -> anyhow::Result<Option<Vec<ParameterValue>>> {
    let request = GetParameters_Request {
        names: names.to_vec(),
    };
    let values = remote
        .call::<GetParameters>("get_parameters", &request)
        .await?
        .values;
    Ok((values.len() == names.len()).then(|| values.iter().map(remote::value).collect()))
}

/// Python's `str` of a value, as ros2 prints it.
fn python(value: &ParameterValue) -> String {
    let double = |d: f64| {
        let text = zshm::ros::parameter::ParameterValue::Double(d).to_string();
        match text.as_str() {
            ".nan" => "nan".into(),
            ".inf" => "inf".into(),
            "-.inf" => "-inf".into(),
            _ => text,
        }
    };
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    let boolean = |b: bool| if b { "True" } else { "False" }.to_owned();
    let quoted = |s: &str| format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"));
    match value {
        ParameterValue::Bool(b) => boolean(*b),
        ParameterValue::Integer(i) => i.to_string(),
        ParameterValue::Double(d) => double(*d),
        ParameterValue::String(s) => s.clone(),
        ParameterValue::ByteArray(v) => list(v.iter().map(|b| format!("b'\\x{b:02x}'")).collect()),
        ParameterValue::BoolArray(v) => list(v.iter().map(|b| boolean(*b)).collect()),
        ParameterValue::IntegerArray(v) => list(v.iter().map(i64::to_string).collect()),
        ParameterValue::DoubleArray(v) => list(v.iter().map(|d| double(*d)).collect()),
        ParameterValue::StringArray(v) => list(v.iter().map(|s| quoted(s)).collect()),
        _ => String::new(),
    }
}

/// `ros2 param get`'s label for a value's type.
fn label(value: &ParameterValue) -> &'static str {
    match value {
        ParameterValue::Bool(_) => "Boolean value is:",
        ParameterValue::Integer(_) => "Integer value is:",
        ParameterValue::Double(_) => "Double value is:",
        ParameterValue::String(_) => "String value is:",
        ParameterValue::ByteArray(_) => "Byte values are:",
        ParameterValue::BoolArray(_) => "Boolean values are:",
        ParameterValue::IntegerArray(_) => "Integer values are:",
        ParameterValue::DoubleArray(_) => "Double values are:",
        ParameterValue::StringArray(_) => "String values are:",
        _ => "",
    }
}

/// Prints the value.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let remote = Remote::open(&args.target).await?;
    let got = values(&remote, std::slice::from_ref(&args.name)).await;
    remote.close().await?;
    let Some(value) = got?.and_then(|mut v| v.pop()) else {
        eprintln!("Parameter not set");
        return Ok(ExitCode::FAILURE);
    };
    if args.target.json {
        outln!(
            "{}",
            serde_json::json!({
                "name": args.name,
                "type": value.parameter_type().name(),
                "value": value.to_json(),
            })
        );
    } else if value == ParameterValue::NotSet {
        outln!("Parameter not set.");
    } else if args.hide_type {
        outln!("{}", python(&value));
    } else {
        outln!("{} {}", label(&value), python(&value));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_ros2_prints_them() {
        let cases = [
            (ParameterValue::Integer(5), "Integer value is: 5"),
            (ParameterValue::Bool(false), "Boolean value is: False"),
            (ParameterValue::Double(15.0), "Double value is: 15.0"),
            (ParameterValue::String("a b".into()), "String value is: a b"),
            (vec!["a", "b"].into(), "String values are: ['a', 'b']"),
            (vec![1i64, 2].into(), "Integer values are: [1, 2]"),
        ];
        for (value, line) in cases {
            assert_eq!(format!("{} {}", label(&value), python(&value)), line);
        }
    }
}
