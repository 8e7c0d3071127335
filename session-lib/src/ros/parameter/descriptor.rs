//! [`ParameterDescriptor`]: what a parameter may hold (read-only, dynamic typing, a range with a
//! step), and the check rclcpp makes of a value against it, with rclcpp's reasons.

use super::value::{ParameterType, ParameterValue};
use crate::msgs::rcl_interfaces::msg as wire;

/// An inclusive integer range; `step` 0 means every integer in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntegerRange {
    /// The lowest value.
    pub from_value: i64,
    /// The highest value.
    pub to_value: i64,
    /// Valid values are `from_value + k * step` (and `to_value`); 0: all.
    pub step: u64,
}

/// An inclusive floating-point range; `step` 0 means continuous.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatingPointRange {
    /// The lowest value.
    pub from_value: f64,
    /// The highest value.
    pub to_value: f64,
    /// Valid values are `from_value + k * step` within a tolerance (and `to_value`); 0: all.
    pub step: f64,
}

/// What a parameter is and may hold (`rcl_interfaces/msg/ParameterDescriptor` without the
/// name and type, which the node fills in).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParameterDescriptor {
    /// What the parameter does.
    pub description: String,
    /// Constraints in words, beyond the ranges.
    pub additional_constraints: String,
    /// Set once, at declaration (its default or override); every later set is refused.
    pub read_only: bool,
    /// The type may change with a set (and the parameter may be declared without a value).
    pub dynamic_typing: bool,
    /// Integer values must be in it (ignored for other types).
    pub integer_range: Option<IntegerRange>,
    /// Double values must be in it (ignored for other types).
    pub floating_point_range: Option<FloatingPointRange>,
}

impl ParameterDescriptor {
    /// A descriptor with this description.
    pub fn new(description: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            ..Self::default()
        }
    }

    /// This descriptor, read-only.
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// This descriptor, dynamically typed.
    pub fn dynamic_typing(mut self) -> Self {
        self.dynamic_typing = true;
        self
    }

    /// This descriptor with an integer range.
    pub fn integer_range(mut self, from_value: i64, to_value: i64, step: u64) -> Self {
        self.integer_range = Some(IntegerRange {
            from_value,
            to_value,
            step,
        });
        self
    }

    /// This descriptor with a floating-point range.
    pub fn floating_point_range(mut self, from_value: f64, to_value: f64, step: f64) -> Self {
        self.floating_point_range = Some(FloatingPointRange {
            from_value,
            to_value,
            step,
        });
        self
    }

    /// This descriptor with additional constraints in words.
    pub fn additional_constraints(mut self, text: impl Into<String>) -> Self {
        self.additional_constraints = text.into();
        self
    }

    /// The wire form for parameter `name` of type `parameter_type`.
    pub fn to_msg(&self, name: &str, parameter_type: ParameterType) -> wire::ParameterDescriptor {
        wire::ParameterDescriptor {
            name: name.to_owned(),
            r#type: parameter_type.code(),
            description: self.description.clone(),
            additional_constraints: self.additional_constraints.clone(),
            read_only: self.read_only,
            dynamic_typing: self.dynamic_typing,
            floating_point_range: self
                .floating_point_range
                .iter()
                .map(|r| wire::FloatingPointRange {
                    from_value: r.from_value,
                    to_value: r.to_value,
                    step: r.step,
                })
                .collect(),
            integer_range: self
                .integer_range
                .iter()
                .map(|r| wire::IntegerRange {
                    from_value: r.from_value,
                    to_value: r.to_value,
                    step: r.step,
                })
                .collect(),
        }
    }

    /// The descriptor a wire descriptor carries (its first range of each kind).
    pub fn from_msg(msg: &wire::ParameterDescriptor) -> Self {
        Self {
            description: msg.description.clone(),
            additional_constraints: msg.additional_constraints.clone(),
            read_only: msg.read_only,
            dynamic_typing: msg.dynamic_typing,
            integer_range: msg.integer_range.first().map(|r| IntegerRange {
                from_value: r.from_value,
                to_value: r.to_value,
                step: r.step,
            }),
            floating_point_range: msg.floating_point_range.first().map(|r| FloatingPointRange {
                from_value: r.from_value,
                to_value: r.to_value,
                step: r.step,
            }),
        }
    }

    /// Checks `value` against the ranges, as rclcpp does: the ends always pass, values outside
    /// fail, and inside a stepped range an integer must be `from + k * step` and a double within
    /// a 100-ULP tolerance of the nearest `from + k * step`. `Err` is rclcpp's reason.
    pub fn check_range(&self, name: &str, value: &ParameterValue) -> Result<(), String> {
        match value {
            ParameterValue::Integer(v) => match self.integer_range {
                Some(range) if !integer_in_range(*v, &range) => {
                    Err(format!("Parameter {{{name}}} doesn't comply with integer range."))
                }
                _ => Ok(()),
            },
            ParameterValue::Double(v) => match self.floating_point_range {
                Some(range) if !double_in_range(*v, &range) => Err(format!(
                    "Parameter {{{name}}} doesn't comply with floating point range."
                )),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

fn integer_in_range(v: i64, range: &IntegerRange) -> bool {
    if v == range.from_value || v == range.to_value {
        return true;
    }
    if v < range.from_value || v > range.to_value {
        return false;
    }
    if range.step == 0 {
        return true;
    }
    // Inside the range, so the offset is positive and fits: i128 keeps extreme ends exact.
    let offset = i128::from(v) - i128::from(range.from_value);
    offset % i128::from(range.step) == 0
}

/// Equal within 100 units in the last place, scaled by the magnitude (rclcpp's tolerance, so
/// `0.1 * 3` counts as a step of 0.1 from 0).
fn doubles_equal(x: f64, y: f64) -> bool {
    (x - y).abs() <= f64::EPSILON * (x + y).abs() * 100.0
}

fn double_in_range(v: f64, range: &FloatingPointRange) -> bool {
    if doubles_equal(v, range.from_value) || doubles_equal(v, range.to_value) {
        return true;
    }
    // NaN is outside any range.
    if v.is_nan() || v < range.from_value || v > range.to_value {
        return false;
    }
    if range.step == 0.0 {
        return true;
    }
    let steps = ((v - range.from_value) / range.step).round();
    doubles_equal(v, range.from_value + steps * range.step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ranges_follow_rclcpp() {
        let d = ParameterDescriptor::default().integer_range(0, 10, 3);
        for ok in [0, 3, 6, 9, 10] {
            assert!(d.check_range("x", &ParameterValue::Integer(ok)).is_ok(), "{ok}");
        }
        for bad in [-1, 1, 8, 11] {
            assert_eq!(
                d.check_range("x", &ParameterValue::Integer(bad)).unwrap_err(),
                "Parameter {x} doesn't comply with integer range.",
                "{bad}"
            );
        }
        let continuous = ParameterDescriptor::default().integer_range(i64::MIN, i64::MAX, 0);
        assert!(continuous.check_range("x", &ParameterValue::Integer(7)).is_ok());
        let extreme = ParameterDescriptor::default().integer_range(i64::MIN, i64::MAX, 2);
        // From i64::MIN in steps of 2, the odd offsets are off the grid.
        let on_grid = |v: i64| extreme.check_range("x", &ParameterValue::Integer(v)).is_ok();
        assert!(!on_grid(i64::MAX - 2));
        assert!(on_grid(i64::MAX - 1));
        assert!(extreme.check_range("x", &ParameterValue::Integer(0)).is_ok());
    }

    #[test]
    fn double_ranges_follow_rclcpp_with_the_step_tolerance() {
        let d = ParameterDescriptor::default().floating_point_range(0.0, 1.0, 0.1);
        for ok in [0.0, 0.1 * 3.0, 0.7, 1.0, 0.30000000000000004] {
            assert!(d.check_range("x", &ParameterValue::Double(ok)).is_ok(), "{ok}");
        }
        for bad in [-0.1, 0.15, 1.01, f64::NAN] {
            assert_eq!(
                d.check_range("x", &ParameterValue::Double(bad)).unwrap_err(),
                "Parameter {x} doesn't comply with floating point range.",
                "{bad}"
            );
        }
        // The top end passes even off the grid.
        let off_grid = ParameterDescriptor::default().floating_point_range(0.0, 1.05, 0.1);
        assert!(off_grid.check_range("x", &ParameterValue::Double(1.05)).is_ok());
        assert!(off_grid.check_range("x", &ParameterValue::Double(1.0)).is_ok());
        // A range is ignored for other types.
        assert!(d.check_range("x", &ParameterValue::Integer(5)).is_ok());
    }

    #[test]
    fn descriptors_survive_the_wire_form() {
        let d = ParameterDescriptor::new("the rate")
            .floating_point_range(0.5, 60.0, 0.0)
            .additional_constraints("Hz")
            .read_only();
        let msg = d.to_msg("rate", ParameterType::Double);
        assert_eq!((msg.name.as_str(), msg.r#type), ("rate", 3));
        assert_eq!(ParameterDescriptor::from_msg(&msg), d);
    }
}
