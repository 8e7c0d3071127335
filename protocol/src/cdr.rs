//! Classic CDR (XCDR1), the payload format of every rmw_zenoh message.
//!
//! Layout (Fast-CDR `DDS_CDR`, as `rmw_zenoh_cpp/src/detail/type_support.cpp` writes it):
//!
//! * a 4-byte encapsulation header: `00 01 00 00` for little endian (`00 00 00 00` big endian);
//! * primitives aligned to their size (8-byte types to 8), **relative to the byte after the
//!   header**, padding bytes zero;
//! * `string`: u32 length including the terminating NUL, the UTF-8 bytes, the NUL;
//! * `T[]`: u32 element count, then the elements; nested messages inlined in field order;
//! * no trailing padding.
//!
//! Written by hand rather than with a serde CDR crate (`cdr`, `cdr-encoding`) because zshm needs
//! what those do not offer: serializing into a caller-provided buffer of exactly precomputed size
//! (a shared-memory loan), borrowed views whose `&[u8]` fields point into the received buffer,
//! and a reader that checks every length against the bytes left before allocating anything, so
//! a malformed sample from the network can neither panic nor allocate gigabytes. Generated
//! message code (`zshm::msgs`) writes and reads through these primitives; the bytes are checked
//! against an independent implementation (rosbags): fixtures in `tests/data/cdr/` and a round
//! trip of every shipped type through rosbags' CDR (`tests/oracle/`).

/// The encapsulation header zshm writes: CDR, little endian, no options.
pub const ENCAPSULATION_LE: [u8; 4] = [0x00, 0x01, 0x00, 0x00];
/// Big-endian CDR, accepted on read.
pub const ENCAPSULATION_BE: [u8; 4] = [0x00, 0x00, 0x00, 0x00];
const HEADER_LEN: usize = 4;

/// Why bytes could not be read as CDR.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CdrError {
    /// The buffer ends before the value at `offset` (truncated message).
    #[error("truncated CDR: {needed} more bytes needed at offset {offset}, buffer is {len} bytes")]
    Truncated {
        /// Byte offset in the buffer.
        offset: usize,
        /// Bytes needed there.
        needed: usize,
        /// Buffer length.
        len: usize,
    },
    /// The first two bytes are not a plain CDR representation identifier.
    #[error("unsupported CDR encapsulation {0:02x?}: expected 00 01 (little endian) or 00 00 (big endian)")]
    Encapsulation([u8; 2]),
    /// A length or element count is larger than what is left in the buffer.
    #[error("{field} claims {count} elements but only {remaining} bytes remain")]
    LengthTooLarge {
        /// The field being read.
        field: &'static str,
        /// The claimed count.
        count: u64,
        /// Bytes left.
        remaining: usize,
    },
    /// A string has length 0 (CDR strings always hold their NUL) or does not end with NUL.
    #[error("{field}: string is not NUL-terminated")]
    StringNotTerminated {
        /// The field being read.
        field: &'static str,
    },
    /// A string is not valid UTF-8.
    #[error("{field}: string is not valid UTF-8")]
    StringNotUtf8 {
        /// The field being read.
        field: &'static str,
    },
    /// A bool byte is neither 0 nor 1.
    #[error("{field}: invalid bool byte {value}")]
    InvalidBool {
        /// The field being read.
        field: &'static str,
        /// The byte.
        value: u8,
    },
}

/// Something CDR can be written to: a [`CdrWriter`] over a buffer, or a [`SizeCounter`].
/// Messages write themselves once, generically, and both the exact size and the bytes come from
/// that single description.
pub trait CdrSink {
    /// Current offset in the buffer, header included.
    fn position(&self) -> usize;
    /// Writes raw bytes at the current offset.
    fn put(&mut self, bytes: &[u8]);
    /// Writes `n` zero bytes.
    fn pad(&mut self, n: usize);

    /// Pads to an `n`-byte boundary relative to the start of the body.
    fn align(&mut self, n: usize) {
        let misalignment = (self.position() - HEADER_LEN) % n;
        if misalignment != 0 {
            self.pad(n - misalignment);
        }
    }
    /// A `uint8`.
    fn u8(&mut self, v: u8) {
        self.put(&[v]);
    }
    /// A `bool`.
    fn bool(&mut self, v: bool) {
        self.put(&[u8::from(v)]);
    }
    /// A `uint32`.
    fn u32(&mut self, v: u32) {
        self.align(4);
        self.put(&v.to_le_bytes());
    }
    /// An `int32`.
    fn i32(&mut self, v: i32) {
        self.align(4);
        self.put(&v.to_le_bytes());
    }
    /// An `int8`.
    fn i8(&mut self, v: i8) {
        self.put(&v.to_le_bytes());
    }
    /// A `uint16`.
    fn u16(&mut self, v: u16) {
        self.align(2);
        self.put(&v.to_le_bytes());
    }
    /// An `int16`.
    fn i16(&mut self, v: i16) {
        self.align(2);
        self.put(&v.to_le_bytes());
    }
    /// A `uint64`.
    fn u64(&mut self, v: u64) {
        self.align(8);
        self.put(&v.to_le_bytes());
    }
    /// An `int64`.
    fn i64(&mut self, v: i64) {
        self.align(8);
        self.put(&v.to_le_bytes());
    }
    /// A `float32`.
    fn f32(&mut self, v: f32) {
        self.align(4);
        self.put(&v.to_le_bytes());
    }
    /// A `float64`.
    fn f64(&mut self, v: f64) {
        self.align(8);
        self.put(&v.to_le_bytes());
    }
    /// A `wstring`: the count of UTF-16 units (no terminator), then each unit as a 32-bit
    /// value, as Fast-CDR writes it for rmw_zenoh and the DDS RMWs.
    fn wstring(&mut self, v: &str) {
        self.u32(len_u32(v.encode_utf16().count()));
        for unit in v.encode_utf16() {
            self.u32(u32::from(unit));
        }
    }
    /// A `string` (no interior NUL: truncated there, as C readers would).
    fn string(&mut self, v: &str) {
        let bytes = v.as_bytes();
        let bytes = &bytes[..bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len())];
        self.u32(len_u32(bytes.len() + 1));
        self.put(bytes);
        self.put(&[0]);
    }
    /// A `uint8[]`.
    fn bytes(&mut self, v: &[u8]) {
        self.u32(len_u32(v.len()));
        self.put(v);
    }
    /// The element count of a sequence.
    fn sequence_len(&mut self, len: usize) {
        self.u32(len_u32(len));
    }
    /// A `uint8[]` of `len` bytes whose content the caller writes later, in place: the count is
    /// written and the bytes are skipped without being touched.
    fn reserved_bytes(&mut self, len: usize) {
        self.u32(len_u32(len));
        self.skip_uninit(len);
    }
    /// Advances over `n` bytes without writing them.
    fn skip_uninit(&mut self, n: usize);
}

fn len_u32(len: usize) -> u32 {
    // ROS messages are bounded far below 4 GiB by every transport; larger is a caller bug.
    u32::try_from(len).expect("CDR lengths are 32-bit; a field of 4 GiB or more cannot be serialized")
}

/// Counts the bytes a message will take, header included, without writing anything.
#[derive(Debug, Clone, Copy)]
pub struct SizeCounter {
    position: usize,
}

impl SizeCounter {
    /// A counter positioned after the encapsulation header.
    pub fn new() -> Self {
        Self { position: HEADER_LEN }
    }

    /// Total bytes counted so far.
    pub fn len(&self) -> usize {
        self.position
    }

    /// True when nothing but the header was counted.
    pub fn is_empty(&self) -> bool {
        self.position == HEADER_LEN
    }
}

impl Default for SizeCounter {
    fn default() -> Self {
        Self::new()
    }
}

impl CdrSink for SizeCounter {
    fn position(&self) -> usize {
        self.position
    }
    fn put(&mut self, bytes: &[u8]) {
        self.position += bytes.len();
    }
    fn pad(&mut self, n: usize) {
        self.position += n;
    }
    fn skip_uninit(&mut self, n: usize) {
        self.position += n;
    }
}

/// Writes CDR into a buffer whose size was computed with [`SizeCounter`].
#[derive(Debug)]
pub struct CdrWriter<'a> {
    buf: &'a mut [u8],
    position: usize,
}

impl<'a> CdrWriter<'a> {
    /// Starts writing at the beginning of `buf`, with the little-endian header.
    ///
    /// # Panics
    /// If a later write goes past the end of `buf`: the buffer must be sized by [`SizeCounter`]
    /// for the same message.
    pub fn new(buf: &'a mut [u8]) -> Self {
        let mut writer = Self { buf, position: 0 };
        writer.put(&ENCAPSULATION_LE);
        writer
    }

    /// Bytes written so far, header included.
    pub fn len(&self) -> usize {
        self.position
    }

    /// True when nothing but the header was written.
    pub fn is_empty(&self) -> bool {
        self.position == HEADER_LEN
    }
}

impl CdrSink for CdrWriter<'_> {
    fn position(&self) -> usize {
        self.position
    }
    fn put(&mut self, bytes: &[u8]) {
        let end = self.position + bytes.len();
        self.buf[self.position..end].copy_from_slice(bytes);
        self.position = end;
    }
    fn pad(&mut self, n: usize) {
        let end = self.position + n;
        self.buf[self.position..end].fill(0);
        self.position = end;
    }
    fn skip_uninit(&mut self, n: usize) {
        assert!(self.position + n <= self.buf.len(), "CDR buffer too small");
        self.position += n;
    }
}

/// Reads CDR from a received buffer, checking every length before using it.
#[derive(Debug, Clone)]
pub struct CdrReader<'a> {
    buf: &'a [u8],
    position: usize,
    little_endian: bool,
}

impl<'a> CdrReader<'a> {
    /// Checks the encapsulation header and positions after it.
    pub fn new(buf: &'a [u8]) -> Result<Self, CdrError> {
        let mut reader = Self {
            buf,
            position: 0,
            little_endian: true,
        };
        let header = reader.take(HEADER_LEN)?;
        reader.little_endian = match [header[0], header[1]] {
            [0x00, 0x01] => true,
            [0x00, 0x00] => false,
            other => return Err(CdrError::Encapsulation(other)),
        };
        Ok(reader)
    }

    /// Current offset, header included.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Bytes not read yet (trailing bytes are allowed: rmw_zenoh's SHM path may send slack).
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.position
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], CdrError> {
        if self.remaining() < n {
            return Err(CdrError::Truncated {
                offset: self.position,
                needed: n,
                len: self.buf.len(),
            });
        }
        let slice = &self.buf[self.position..self.position + n];
        self.position += n;
        Ok(slice)
    }

    fn align(&mut self, n: usize) -> Result<(), CdrError> {
        let misalignment = (self.position - HEADER_LEN) % n;
        if misalignment != 0 {
            self.take(n - misalignment)?;
        }
        Ok(())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], CdrError> {
        self.align(N)?;
        let bytes: [u8; N] = self.take(N)?.try_into().expect("take returns N bytes");
        Ok(bytes)
    }

    /// A `uint8`.
    pub fn u8(&mut self) -> Result<u8, CdrError> {
        Ok(self.take(1)?[0])
    }

    /// A `bool`.
    pub fn bool(&mut self, field: &'static str) -> Result<bool, CdrError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(CdrError::InvalidBool { field, value }),
        }
    }

    /// A `uint32`.
    pub fn u32(&mut self) -> Result<u32, CdrError> {
        let bytes = self.array::<4>()?;
        Ok(if self.little_endian {
            u32::from_le_bytes(bytes)
        } else {
            u32::from_be_bytes(bytes)
        })
    }

    /// An `int32`.
    pub fn i32(&mut self) -> Result<i32, CdrError> {
        let bytes = self.array::<4>()?;
        Ok(if self.little_endian {
            i32::from_le_bytes(bytes)
        } else {
            i32::from_be_bytes(bytes)
        })
    }

    /// An `int8`.
    pub fn i8(&mut self) -> Result<i8, CdrError> {
        Ok(self.u8()? as i8)
    }

    /// A `uint16`.
    pub fn u16(&mut self) -> Result<u16, CdrError> {
        let bytes = self.array::<2>()?;
        Ok(if self.little_endian {
            u16::from_le_bytes(bytes)
        } else {
            u16::from_be_bytes(bytes)
        })
    }

    /// An `int16`.
    pub fn i16(&mut self) -> Result<i16, CdrError> {
        Ok(self.u16()? as i16)
    }

    /// A `uint64`.
    pub fn u64(&mut self) -> Result<u64, CdrError> {
        let bytes = self.array::<8>()?;
        Ok(if self.little_endian {
            u64::from_le_bytes(bytes)
        } else {
            u64::from_be_bytes(bytes)
        })
    }

    /// An `int64`.
    pub fn i64(&mut self) -> Result<i64, CdrError> {
        Ok(self.u64()? as i64)
    }

    /// A `float32`.
    pub fn f32(&mut self) -> Result<f32, CdrError> {
        Ok(f32::from_bits(self.u32()?))
    }

    /// A `float64`.
    pub fn f64(&mut self) -> Result<f64, CdrError> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A `wstring` (UTF-16 units, each in 32 bits), decoded; unpaired surrogates are refused.
    pub fn wstring(&mut self, field: &'static str) -> Result<String, CdrError> {
        let count = self.sequence_len(field, 4)?;
        let mut units = Vec::with_capacity(count);
        for _ in 0..count {
            let unit = self.u32()?;
            units.push(u16::try_from(unit).map_err(|_| CdrError::StringNotUtf8 { field })?);
        }
        String::from_utf16(&units).map_err(|_| CdrError::StringNotUtf8 { field })
    }

    /// A `string`, borrowed from the buffer.
    pub fn string(&mut self, field: &'static str) -> Result<&'a str, CdrError> {
        let len = self.u32()? as usize;
        if len == 0 {
            return Err(CdrError::StringNotTerminated { field });
        }
        self.check_count(field, len as u64, 1)?;
        let bytes = self.take(len)?;
        let (text, nul) = bytes.split_at(len - 1);
        if nul != [0] {
            return Err(CdrError::StringNotTerminated { field });
        }
        std::str::from_utf8(text).map_err(|_| CdrError::StringNotUtf8 { field })
    }

    /// A `uint8[]`, borrowed from the buffer (no copy, whatever its size).
    pub fn bytes(&mut self, field: &'static str) -> Result<&'a [u8], CdrError> {
        let len = self.u32()? as usize;
        self.check_count(field, len as u64, 1)?;
        self.take(len)
    }

    /// The element count of a sequence whose elements take at least `min_element_size` bytes,
    /// refused when the buffer cannot possibly hold that many (so no giant allocation follows).
    pub fn sequence_len(&mut self, field: &'static str, min_element_size: usize) -> Result<usize, CdrError> {
        let count = self.u32()?;
        self.check_count(field, u64::from(count), min_element_size)?;
        Ok(count as usize)
    }

    fn check_count(&self, field: &'static str, count: u64, element_size: usize) -> Result<(), CdrError> {
        if count.saturating_mul(element_size as u64) > self.remaining() as u64 {
            return Err(CdrError::LengthTooLarge {
                field,
                count,
                remaining: self.remaining(),
            });
        }
        Ok(())
    }
}

/// Reads a fixed array of `N` elements with `read`.
pub fn read_array<'a, T, const N: usize>(
    reader: &mut CdrReader<'a>,
    mut read: impl FnMut(&mut CdrReader<'a>) -> Result<T, CdrError>,
) -> Result<[T; N], CdrError> {
    let mut items = Vec::with_capacity(N);
    for _ in 0..N {
        items.push(read(reader)?);
    }
    Ok(items
        .try_into()
        .unwrap_or_else(|_: Vec<T>| unreachable!("exactly N elements were read")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(f: impl Fn(&mut dyn CdrSink)) -> Vec<u8> {
        let mut counter = SizeCounter::new();
        f(&mut counter);
        let mut buf = vec![0xAA; counter.len()];
        let mut writer = CdrWriter::new(&mut buf);
        f(&mut writer);
        assert_eq!(
            writer.len(),
            buf.len(),
            "size and bytes come from one description"
        );
        buf
    }

    #[test]
    fn alignment_is_relative_to_the_body() {
        let buf = written(|s| {
            s.u8(1);
            s.u32(2);
        });
        assert_eq!(buf, [0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn strings_carry_their_nul() {
        assert_eq!(
            written(|s| s.string("ab")),
            [0, 1, 0, 0, 3, 0, 0, 0, b'a', b'b', 0]
        );
        assert_eq!(written(|s| s.string("")), [0, 1, 0, 0, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn reader_round_trips_and_borrows() {
        let buf = written(|s| {
            s.string("map");
            s.bool(true);
            s.bytes(&[1, 2, 3]);
            s.i32(-5);
        });
        let mut r = CdrReader::new(&buf).unwrap();
        assert_eq!(r.string("f").unwrap(), "map");
        assert!(r.bool("b").unwrap());
        let data = r.bytes("data").unwrap();
        assert_eq!(data, [1, 2, 3]);
        assert!(
            std::ptr::eq(data.as_ptr(), buf[20..].as_ptr()),
            "borrowed, not copied"
        );
        assert_eq!(r.i32().unwrap(), -5);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn big_endian_is_read() {
        let buf = [0, 0, 0, 0, 0, 0, 0, 7];
        assert_eq!(CdrReader::new(&buf).unwrap().u32().unwrap(), 7);
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        assert!(matches!(CdrReader::new(&[0, 1]), Err(CdrError::Truncated { .. })));
        assert_eq!(
            CdrReader::new(&[0, 7, 0, 0]).unwrap_err(),
            CdrError::Encapsulation([0, 7])
        );
        let huge = [0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2];
        assert!(matches!(
            CdrReader::new(&huge).unwrap().bytes("data"),
            Err(CdrError::LengthTooLarge { .. })
        ));
        assert!(matches!(
            CdrReader::new(&huge).unwrap().sequence_len("fields", 16),
            Err(CdrError::LengthTooLarge { .. })
        ));
        let no_nul = [0, 1, 0, 0, 2, 0, 0, 0, b'a', b'b'];
        assert!(matches!(
            CdrReader::new(&no_nul).unwrap().string("s"),
            Err(CdrError::StringNotTerminated { .. })
        ));
        let zero_len = [0, 1, 0, 0, 0, 0, 0, 0];
        assert!(matches!(
            CdrReader::new(&zero_len).unwrap().string("s"),
            Err(CdrError::StringNotTerminated { .. })
        ));
        let bad_utf8 = [0, 1, 0, 0, 2, 0, 0, 0, 0xff, 0];
        assert!(matches!(
            CdrReader::new(&bad_utf8).unwrap().string("s"),
            Err(CdrError::StringNotUtf8 { .. })
        ));
        let bad_bool = [0, 1, 0, 0, 2];
        assert!(matches!(
            CdrReader::new(&bad_bool).unwrap().bool("b"),
            Err(CdrError::InvalidBool { .. })
        ));
    }
}
