//! `sensor_msgs`: [`PointField`], [`PointCloud2`], [`Image`].

mod image;
mod point_cloud2;
mod point_field;

pub use image::{Image, ImageView};
pub use point_cloud2::{PointCloud2, PointCloud2View};
pub use point_field::{PointField, PointFieldView};
