//! ROS 2 messages zshm speaks, with their CDR encoding, DDS type names and RIHS01 type hashes.
//!
//! Modules are named after ROS packages: `zshm::msgs::sensor_msgs::PointCloud2` is
//! `sensor_msgs/msg/PointCloud2`. Each message can be written into any [`CdrSink`] (so its exact
//! size is known before a buffer is loaned), read as an owned value, or read as a borrowed
//! *view* whose large fields point into the received bytes. [`LoanableMessage`]s (point clouds,
//! images) can also be built in place in a shared-memory loan.

pub mod builtin_interfaces;
pub mod sensor_msgs;
pub mod std_msgs;

use crate::cdr::{CdrError, CdrReader, CdrSink, CdrWriter, SizeCounter};

/// The identity of a ROS message type on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeInfo {
    /// The ROS name, e.g. `sensor_msgs/msg/PointCloud2`.
    pub name: &'static str,
    /// The DDS name rmw_zenoh puts in key expressions, e.g. `sensor_msgs::msg::dds_::PointCloud2_`.
    pub dds_name: &'static str,
    /// The REP-2011 type hash, `RIHS01_<sha256 hex>`.
    pub hash: &'static str,
}

/// A ROS message with a CDR encoding.
pub trait Message: Sized + Send + Sync + 'static {
    /// Type name and hash.
    const TYPE: TypeInfo;

    /// A borrowed form: big fields (`data`, strings) point into the received buffer.
    type View<'a>;

    /// Writes the fields after the encapsulation header.
    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S);

    /// Reads a borrowed view.
    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<Self::View<'a>, CdrError>;

    /// Reads an owned value.
    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError>;

    /// An owned copy of a view, without parsing the bytes again.
    fn from_view(view: &Self::View<'_>) -> Self;

    /// The serialized size in bytes, encapsulation header included.
    fn cdr_len(&self) -> usize {
        let mut counter = SizeCounter::new();
        self.write_body(&mut counter);
        counter.len()
    }

    /// Serializes into `buf`, which must be exactly [`cdr_len`](Message::cdr_len) bytes.
    fn write_cdr(&self, buf: &mut [u8]) {
        let mut writer = CdrWriter::new(buf);
        self.write_body(&mut writer);
        debug_assert_eq!(writer.len(), buf.len());
    }

    /// Serializes into a new vector.
    fn to_cdr(&self) -> Vec<u8> {
        let mut buf = vec![0; self.cdr_len()];
        self.write_cdr(&mut buf);
        buf
    }

    /// Decodes an owned value from a full payload.
    fn from_cdr(bytes: &[u8]) -> Result<Self, CdrError> {
        Self::read_owned(&mut CdrReader::new(bytes)?)
    }

    /// Decodes a borrowed view from a full payload.
    fn view_cdr(bytes: &[u8]) -> Result<Self::View<'_>, CdrError> {
        Self::read_view(&mut CdrReader::new(bytes)?)
    }
}

/// A message with one large `uint8[] data` field that can be built in place: everything but
/// the data is written first, and the caller fills the data straight into the buffer.
pub trait LoanableMessage: Message {
    /// Writes the message with `data` replaced by `data_len` reserved bytes; returns the offset
    /// of the first data byte.
    fn write_shape<S: CdrSink + ?Sized>(&self, sink: &mut S, data_len: usize) -> usize;

    /// Offset of `header.stamp` in the payload, so a stamp can be set last, right before publish.
    const STAMP_OFFSET: usize = 4;

    /// Size of the message with `data_len` bytes of data.
    fn shape_len(&self, data_len: usize) -> usize {
        let mut counter = SizeCounter::new();
        self.write_shape(&mut counter, data_len);
        counter.len()
    }
}

/// A sensor message: a header stamp and one large data field (point clouds, images), so probes
/// can measure and check any of them the same way.
pub trait SensorMessage: LoanableMessage {
    /// `header.stamp` of a view.
    fn stamp(view: &Self::View<'_>) -> builtin_interfaces::Time;
    /// The data field of a view.
    fn data<'a>(view: &Self::View<'a>) -> &'a [u8];
    /// The layout of the data, comparable between messages: for a cloud its fields and point
    /// step, for an image its encoding.
    fn layout(view: &Self::View<'_>) -> String;
    /// Whether the data length matches the geometry the message announces.
    fn consistent(view: &Self::View<'_>) -> bool;
}

/// Reads `count` elements with `read`, after checking the count against the bytes left.
pub(crate) fn read_sequence<'a, T>(
    reader: &mut CdrReader<'a>,
    field: &'static str,
    min_element_size: usize,
    mut read: impl FnMut(&mut CdrReader<'a>) -> Result<T, CdrError>,
) -> Result<Vec<T>, CdrError> {
    let count = reader.sequence_len(field, min_element_size)?;
    (0..count).map(|_| read(reader)).collect()
}
