//! `std_msgs`: [`Header`] and [`String`].

use super::builtin_interfaces::Time;
use super::{Message, TypeInfo};
use crate::cdr::{CdrError, CdrReader, CdrSink};

/// `std_msgs/msg/Header`: a stamp and a coordinate frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// When the data was captured.
    pub stamp: Time,
    /// The coordinate frame of the data.
    pub frame_id: std::string::String,
}

/// A [`Header`] whose `frame_id` borrows from the received bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderView<'a> {
    /// When the data was captured.
    pub stamp: Time,
    /// The coordinate frame.
    pub frame_id: &'a str,
}

impl HeaderView<'_> {
    /// An owned copy.
    pub fn to_owned(&self) -> Header {
        Header {
            stamp: self.stamp,
            frame_id: self.frame_id.to_owned(),
        }
    }
}

impl Message for Header {
    const TYPE: TypeInfo = TypeInfo {
        name: "std_msgs/msg/Header",
        dds_name: "std_msgs::msg::dds_::Header_",
        hash: "RIHS01_f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01",
    };
    type View<'a> = HeaderView<'a>;

    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S) {
        self.stamp.write_body(sink);
        sink.string(&self.frame_id);
    }

    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<HeaderView<'a>, CdrError> {
        Ok(HeaderView {
            stamp: Time::read_owned(reader)?,
            frame_id: reader.string("header.frame_id")?,
        })
    }

    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(Self::read_view(reader)?.to_owned())
    }

    fn from_view(view: &HeaderView<'_>) -> Self {
        view.to_owned()
    }
}

/// `std_msgs/msg/String`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct String {
    /// The text.
    pub data: std::string::String,
}

impl Message for String {
    const TYPE: TypeInfo = TypeInfo {
        name: "std_msgs/msg/String",
        dds_name: "std_msgs::msg::dds_::String_",
        hash: "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
    };
    type View<'a> = &'a str;

    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S) {
        sink.string(&self.data);
    }

    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<&'a str, CdrError> {
        reader.string("data")
    }

    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(Self {
            data: reader.string("data")?.to_owned(),
        })
    }

    fn from_view(view: &&str) -> Self {
        Self {
            data: (*view).to_owned(),
        }
    }
}
