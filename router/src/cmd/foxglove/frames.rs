//! What the Foxglove server sends one client, cut into whole WebSocket frames (RFC 6455 §5.2)
//! so that [`super::front`] can queue them and drop a stale data message without corrupting
//! the stream. Only the server-to-client direction is read; frames are kept as raw bytes
//! (header and payload) and forwarded unchanged.
//!
//! A frame is a *data message* (droppable) when it is a final, unfragmented binary frame whose
//! first payload byte is the Foxglove protocol's `MessageData` opcode (`0x01`, spec
//! "Message Data"). Everything else (JSON control messages such as `advertise`, `ping`,
//! `close`, fragments) must reach the client in order and is never dropped.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt};

/// The Foxglove protocol's binary opcode of a message on a subscribed channel.
const MESSAGE_DATA: u8 = 0x01;
/// WebSocket opcode of a binary frame.
const BINARY: u8 = 0x2;
/// The largest frame accepted from the server: far above a PointCloud2, a guard against
/// reading garbage as a length.
const MAX_FRAME: u64 = 1 << 30;
/// The largest HTTP response head accepted from the server.
const MAX_HEAD: usize = 16 * 1024;

/// One frame as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Header and payload, unchanged.
    pub bytes: Vec<u8>,
    /// A `MessageData` frame: may be dropped when the client falls behind.
    pub data: bool,
}

/// Reads the server's HTTP response head (up to and including the empty line); true when it
/// accepts the upgrade (`101`), after which frames follow.
pub async fn read_response_head<R: AsyncBufRead + Unpin>(reader: &mut R) -> io::Result<(Vec<u8>, bool)> {
    let mut head = Vec::new();
    loop {
        let start = head.len();
        let n = reader.read_until(b'\n', &mut head).await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed before answering",
            ));
        }
        if head.len() > MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the server's response head is too long",
            ));
        }
        if &head[start..] == b"\r\n" {
            break;
        }
    }
    let upgraded = head.starts_with(b"HTTP/1.1 101");
    Ok((head, upgraded))
}

/// Reads one frame; `None` at a clean end of stream between frames.
pub async fn read_frame<R: AsyncRead + Unpin>(reader: &mut R) -> io::Result<Option<Frame>> {
    let mut first = [0u8; 2];
    match reader.read_exact(&mut first).await {
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(err) => return Err(err),
    }
    let fin = first[0] & 0x80 != 0;
    let opcode = first[0] & 0x0f;
    let masked = first[1] & 0x80 != 0;
    let mut bytes = first.to_vec();
    let len = match first[1] & 0x7f {
        126 => {
            let mut ext = [0u8; 2];
            reader.read_exact(&mut ext).await?;
            bytes.extend_from_slice(&ext);
            u64::from(u16::from_be_bytes(ext))
        }
        127 => {
            let mut ext = [0u8; 8];
            reader.read_exact(&mut ext).await?;
            bytes.extend_from_slice(&ext);
            u64::from_be_bytes(ext)
        }
        short => u64::from(short),
    };
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes from the server"),
        ));
    }
    if masked {
        let mut mask = [0u8; 4];
        reader.read_exact(&mut mask).await?;
        bytes.extend_from_slice(&mask);
    }
    let header = bytes.len();
    bytes.resize(header + len as usize, 0);
    reader.read_exact(&mut bytes[header..]).await?;
    // A masked payload's first byte is not the opcode as sent; servers never mask (RFC 6455
    // §5.1), so such a frame is simply never treated as data.
    let data = fin && opcode == BINARY && !masked && bytes.get(header) == Some(&MESSAGE_DATA);
    Ok(Some(Frame { bytes, data }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(first: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![first];
        match payload.len() {
            n if n < 126 => out.push(n as u8),
            n if n <= 0xffff => {
                out.push(126);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                out.push(127);
                out.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        out.extend_from_slice(payload);
        out
    }

    #[tokio::test]
    async fn frames_of_every_length_form_come_back_whole_and_classified() {
        let big = vec![MESSAGE_DATA; 70_000];
        let mut stream = Vec::new();
        stream.extend(frame(0x81, br#"{"op":"advertise"}"#));
        stream.extend(frame(0x82, &[MESSAGE_DATA, 0, 0, 0, 0]));
        stream.extend(frame(0x82, &big));
        stream.extend(frame(0x82, &vec![0x02; 300])); // binary, but a `Time` message
        stream.extend(frame(0x02, &[MESSAGE_DATA])); // a first fragment: never dropped
        let mut reader = &stream[..];
        let mut kinds = Vec::new();
        let mut total = 0;
        while let Some(frame) = read_frame(&mut reader).await.unwrap() {
            total += frame.bytes.len();
            kinds.push(frame.data);
        }
        assert_eq!(kinds, [false, true, true, false, false]);
        assert_eq!(total, stream.len());
    }

    #[tokio::test]
    async fn a_truncated_frame_is_an_error_and_a_huge_length_is_refused() {
        let mut cut = frame(0x82, &[MESSAGE_DATA; 10]);
        cut.truncate(6);
        assert!(read_frame(&mut &cut[..]).await.is_err());
        let mut huge = vec![0x82, 127];
        huge.extend_from_slice(&u64::MAX.to_be_bytes());
        let err = read_frame(&mut &huge[..]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }

    #[tokio::test]
    async fn the_response_head_ends_at_the_empty_line() {
        let input = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x00";
        let mut reader = tokio::io::BufReader::new(&input[..]);
        let (head, upgraded) = read_response_head(&mut reader).await.unwrap();
        assert!(upgraded);
        assert_eq!(head.len(), input.len() - 2);
        let refused = b"HTTP/1.1 400 Bad Request\r\n\r\n";
        let (_, upgraded) = read_response_head(&mut tokio::io::BufReader::new(&refused[..]))
            .await
            .unwrap();
        assert!(!upgraded);
    }
}
