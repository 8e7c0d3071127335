//! The store of one node's parameters: declare, get, set (one by one or all at once), undeclare,
//! list, with rclcpp's checks in rclcpp's order (declared, read-only, type, range, then the
//! on-set callbacks) and its reasons. Every change that lands yields one `ParameterEvent`.
//!
//! The store knows nothing of zenoh: the services and the event publisher sit on top of it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

use super::descriptor::ParameterDescriptor;
use super::value::{ParameterType, ParameterValue};
use crate::msgs::builtin_interfaces::msg::Time;
use crate::msgs::rcl_interfaces::msg as wire;

/// A parameter's name and value.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// Its name, e.g. `rate` or `camera.frame_id`.
    pub name: String,
    /// Its value; [`ParameterValue::NotSet`] in a set means "undeclare it".
    pub value: ParameterValue,
}

impl Parameter {
    /// A parameter named `name` holding `value`.
    pub fn new(name: impl Into<String>, value: impl Into<ParameterValue>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
        }
    }

    pub(crate) fn to_msg(&self) -> wire::Parameter {
        wire::Parameter {
            name: self.name.clone(),
            value: self.value.to_msg(),
        }
    }
}

/// Why a parameter could not be declared, read, set or undeclared. The texts are rclcpp's, since
/// they travel as `SetParametersResult.reason` to tools that show them as they are.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParameterError {
    /// The name is empty: give the parameter a name.
    #[error("parameter name must not be empty")]
    EmptyName,
    /// Declared twice: declare it once, or check `has_parameter` first.
    #[error("parameter '{name}' has already been declared")]
    AlreadyDeclared {
        /// The parameter.
        name: String,
    },
    /// Read, set or undeclared before being declared: declare it first.
    #[error("parameter '{name}' cannot be set because it was not declared")]
    NotDeclared {
        /// The parameter.
        name: String,
    },
    /// Declared read-only: it keeps the value it was declared with (or its override).
    #[error("parameter '{name}' cannot be set because it is read-only")]
    ReadOnly {
        /// The parameter.
        name: String,
    },
    /// The value's type is not the declared one and the descriptor does not allow dynamic
    /// typing: give a value of the declared type.
    #[error(
        "Wrong parameter type, parameter {{{name}}} is of type {{{declared}}}, setting it to {{{given}}} is not allowed."
    )]
    WrongType {
        /// The parameter.
        name: String,
        /// Its type.
        declared: ParameterType,
        /// The type of the value given.
        given: ParameterType,
    },
    /// The value is outside the descriptor's range or off its step: the reason says which.
    #[error("{reason}")]
    OutOfRange {
        /// The parameter.
        name: String,
        /// rclcpp's reason.
        reason: String,
    },
    /// Declared without a value and without dynamic typing: give a default, or allow dynamic
    /// typing.
    #[error("cannot declare a statically typed parameter '{name}' with an uninitialized value")]
    Uninitialized {
        /// The parameter.
        name: String,
    },
    /// Undeclaring (or setting to not-set) a parameter without dynamic typing.
    #[error("cannot undeclare a statically typed parameter")]
    StaticallyTyped {
        /// The parameter.
        name: String,
    },
    /// An on-set callback refused the change, with its reason.
    #[error("{reason}")]
    Rejected {
        /// The callback's reason.
        reason: String,
    },
    /// An on-set callback tried to change parameters itself: return a verdict instead.
    #[error("parameters cannot be changed from inside an on-set-parameters callback")]
    Reentrant,
}

/// A callback that sees every change before it lands and may refuse it with a reason.
pub(crate) type SetCallback = Arc<dyn Fn(&[Parameter]) -> Result<(), String> + Send + Sync>;

/// One declared parameter.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) value: ParameterValue,
    /// The type it was declared with: what a set must keep unless the descriptor is dynamic.
    pub(crate) declared_type: ParameterType,
    pub(crate) descriptor: ParameterDescriptor,
}

/// What `list_parameters` finds (`rcl_interfaces/msg/ListParametersResult`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParameterList {
    /// The matching names, sorted.
    pub names: Vec<String>,
    /// The distinct prefixes (up to the last `.`) of those names.
    pub prefixes: Vec<String>,
}

/// `list_parameters` with no prefix and this depth lists every parameter.
pub const DEPTH_RECURSIVE: u64 = 0;

#[derive(Default)]
struct Inner {
    params: BTreeMap<String, Entry>,
    callbacks: Vec<(u64, SetCallback)>,
    next_callback: u64,
}

/// One node's parameters. Sets are serialised by `writer`; the callbacks run without the
/// `inner` lock, so a callback may read parameters (but not change them).
pub(crate) struct Store {
    node: String,
    overrides: BTreeMap<String, ParameterValue>,
    inner: Mutex<Inner>,
    writer: Mutex<()>,
    writing: Mutex<Option<ThreadId>>,
    events: Box<dyn Fn(wire::ParameterEvent) + Send + Sync>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

/// Held while a change is checked and applied; marks the thread so a callback that changes
/// parameters gets [`ParameterError::Reentrant`] instead of a deadlock.
struct Writing<'a> {
    _writer: MutexGuard<'a, ()>,
    store: &'a Store,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        *lock(&self.store.writing) = None;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Store {
    /// The store of node `node` (its fully qualified name), with the overrides that apply to it;
    /// `events` receives each change's event.
    pub(crate) fn new(
        node: String,
        overrides: BTreeMap<String, ParameterValue>,
        events: Box<dyn Fn(wire::ParameterEvent) + Send + Sync>,
    ) -> Self {
        Self {
            node,
            overrides,
            inner: Mutex::default(),
            writer: Mutex::new(()),
            writing: Mutex::new(None),
            events,
        }
    }

    fn write(&self) -> Result<Writing<'_>, ParameterError> {
        let me = std::thread::current().id();
        if *lock(&self.writing) == Some(me) {
            return Err(ParameterError::Reentrant);
        }
        let guard = lock(&self.writer);
        *lock(&self.writing) = Some(me);
        Ok(Writing {
            _writer: guard,
            store: self,
        })
    }

    fn event(&self, new: Vec<Parameter>, changed: Vec<Parameter>, deleted: Vec<Parameter>) {
        let all = |list: Vec<Parameter>| list.iter().map(Parameter::to_msg).collect();
        (self.events)(wire::ParameterEvent {
            stamp: Time::now(),
            node: self.node.clone(),
            new_parameters: all(new),
            changed_parameters: all(changed),
            deleted_parameters: all(deleted),
        });
    }

    fn run_callbacks(&self, parameters: &[Parameter]) -> Result<(), ParameterError> {
        let callbacks: Vec<SetCallback> = lock(&self.inner)
            .callbacks
            .iter()
            .map(|(_, callback)| callback.clone())
            .collect();
        // rclcpp calls the most recently added callback first; the first refusal wins.
        for callback in callbacks.iter().rev() {
            callback(parameters).map_err(|reason| ParameterError::Rejected { reason })?;
        }
        Ok(())
    }

    /// Declares `name`: its override if there is one, else `default`; returns the value taken.
    pub(crate) fn declare(
        &self,
        name: &str,
        default: ParameterValue,
        descriptor: ParameterDescriptor,
    ) -> Result<ParameterValue, ParameterError> {
        if name.is_empty() {
            return Err(ParameterError::EmptyName);
        }
        let _writing = self.write()?;
        if lock(&self.inner).params.contains_key(name) {
            return Err(ParameterError::AlreadyDeclared { name: name.into() });
        }
        let declared_type = default.parameter_type();
        if declared_type == ParameterType::NotSet && !descriptor.dynamic_typing {
            return Err(ParameterError::Uninitialized { name: name.into() });
        }
        let value = self.overrides.get(name).cloned().unwrap_or(default);
        if !descriptor.dynamic_typing && value.parameter_type() != declared_type {
            return Err(ParameterError::WrongType {
                name: name.into(),
                declared: declared_type,
                given: value.parameter_type(),
            });
        }
        descriptor
            .check_range(name, &value)
            .map_err(|reason| ParameterError::OutOfRange {
                name: name.into(),
                reason,
            })?;
        let parameter = Parameter::new(name, value.clone());
        self.run_callbacks(std::slice::from_ref(&parameter))?;
        lock(&self.inner).params.insert(
            name.to_owned(),
            Entry {
                value: value.clone(),
                declared_type,
                descriptor,
            },
        );
        self.event(vec![parameter], vec![], vec![]);
        Ok(value)
    }

    /// The entry of `name`, if declared.
    pub(crate) fn entry(&self, name: &str) -> Option<Entry> {
        lock(&self.inner).params.get(name).cloned()
    }

    /// Sets every parameter of `parameters` or none; a not-set value undeclares.
    pub(crate) fn set_atomically(&self, parameters: &[Parameter]) -> Result<(), ParameterError> {
        let _writing = self.write()?;
        {
            let inner = lock(&self.inner);
            for parameter in parameters {
                let entry = inner
                    .params
                    .get(&parameter.name)
                    .ok_or_else(|| ParameterError::NotDeclared {
                        name: parameter.name.clone(),
                    })?;
                check(&parameter.name, entry, &parameter.value)?;
            }
        }
        self.run_callbacks(parameters)?;
        let (mut changed, mut deleted) = (Vec::new(), Vec::new());
        let mut inner = lock(&self.inner);
        for parameter in parameters {
            if parameter.value == ParameterValue::NotSet {
                inner.params.remove(&parameter.name);
                deleted.push(parameter.clone());
            } else if let Some(entry) = inner.params.get_mut(&parameter.name) {
                entry.value = parameter.value.clone();
                changed.push(parameter.clone());
            }
        }
        drop(inner);
        self.event(vec![], changed, deleted);
        Ok(())
    }

    /// Undeclares `name`.
    pub(crate) fn undeclare(&self, name: &str) -> Result<(), ParameterError> {
        let _writing = self.write()?;
        let mut inner = lock(&self.inner);
        let entry = inner
            .params
            .get(name)
            .ok_or_else(|| ParameterError::NotDeclared { name: name.into() })?;
        if entry.descriptor.read_only {
            return Err(ParameterError::ReadOnly { name: name.into() });
        }
        if !entry.descriptor.dynamic_typing {
            return Err(ParameterError::StaticallyTyped { name: name.into() });
        }
        inner.params.remove(name);
        drop(inner);
        self.event(vec![], vec![], vec![Parameter::new(name, ParameterValue::NotSet)]);
        Ok(())
    }

    /// Adds an on-set callback; returns its id for [`remove_callback`](Self::remove_callback).
    pub(crate) fn add_callback(&self, callback: SetCallback) -> u64 {
        let mut inner = lock(&self.inner);
        inner.next_callback += 1;
        let id = inner.next_callback;
        inner.callbacks.push((id, callback));
        id
    }

    /// Removes the callback `id`.
    pub(crate) fn remove_callback(&self, id: u64) {
        lock(&self.inner).callbacks.retain(|(other, _)| *other != id);
    }

    /// The names under `prefixes` down to `depth` levels, as rclcpp lists them: with no prefix,
    /// names with fewer than `depth` dots (all for [`DEPTH_RECURSIVE`]); with prefixes, a name
    /// that equals one, or continues it after a `.` with fewer than `depth` more dots.
    pub(crate) fn list(&self, prefixes: &[String], depth: u64) -> ParameterList {
        let dots = |s: &str| s.matches('.').count() as u64;
        let within = |s: &str| depth == DEPTH_RECURSIVE || dots(s) < depth;
        let mut list = ParameterList::default();
        for name in lock(&self.inner).params.keys() {
            let all = prefixes.is_empty() && within(name);
            let under = prefixes.iter().any(|prefix| {
                name == prefix
                    || name
                        .strip_prefix(prefix.as_str())
                        .is_some_and(|rest| rest.starts_with('.') && within(rest))
            });
            if all || under {
                list.names.push(name.clone());
                if let Some((prefix, _)) = name.rsplit_once('.')
                    && !list.prefixes.iter().any(|p| p == prefix)
                {
                    list.prefixes.push(prefix.to_owned());
                }
            }
        }
        list
    }
}

/// rclcpp's checks of a new value against a declared parameter, in its order.
fn check(name: &str, entry: &Entry, value: &ParameterValue) -> Result<(), ParameterError> {
    if entry.descriptor.read_only {
        return Err(ParameterError::ReadOnly { name: name.into() });
    }
    if *value == ParameterValue::NotSet {
        return if entry.descriptor.dynamic_typing {
            Ok(())
        } else {
            Err(ParameterError::StaticallyTyped { name: name.into() })
        };
    }
    if !entry.descriptor.dynamic_typing && value.parameter_type() != entry.declared_type {
        return Err(ParameterError::WrongType {
            name: name.into(),
            declared: entry.declared_type,
            given: value.parameter_type(),
        });
    }
    entry
        .descriptor
        .check_range(name, value)
        .map_err(|reason| ParameterError::OutOfRange {
            name: name.into(),
            reason,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (Store, Arc<Mutex<Vec<wire::ParameterEvent>>>) {
        let events: Arc<Mutex<Vec<wire::ParameterEvent>>> = Arc::default();
        let sink = events.clone();
        let overrides = BTreeMap::from([("o".to_owned(), ParameterValue::Integer(7))]);
        let store = Store::new(
            "/n".into(),
            overrides,
            Box::new(move |e| sink.lock().unwrap().push(e)),
        );
        (store, events)
    }

    #[test]
    fn declare_takes_the_override_and_checks_it() {
        let (s, events) = store();
        assert_eq!(
            s.declare("o", 1i64.into(), ParameterDescriptor::default()),
            Ok(7i64.into())
        );
        assert_eq!(
            s.declare("o", 1i64.into(), ParameterDescriptor::default()),
            Err(ParameterError::AlreadyDeclared { name: "o".into() })
        );
        assert!(matches!(
            s.declare("p", ParameterValue::NotSet, ParameterDescriptor::default()),
            Err(ParameterError::Uninitialized { .. })
        ));
        assert_eq!(
            s.declare(
                "p",
                ParameterValue::NotSet,
                ParameterDescriptor::default().dynamic_typing()
            ),
            Ok(ParameterValue::NotSet)
        );
        let events = events.lock().unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].node, "/n");
        assert_eq!(events[0].new_parameters[0].name, "o");
        assert_eq!(events[0].new_parameters[0].value.integer_value, 7);
    }

    #[test]
    fn sets_are_checked_in_rclcpps_order_with_its_reasons() {
        let (s, _) = store();
        s.declare("ro", 1i64.into(), ParameterDescriptor::default().read_only())
            .unwrap();
        s.declare(
            "i",
            2i64.into(),
            ParameterDescriptor::default().integer_range(0, 10, 2),
        )
        .unwrap();
        let set = |name: &str, v: ParameterValue| s.set_atomically(&[Parameter::new(name, v)]);
        assert_eq!(
            set("ro", 2i64.into()).unwrap_err().to_string(),
            "parameter 'ro' cannot be set because it is read-only"
        );
        assert_eq!(
            set("i", "x".into()).unwrap_err().to_string(),
            "Wrong parameter type, parameter {i} is of type {integer}, setting it to {string} is not allowed."
        );
        assert_eq!(
            set("i", 3i64.into()).unwrap_err().to_string(),
            "Parameter {i} doesn't comply with integer range."
        );
        assert_eq!(
            set("nope", 3i64.into()).unwrap_err().to_string(),
            "parameter 'nope' cannot be set because it was not declared"
        );
        assert_eq!(
            set("i", ParameterValue::NotSet).unwrap_err().to_string(),
            "cannot undeclare a statically typed parameter"
        );
        set("i", 4i64.into()).unwrap();
        assert_eq!(s.entry("i").unwrap().value, 4i64.into());
    }

    #[test]
    fn a_callback_may_refuse_and_nothing_changes() {
        let (s, events) = store();
        s.declare("a", 1i64.into(), ParameterDescriptor::default())
            .unwrap();
        s.declare("b", 1i64.into(), ParameterDescriptor::default())
            .unwrap();
        let id = s.add_callback(Arc::new(|ps: &[Parameter]| {
            if ps.iter().any(|p| p.value == ParameterValue::Integer(13)) {
                Err("13 brings bad luck".into())
            } else {
                Ok(())
            }
        }));
        let both = [Parameter::new("a", 2i64), Parameter::new("b", 13i64)];
        assert_eq!(
            s.set_atomically(&both),
            Err(ParameterError::Rejected {
                reason: "13 brings bad luck".into()
            })
        );
        assert_eq!(s.entry("a").unwrap().value, 1i64.into(), "all or nothing");
        s.remove_callback(id);
        s.set_atomically(&both).unwrap();
        let last = events.lock().unwrap().last().cloned().unwrap();
        assert_eq!(last.changed_parameters.len(), 2);
    }

    #[test]
    fn a_callback_that_sets_gets_an_error_not_a_deadlock() {
        let (s, _) = store();
        let s = Arc::new(s);
        s.declare("a", 1i64.into(), ParameterDescriptor::default())
            .unwrap();
        let inner = Arc::downgrade(&s);
        s.add_callback(Arc::new(move |_: &[Parameter]| {
            let store = inner.upgrade().ok_or("gone")?;
            assert_eq!(store.entry("a").unwrap().value, 1i64.into(), "reads work");
            match store.set_atomically(&[Parameter::new("a", 5i64)]) {
                Err(ParameterError::Reentrant) => Ok(()),
                other => Err(format!("{other:?}")),
            }
        }));
        s.set_atomically(&[Parameter::new("a", 2i64)]).unwrap();
    }

    #[test]
    fn list_follows_rclcpps_prefixes_and_depth() {
        let (s, _) = store();
        for name in ["a", "b.c", "b.d.e", "bb"] {
            s.declare(name, true.into(), ParameterDescriptor::default())
                .unwrap();
        }
        let all = s.list(&[], DEPTH_RECURSIVE);
        assert_eq!(all.names, ["a", "b.c", "b.d.e", "bb"]);
        assert_eq!(all.prefixes, ["b", "b.d"]);
        assert_eq!(s.list(&[], 1).names, ["a", "bb"]);
        assert_eq!(s.list(&["b".into()], DEPTH_RECURSIVE).names, ["b.c", "b.d.e"]);
        // The dots counted after a prefix include the one that follows it (rclcpp).
        assert!(s.list(&["b".into()], 1).names.is_empty());
        assert_eq!(s.list(&["b".into()], 2).names, ["b.c"]);
        assert_eq!(s.list(&["bb".into()], 1).names, ["bb"]);
    }
}
