//! `sensor_msgs/msg/PointCloud2`, owned and as a zero-copy view.

use super::point_field::{self, PointField, PointFieldView};
use crate::cdr::{CdrError, CdrReader, CdrSink};
use crate::msgs::builtin_interfaces::Time;
use crate::msgs::std_msgs::{Header, HeaderView};
use crate::msgs::{LoanableMessage, Message, SensorMessage, TypeInfo, read_sequence};

/// `sensor_msgs/msg/PointCloud2`: `height` rows of `width` points, `point_step` bytes each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PointCloud2 {
    /// Stamp and frame.
    pub header: Header,
    /// Rows (1 for an unordered cloud).
    pub height: u32,
    /// Points per row.
    pub width: u32,
    /// Layout of one point.
    pub fields: Vec<PointField>,
    /// Byte order of `data`.
    pub is_bigendian: bool,
    /// Bytes per point.
    pub point_step: u32,
    /// Bytes per row.
    pub row_step: u32,
    /// The points, `row_step * height` bytes.
    pub data: Vec<u8>,
    /// True when no point is invalid (NaN).
    pub is_dense: bool,
}

/// A [`PointCloud2`] read in place: `data` points into the received buffer (shared memory when
/// the sample came through it). Only the small field list is allocated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointCloud2View<'a> {
    /// Stamp and frame.
    pub header: HeaderView<'a>,
    /// Rows.
    pub height: u32,
    /// Points per row.
    pub width: u32,
    /// Layout of one point.
    pub fields: Vec<PointFieldView<'a>>,
    /// Byte order of `data`.
    pub is_bigendian: bool,
    /// Bytes per point.
    pub point_step: u32,
    /// Bytes per row.
    pub row_step: u32,
    /// The points, borrowed.
    pub data: &'a [u8],
    /// True when no point is invalid.
    pub is_dense: bool,
}

impl PointCloud2View<'_> {
    /// An owned copy (copies the point data).
    pub fn to_owned(&self) -> PointCloud2 {
        PointCloud2 {
            header: self.header.to_owned(),
            height: self.height,
            width: self.width,
            fields: self.fields.iter().map(PointFieldView::to_owned).collect(),
            is_bigendian: self.is_bigendian,
            point_step: self.point_step,
            row_step: self.row_step,
            data: self.data.to_vec(),
            is_dense: self.is_dense,
        }
    }
}

enum Data<'a> {
    Bytes(&'a [u8]),
    Reserved(usize),
}

impl PointCloud2 {
    fn write_with<S: CdrSink + ?Sized>(&self, sink: &mut S, data: Data<'_>) -> usize {
        self.header.write_body(sink);
        sink.u32(self.height);
        sink.u32(self.width);
        sink.sequence_len(self.fields.len());
        for field in &self.fields {
            field.write_body(sink);
        }
        sink.bool(self.is_bigendian);
        sink.u32(self.point_step);
        sink.u32(self.row_step);
        let data_offset = match data {
            Data::Bytes(bytes) => {
                sink.bytes(bytes);
                sink.position() - bytes.len()
            }
            Data::Reserved(len) => {
                sink.reserved_bytes(len);
                sink.position() - len
            }
        };
        sink.bool(self.is_dense);
        data_offset
    }
}

impl Message for PointCloud2 {
    const TYPE: TypeInfo = TypeInfo {
        name: "sensor_msgs/msg/PointCloud2",
        dds_name: "sensor_msgs::msg::dds_::PointCloud2_",
        hash: "RIHS01_9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5",
    };
    type View<'a> = PointCloud2View<'a>;

    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S) {
        self.write_with(sink, Data::Bytes(&self.data));
    }

    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<PointCloud2View<'a>, CdrError> {
        Ok(PointCloud2View {
            header: Header::read_view(reader)?,
            height: reader.u32()?,
            width: reader.u32()?,
            fields: read_sequence(
                reader,
                "fields",
                point_field::MIN_ENCODED_LEN,
                PointField::read_view,
            )?,
            is_bigendian: reader.bool("is_bigendian")?,
            point_step: reader.u32()?,
            row_step: reader.u32()?,
            data: reader.bytes("data")?,
            is_dense: reader.bool("is_dense")?,
        })
    }

    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(Self::read_view(reader)?.to_owned())
    }

    fn from_view(view: &PointCloud2View<'_>) -> Self {
        view.to_owned()
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

impl LoanableMessage for PointCloud2 {
    fn write_shape<S: CdrSink + ?Sized>(&self, sink: &mut S, data_len: usize) -> usize {
        self.write_with(sink, Data::Reserved(data_len))
    }
}
