//! The naming rules of ROS interfaces (`rosidl_adapter`'s checks): packages, types, fields and
//! constants. The model checks names with them, the parser the names it reads.

/// A package name: `^[a-z][a-z0-9_]*$`, no `__`, no trailing `_`.
pub fn is_package_name(text: &str) -> bool {
    is_lower_identifier(text)
}

/// A field name: the same rule as a package name.
pub fn is_field_name(text: &str) -> bool {
    is_lower_identifier(text)
}

fn is_lower_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !text.contains("__")
        && !text.ends_with('_')
}

/// A type name as written in a file: `^[A-Z][A-Za-z0-9]*$`.
pub fn is_type_name(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some('A'..='Z')) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// A type name, also the derived ones (`AddTwoInts_Request`, `Fibonacci_SendGoal_Event`).
pub fn is_derived_type_name(text: &str) -> bool {
    !text.is_empty() && text.split('_').all(is_type_name)
}

/// A constant name: `^[A-Z]([A-Z0-9_]?[A-Z0-9]+)*$`.
pub fn is_constant_name(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some('A'..='Z'))
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !text.contains("__")
        && !text.ends_with('_')
}
