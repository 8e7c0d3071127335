//! The six parameter services every node offers, as rclcpp's `ParameterService` answers them:
//! `~/describe_parameters`, `~/get_parameter_types`, `~/get_parameters`, `~/list_parameters`,
//! `~/set_parameters` and `~/set_parameters_atomically`, on rmw_qos_profile_parameters (reliable,
//! volatile, keep last 1000), their handlers on the node's executor in its default group.
//!
//! As rclcpp, describe, get and get-types answer an empty list when any name is not declared,
//! `set_parameters` sets each parameter on its own with one result each, and
//! `set_parameters_atomically` sets all or none.

use std::sync::Arc;

use crate::msgs::ServiceType;
use crate::msgs::rcl_interfaces::msg as wire;
use crate::msgs::rcl_interfaces::msg::{ListParametersResult, SetParametersResult};
use crate::msgs::rcl_interfaces::srv::*;
use crate::ros::node_base::{NodeBase, NodeError};
use crate::ros::parameter::{Parameter, ParameterError, ParameterValue, Store};
use crate::ros::qos::QosProfile;
use crate::ros::service::{Service, ServiceOptions};

/// The services of one node; dropping them withdraws them.
#[derive(Debug)]
pub(crate) struct ParameterServices {
    _describe: Service<DescribeParameters>,
    _get_types: Service<GetParameterTypes>,
    _get: Service<GetParameters>,
    _list: Service<ListParameters>,
    _set: Service<SetParameters>,
    _set_atomically: Service<SetParametersAtomically>,
}

/// `rmw_qos_profile_parameters`.
fn parameters_qos() -> QosProfile {
    QosProfile::keep_last(1000)
}

/// Offers `~/<name>` with `handler`.
async fn offer<S: ServiceType>(
    node: &NodeBase,
    name: &str,
    store: &Arc<Store>,
    handler: impl Fn(&Store, S::Request) -> S::Response + Send + 'static,
) -> Result<Service<S>, NodeError> {
    let store = store.clone();
    let options = ServiceOptions {
        qos: parameters_qos(),
        ..ServiceOptions::default()
    };
    let service = format!("~/{name}");
    let for_log = service.clone();
    node.create_service_with::<S>(&service, options, move |request, responder| {
        if let Err(err) = responder.send(&handler(&store, request)) {
            tracing::warn!(service = %for_log, "cannot send a reply: {err}");
        }
    })
    .await
}

/// The entries of every name, or none when one is not declared (rclcpp answers an empty list).
fn all_declared(store: &Store, names: &[String]) -> Vec<crate::ros::parameter::Entry> {
    names
        .iter()
        .map(|name| store.entry(name))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// The parameters of a set request; `Err` is the reason for one whose type is not defined.
fn parameters(list: &[wire::Parameter]) -> Result<Vec<Parameter>, String> {
    list.iter()
        .map(|p| {
            ParameterValue::from_msg(&p.value)
                .map(|value| Parameter {
                    name: p.name.clone(),
                    value,
                })
                .ok_or_else(|| format!("parameter '{}' has an unknown type {}", p.name, p.value.r#type))
        })
        .collect()
}

fn result(outcome: Result<(), String>) -> SetParametersResult {
    match outcome {
        Ok(()) => SetParametersResult {
            successful: true,
            reason: String::new(),
        },
        Err(reason) => SetParametersResult {
            successful: false,
            reason,
        },
    }
}

/// Offers the six services for `store`'s parameters.
pub(crate) async fn offer_all(node: &NodeBase, store: &Arc<Store>) -> Result<ParameterServices, NodeError> {
    Ok(ParameterServices {
        _describe: offer::<DescribeParameters>(node, "describe_parameters", store, |store, request| {
            DescribeParameters_Response {
                descriptors: request
                    .names
                    .iter()
                    .zip(all_declared(store, &request.names))
                    .map(|(name, entry)| entry.descriptor.to_msg(name, entry.value.parameter_type()))
                    .collect(),
            }
        })
        .await?,
        _get_types: offer::<GetParameterTypes>(node, "get_parameter_types", store, |store, request| {
            GetParameterTypes_Response {
                types: all_declared(store, &request.names)
                    .iter()
                    .map(|entry| entry.value.parameter_type().code())
                    .collect(),
            }
        })
        .await?,
        _get: offer::<GetParameters>(node, "get_parameters", store, |store, request| {
            GetParameters_Response {
                values: all_declared(store, &request.names)
                    .iter()
                    .map(|entry| entry.value.to_msg())
                    .collect(),
            }
        })
        .await?,
        _list: offer::<ListParameters>(node, "list_parameters", store, |store, request| {
            let list = store.list(&request.prefixes, request.depth);
            ListParameters_Response {
                result: ListParametersResult {
                    names: list.names,
                    prefixes: list.prefixes,
                },
            }
        })
        .await?,
        _set: offer::<SetParameters>(node, "set_parameters", store, |store, request| {
            SetParameters_Response {
                results: request
                    .parameters
                    .iter()
                    .map(|p| {
                        result(
                            parameters(std::slice::from_ref(p))
                                .and_then(|one| store.set_atomically(&one).map_err(|err| err.to_string())),
                        )
                    })
                    .collect(),
            }
        })
        .await?,
        _set_atomically: offer::<SetParametersAtomically>(
            node,
            "set_parameters_atomically",
            store,
            |store, request| SetParametersAtomically_Response {
                result: result(parameters(&request.parameters).and_then(|all| {
                    store.set_atomically(&all).map_err(|err| match err {
                        ParameterError::NotDeclared { .. } => {
                            "One or more parameters were not declared before setting".to_owned()
                        }
                        other => other.to_string(),
                    })
                })),
            },
        )
        .await?,
    })
}
