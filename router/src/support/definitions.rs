//! Message definitions from zshm's shipped interface packages, in the `ros2msg` form that
//! rosbag2 and Foxglove read: the type's own `.msg` text followed by each nested type's, each
//! after a `MSG: pkg/Type` separator. `bag record` writes them as MCAP schemas and
//! `foxglove` advertises them as channel schemas.

/// The `ros2msg` definition of a type the shipped interface packages know, and its hash.
pub fn shipped_definition(ros_name: &str) -> Option<(String, String)> {
    let name = zshm_rosidl::TypeName::parse(ros_name)?;
    let set = zshm_rosidl::InterfaceSet::shipped();
    let definition = set.concatenated_definition(&name).ok()?;
    let hash = set.type_hash(&name).ok()?;
    Some((definition, hash))
}
