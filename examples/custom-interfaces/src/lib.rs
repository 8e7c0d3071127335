//! A crate with its own ROS 2 interface package, `robot_msgs`, next to zshm's shipped ones.
//!
//! `build.rs` generates the types from `interfaces/robot_msgs/`; this one line includes them, so
//! `robot_msgs::msg::Route`, `robot_msgs::msg::Waypoint` and `robot_msgs::srv::PlanRoute` exist
//! here, with their CDR encoding, DDS names and RIHS01 hashes, and nest zshm's
//! `geometry_msgs::msg::Pose` and `std_msgs::msg::Header`.
//!
//! ```
//! use zshm::msgs::Message;
//! use zshm_example_custom_interfaces::robot_msgs::msg::{Route, Waypoint};
//!
//! let route = Route {
//!     name: "dock".into(),
//!     waypoints: vec![Waypoint { label: "door".into(), ..Default::default() }],
//!     ..Default::default()
//! };
//! assert_eq!(route.waypoints[0].speed, 0.5); // the definition's default
//! assert_eq!(Route::from_cdr(&route.to_cdr()).unwrap(), route);
//! assert_eq!(Route::TYPE.dds_name, "robot_msgs::msg::dds_::Route_");
//! ```

zshm::include_interfaces!();
