//! Sensor messages (point clouds, images) as the probes and the camera see them: a stamp and one
//! large data field, so every sensor type is measured and checked the same way.

use super::LoanableMessage;
use super::builtin_interfaces::msg::Time;
use super::sensor_msgs::msg::{Image, ImageView, PointCloud2, PointCloud2View, PointField};

/// A sensor message: a header stamp and one large data field (point clouds, images).
pub trait SensorMessage: LoanableMessage {
    /// `header.stamp` of a view.
    fn stamp(view: &Self::View<'_>) -> Time;
    /// The data field of a view.
    fn data<'a>(view: &Self::View<'a>) -> &'a [u8];
    /// The layout of the data, comparable between messages: for a cloud its fields and point
    /// step, for an image its encoding.
    fn layout(view: &Self::View<'_>) -> String;
    /// Whether the data length matches the geometry the message announces.
    fn consistent(view: &Self::View<'_>) -> bool;
}

impl PointField {
    /// A single-element field.
    pub fn new(name: &str, offset: u32, datatype: u8) -> Self {
        Self {
            name: name.to_owned(),
            offset,
            datatype,
            count: 1,
        }
    }
}

impl SensorMessage for PointCloud2 {
    fn stamp(view: &PointCloud2View<'_>) -> Time {
        view.header.stamp
    }
    fn data<'a>(view: &Self::View<'a>) -> &'a [u8] {
        view.data
    }
    fn layout(view: &PointCloud2View<'_>) -> String {
        let fields: Vec<String> = view
            .fields
            .iter()
            .map(|f| format!("{}@{}:{}x{}", f.name, f.offset, f.datatype, f.count))
            .collect();
        format!("{} step {}", fields.join(","), view.point_step)
    }
    fn consistent(view: &PointCloud2View<'_>) -> bool {
        u64::from(view.row_step) * u64::from(view.height) == view.data.len() as u64
            && u64::from(view.point_step) * u64::from(view.width) <= u64::from(view.row_step)
    }
}

impl SensorMessage for Image {
    fn stamp(view: &ImageView<'_>) -> Time {
        view.header.stamp
    }
    fn data<'a>(view: &Self::View<'a>) -> &'a [u8] {
        view.data
    }
    fn layout(view: &ImageView<'_>) -> String {
        view.encoding.to_owned()
    }
    fn consistent(view: &ImageView<'_>) -> bool {
        u64::from(view.step) * u64::from(view.height) == view.data.len() as u64
    }
}
