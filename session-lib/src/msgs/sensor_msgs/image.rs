//! `sensor_msgs/msg/Image`, owned and as a zero-copy view.

use crate::cdr::{CdrError, CdrReader, CdrSink};
use crate::msgs::builtin_interfaces::Time;
use crate::msgs::std_msgs::{Header, HeaderView};
use crate::msgs::{LoanableMessage, Message, SensorMessage, TypeInfo};

/// `sensor_msgs/msg/Image`: `height` rows of `step` bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Image {
    /// Stamp and frame.
    pub header: Header,
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
    /// Pixel encoding, e.g. `rgb8`, `16UC1`.
    pub encoding: String,
    /// Byte order of multi-byte pixels (0 or 1).
    pub is_bigendian: u8,
    /// Bytes per row.
    pub step: u32,
    /// The pixels, `step * height` bytes.
    pub data: Vec<u8>,
}

/// An [`Image`] read in place: `data` points into the received buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageView<'a> {
    /// Stamp and frame.
    pub header: HeaderView<'a>,
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
    /// Pixel encoding.
    pub encoding: &'a str,
    /// Byte order.
    pub is_bigendian: u8,
    /// Bytes per row.
    pub step: u32,
    /// The pixels, borrowed.
    pub data: &'a [u8],
}

impl ImageView<'_> {
    /// An owned copy (copies the pixels).
    pub fn to_owned(&self) -> Image {
        Image {
            header: self.header.to_owned(),
            height: self.height,
            width: self.width,
            encoding: self.encoding.to_owned(),
            is_bigendian: self.is_bigendian,
            step: self.step,
            data: self.data.to_vec(),
        }
    }
}

impl Image {
    fn write_prefix<S: CdrSink + ?Sized>(&self, sink: &mut S) {
        self.header.write_body(sink);
        sink.u32(self.height);
        sink.u32(self.width);
        sink.string(&self.encoding);
        sink.u8(self.is_bigendian);
        sink.u32(self.step);
    }
}

impl Message for Image {
    const TYPE: TypeInfo = TypeInfo {
        name: "sensor_msgs/msg/Image",
        dds_name: "sensor_msgs::msg::dds_::Image_",
        hash: "RIHS01_d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47",
    };
    type View<'a> = ImageView<'a>;

    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S) {
        self.write_prefix(sink);
        sink.bytes(&self.data);
    }

    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<ImageView<'a>, CdrError> {
        Ok(ImageView {
            header: Header::read_view(reader)?,
            height: reader.u32()?,
            width: reader.u32()?,
            encoding: reader.string("encoding")?,
            is_bigendian: reader.u8()?,
            step: reader.u32()?,
            data: reader.bytes("data")?,
        })
    }

    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(Self::read_view(reader)?.to_owned())
    }

    fn from_view(view: &ImageView<'_>) -> Self {
        view.to_owned()
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

impl LoanableMessage for Image {
    fn write_shape<S: CdrSink + ?Sized>(&self, sink: &mut S, data_len: usize) -> usize {
        self.write_prefix(sink);
        sink.reserved_bytes(data_len);
        sink.position() - data_len
    }
}
