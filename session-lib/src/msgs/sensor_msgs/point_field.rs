//! `sensor_msgs/msg/PointField`: one field (x, y, z, rgb, ...) of a point in a [`super::PointCloud2`].

use crate::cdr::{CdrError, CdrReader, CdrSink};
use crate::msgs::{Message, TypeInfo};

/// `sensor_msgs/msg/PointField`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PointField {
    /// Field name, e.g. `x`.
    pub name: String,
    /// Byte offset in the point.
    pub offset: u32,
    /// One of the datatype constants ([`PointField::FLOAT32`], ...).
    pub datatype: u8,
    /// Number of elements.
    pub count: u32,
}

impl PointField {
    /// `INT8`.
    pub const INT8: u8 = 1;
    /// `UINT8`.
    pub const UINT8: u8 = 2;
    /// `INT16`.
    pub const INT16: u8 = 3;
    /// `UINT16`.
    pub const UINT16: u8 = 4;
    /// `INT32`.
    pub const INT32: u8 = 5;
    /// `UINT32`.
    pub const UINT32: u8 = 6;
    /// `FLOAT32`.
    pub const FLOAT32: u8 = 7;
    /// `FLOAT64`.
    pub const FLOAT64: u8 = 8;

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

/// A [`PointField`] whose name borrows from the received bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointFieldView<'a> {
    /// Field name.
    pub name: &'a str,
    /// Byte offset in the point.
    pub offset: u32,
    /// Datatype constant.
    pub datatype: u8,
    /// Number of elements.
    pub count: u32,
}

impl PointFieldView<'_> {
    /// An owned copy.
    pub fn to_owned(&self) -> PointField {
        PointField {
            name: self.name.to_owned(),
            offset: self.offset,
            datatype: self.datatype,
            count: self.count,
        }
    }
}

/// A lower bound of one field's encoding (name length and NUL, offset, datatype, count), used
/// to refuse element counts the buffer cannot hold.
pub(crate) const MIN_ENCODED_LEN: usize = 4 + 1 + 4 + 1 + 4;

impl Message for PointField {
    const TYPE: TypeInfo = TypeInfo {
        name: "sensor_msgs/msg/PointField",
        dds_name: "sensor_msgs::msg::dds_::PointField_",
        hash: "RIHS01_5c6a4750728c2bcfbbf7037225b20b02d4429634732146b742dee1726637ef01",
    };
    type View<'a> = PointFieldView<'a>;

    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S) {
        sink.string(&self.name);
        sink.u32(self.offset);
        sink.u8(self.datatype);
        sink.u32(self.count);
    }

    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<PointFieldView<'a>, CdrError> {
        Ok(PointFieldView {
            name: reader.string("fields.name")?,
            offset: reader.u32()?,
            datatype: reader.u8()?,
            count: reader.u32()?,
        })
    }

    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(Self::read_view(reader)?.to_owned())
    }

    fn from_view(view: &PointFieldView<'_>) -> Self {
        view.to_owned()
    }
}
