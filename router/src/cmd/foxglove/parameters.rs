//! The protocol's `parameters` capability: the parameters of every node of the graph that
//! offers the parameter services, named `<node>.<parameter>` as foxglove_bridge names them
//! (`/sim_camera.rate`). A get asks each node (`list_parameters`, then `get_parameters`), a set
//! goes to the node's `set_parameters`, and a client subscribed to a parameter hears its changes
//! from `/parameter_events`.
//!
//! Values map both ways as the protocol allows: integers, doubles (with the protocol's float
//! hint), booleans, strings, byte arrays (base64) and the arrays. The protocol has no type of
//! its own for a set, so a value is given the type the parameter has (a whole number set on a
//! double parameter is a double), as Foxglove's panel expects.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use foxglove::websocket::{
    AnyClient, GetParametersResponder, Parameter, ParameterHandler, ParameterType as FoxType,
    ParameterValue as FoxValue, SetParametersResponder,
};
use zshm::msgs::rcl_interfaces::msg as wire;
use zshm::msgs::rcl_interfaces::srv::{
    GetParameters, GetParameters_Request, ListParameters, ListParameters_Request, SetParameters,
    SetParameters_Request,
};
use zshm::ros::Node;
use zshm::ros::parameter::ParameterValue;

/// How long one node may take to answer one parameter request; a node that does not is left
/// out of the answer (logged), so one stuck node does not hide the others.
const NODE_TIMEOUT: Duration = Duration::from_secs(2);

/// The nodes that offer parameter services, from the graph (the command loop keeps it).
pub type ParameterNodes = Arc<Mutex<BTreeSet<String>>>;

/// The node whose parameter services `service` (a service name) is one of, if it is.
pub fn parameter_node(service: &str) -> Option<&str> {
    service.strip_suffix("/get_parameters")
}

/// Answers Foxglove's parameter requests.
pub struct Parameters {
    pub node: Arc<Node>,
    pub nodes: ParameterNodes,
    pub runtime: tokio::runtime::Handle,
}

impl ParameterHandler for Parameters {
    fn get(
        &self,
        _client: AnyClient,
        names: Vec<String>,
        _request_id: Option<String>,
        responder: GetParametersResponder,
    ) {
        let (node, nodes) = (self.node.clone(), self.nodes.clone());
        self.runtime.spawn(async move {
            let wanted = if names.is_empty() {
                nodes
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .iter()
                    .map(|n| (n.clone(), None))
                    .collect()
            } else {
                by_node(&names)
                    .into_iter()
                    .map(|(n, params)| (n, Some(params)))
                    .collect::<Vec<_>>()
            };
            let mut out = Vec::new();
            for (target, params) in wanted {
                match get(&node, &target, params).await {
                    Ok(values) => out.extend(
                        values
                            .into_iter()
                            .filter_map(|(name, value)| to_fox(&format!("{target}.{name}"), &value)),
                    ),
                    Err(err) => tracing::warn!(node = %target, "parameters not shown to Foxglove: {err:#}"),
                }
            }
            responder.respond(out);
        });
    }

    fn set(
        &self,
        _client: AnyClient,
        parameters: Vec<Parameter>,
        _request_id: Option<String>,
        responder: SetParametersResponder,
    ) {
        let node = self.node.clone();
        self.runtime.spawn(async move {
            let mut out = Vec::new();
            let names: Vec<String> = parameters.iter().map(|p| p.name.clone()).collect();
            for (target, params) in by_node(&names) {
                match set(&node, &target, &params, &parameters).await {
                    Ok(values) => out.extend(
                        values
                            .into_iter()
                            .filter_map(|(name, value)| to_fox(&format!("{target}.{name}"), &value)),
                    ),
                    Err(err) => tracing::warn!(node = %target, "Foxglove's parameter set failed: {err:#}"),
                }
            }
            responder.respond(out);
        });
    }
}

/// Foxglove names grouped by node: `/ns/node.a.b` is parameter `a.b` of `/ns/node` (node names
/// have no dots, parameter names no slashes).
fn by_node(names: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut grouped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in names {
        let slash = name.rfind('/').map_or(0, |i| i + 1);
        if let Some(dot) = name[slash..].find('.') {
            let (node, param) = name.split_at(slash + dot);
            grouped
                .entry(node.to_owned())
                .or_default()
                .push(param[1..].to_owned());
        }
    }
    grouped
}

/// The values of `names` of `target` (every parameter when `None`).
async fn get(
    node: &Node,
    target: &str,
    names: Option<Vec<String>>,
) -> anyhow::Result<Vec<(String, ParameterValue)>> {
    let names = match names {
        Some(names) => names,
        None => {
            let request = ListParameters_Request {
                prefixes: Vec::new(),
                depth: 0,
            };
            call::<ListParameters>(node, target, "list_parameters", &request)
                .await?
                .result
                .names
        }
    };
    let request = GetParameters_Request { names: names.clone() };
    let values = call::<GetParameters>(node, target, "get_parameters", &request)
        .await?
        .values;
    Ok(names
        .into_iter()
        .zip(
            values
                .iter()
                .map(|v| ParameterValue::from_msg(v).unwrap_or_default()),
        )
        .collect())
}

/// Sets `names` of `target` to the values the client sent; returns their values afterwards.
async fn set(
    node: &Node,
    target: &str,
    names: &[String],
    sent: &[Parameter],
) -> anyhow::Result<Vec<(String, ParameterValue)>> {
    let current = get(node, target, Some(names.to_vec())).await?;
    let mut parameters = Vec::new();
    for (name, now) in &current {
        let full = format!("{target}.{name}");
        let Some(value) = sent.iter().find(|p| p.name == full) else {
            continue;
        };
        match from_fox(value, now) {
            Ok(value) => parameters.push(wire::Parameter {
                name: name.clone(),
                value: value.to_msg(),
            }),
            Err(why) => tracing::warn!(parameter = %full, "not set: {why}"),
        }
    }
    if !parameters.is_empty() {
        let request = SetParameters_Request {
            parameters: parameters.clone(),
        };
        let results = call::<SetParameters>(node, target, "set_parameters", &request)
            .await?
            .results;
        for (parameter, result) in parameters.iter().zip(results) {
            if !result.successful {
                tracing::warn!(node = %target, parameter = %parameter.name, "set refused: {}", result.reason);
            }
        }
    }
    get(node, target, Some(names.to_vec())).await
}

async fn call<S: zshm::msgs::ServiceType>(
    node: &Node,
    target: &str,
    service: &str,
    request: &S::Request,
) -> anyhow::Result<S::Response> {
    let client = node.create_client::<S>(&format!("{target}/{service}")).await?;
    if !client.wait_for_service_async(NODE_TIMEOUT).await {
        anyhow::bail!("no {target}/{service} within {NODE_TIMEOUT:?}");
    }
    Ok(client.call_async(request, NODE_TIMEOUT).await?)
}

/// A ROS value as Foxglove's; `None` for a parameter without a value.
pub fn to_fox(name: &str, value: &ParameterValue) -> Option<Parameter> {
    Some(match value {
        ParameterValue::Bool(b) => Parameter::bool(name, *b),
        ParameterValue::Integer(i) => Parameter::integer(name, *i),
        ParameterValue::Double(d) => Parameter::float64(name, *d),
        ParameterValue::String(s) => Parameter::string(name, s.clone()),
        ParameterValue::ByteArray(bytes) => Parameter::byte_array(name, bytes),
        ParameterValue::BoolArray(v) => Parameter {
            name: name.to_owned(),
            r#type: None,
            value: Some(FoxValue::Array(v.iter().map(|b| FoxValue::Bool(*b)).collect())),
        },
        ParameterValue::IntegerArray(v) => Parameter::integer_array(name, v.iter().copied()),
        ParameterValue::DoubleArray(v) => Parameter::float64_array(name, v.iter().copied()),
        ParameterValue::StringArray(v) => Parameter {
            name: name.to_owned(),
            r#type: None,
            value: Some(FoxValue::Array(
                v.iter().map(|s| FoxValue::String(s.clone())).collect(),
            )),
        },
        _ => return None,
    })
}

/// Foxglove's value as a ROS value of the type the parameter has now (`now`); a parameter
/// without a value takes the type the value shows. `Err` says why it cannot be.
pub fn from_fox(parameter: &Parameter, now: &ParameterValue) -> Result<ParameterValue, String> {
    let Some(value) = &parameter.value else {
        return Ok(ParameterValue::NotSet);
    };
    let number = |v: &FoxValue| match v {
        FoxValue::Integer(i) => Some(*i as f64),
        FoxValue::Float64(f) => Some(*f),
        _ => None,
    };
    let wrong = || {
        format!(
            "{value:?} is not a value of this {:?} parameter",
            now.parameter_type()
        )
    };
    let items = |v: &FoxValue| match v {
        FoxValue::Array(items) => Some(items.clone()),
        _ => None,
    };
    Ok(match now {
        ParameterValue::Bool(_) => match value {
            FoxValue::Bool(b) => ParameterValue::Bool(*b),
            _ => return Err(wrong()),
        },
        ParameterValue::Integer(_) => match value {
            FoxValue::Integer(i) => ParameterValue::Integer(*i),
            _ => return Err(wrong()),
        },
        ParameterValue::Double(_) => ParameterValue::Double(number(value).ok_or_else(wrong)?),
        ParameterValue::String(_) => match value {
            FoxValue::String(s) => ParameterValue::String(s.clone()),
            _ => return Err(wrong()),
        },
        ParameterValue::ByteArray(_) => {
            let hinted = Parameter {
                r#type: Some(FoxType::ByteArray),
                ..parameter.clone()
            };
            ParameterValue::ByteArray(
                hinted
                    .decode_byte_array()
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default(),
            )
        }
        ParameterValue::BoolArray(_) => ParameterValue::BoolArray(
            items(value)
                .ok_or_else(wrong)?
                .iter()
                .map(|v| match v {
                    FoxValue::Bool(b) => Ok(*b),
                    _ => Err(wrong()),
                })
                .collect::<Result<_, _>>()?,
        ),
        ParameterValue::IntegerArray(_) => ParameterValue::IntegerArray(
            items(value)
                .ok_or_else(wrong)?
                .iter()
                .map(|v| match v {
                    FoxValue::Integer(i) => Ok(*i),
                    _ => Err(wrong()),
                })
                .collect::<Result<_, _>>()?,
        ),
        ParameterValue::DoubleArray(_) => ParameterValue::DoubleArray(
            items(value)
                .ok_or_else(wrong)?
                .iter()
                .map(|v| number(v).ok_or_else(wrong))
                .collect::<Result<_, _>>()?,
        ),
        ParameterValue::StringArray(_) => ParameterValue::StringArray(
            items(value)
                .ok_or_else(wrong)?
                .iter()
                .map(|v| match v {
                    FoxValue::String(s) => Ok(s.clone()),
                    _ => Err(wrong()),
                })
                .collect::<Result<_, _>>()?,
        ),
        // No value yet (dynamic typing): the value's own type, with the protocol's hint.
        _ => match (value, parameter.r#type) {
            (FoxValue::Bool(b), _) => ParameterValue::Bool(*b),
            (FoxValue::Integer(i), Some(FoxType::Float64)) => ParameterValue::Double(*i as f64),
            (FoxValue::Integer(i), _) => ParameterValue::Integer(*i),
            (FoxValue::Float64(f), _) => ParameterValue::Double(*f),
            (FoxValue::String(_), Some(FoxType::ByteArray)) => ParameterValue::ByteArray(
                parameter
                    .decode_byte_array()
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default(),
            ),
            (FoxValue::String(s), _) => ParameterValue::String(s.clone()),
            _ => {
                return Err(format!(
                    "{value:?} has no ROS parameter type the parameter could take"
                ));
            }
        },
    })
}

/// The changes of one `/parameter_events` message, as Foxglove parameters named
/// `<node>.<parameter>` (a deleted parameter is sent without a value).
pub fn event_parameters(event: &wire::ParameterEvent) -> Vec<Parameter> {
    let node = &event.node;
    let mut out: Vec<Parameter> = event
        .new_parameters
        .iter()
        .chain(&event.changed_parameters)
        .filter_map(|p| {
            to_fox(
                &format!("{node}.{}", p.name),
                &ParameterValue::from_msg(&p.value).unwrap_or_default(),
            )
        })
        .collect();
    out.extend(
        event
            .deleted_parameters
            .iter()
            .map(|p| Parameter::empty(format!("{node}.{}", p.name))),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_the_first_dot_after_the_node() {
        let grouped = by_node(&[
            "/ns/cam.rate".into(),
            "/ns/cam.a.b".into(),
            "/talker.x".into(),
            "nodot".into(),
        ]);
        assert_eq!(grouped["/ns/cam"], ["rate", "a.b"]);
        assert_eq!(grouped["/talker"], ["x"]);
        assert_eq!(grouped.len(), 2);
    }

    #[test]
    fn a_whole_number_set_on_a_double_is_a_double_and_wrong_types_are_refused() {
        let sent = Parameter::integer("/n.rate", 20);
        assert_eq!(
            from_fox(&sent, &ParameterValue::Double(15.0)),
            Ok(ParameterValue::Double(20.0))
        );
        assert_eq!(
            from_fox(&sent, &ParameterValue::Integer(1)),
            Ok(ParameterValue::Integer(20))
        );
        assert!(from_fox(&sent, &ParameterValue::Bool(true)).is_err());
        assert!(from_fox(&Parameter::string("/n.s", "x"), &ParameterValue::Integer(1)).is_err());
    }

    #[test]
    fn every_ros_type_goes_to_foxglove_and_back() {
        let values = [
            ParameterValue::Bool(true),
            ParameterValue::Integer(-3),
            ParameterValue::Double(2.5),
            ParameterValue::String("ü".into()),
            ParameterValue::ByteArray(vec![0, 255, 7]),
            ParameterValue::BoolArray(vec![true, false]),
            ParameterValue::IntegerArray(vec![1, 2]),
            ParameterValue::DoubleArray(vec![1.0, 0.5]),
            ParameterValue::StringArray(vec!["a".into()]),
        ];
        for value in values {
            let fox = to_fox("/n.p", &value).unwrap();
            assert_eq!(from_fox(&fox, &value), Ok(value.clone()), "{fox:?}");
        }
        assert!(to_fox("/n.p", &ParameterValue::NotSet).is_none());
    }
}
