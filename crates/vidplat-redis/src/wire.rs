//! The quota store's connections to Redis: TCP, TLS (`rediss://`, rustls with
//! ring and the platform's verifier, as the HTTP clients) or a unix socket,
//! with every reply read within bounds.
//!
//! The `redis` crate reads a reply whole before it looks at it: a bulk string
//! announced as 1 GiB is buffered as it arrives, and a line with no end grows
//! without limit. [`Bounded`] sits between the socket and the crate's decoder
//! and follows the RESP framing byte by byte (types, lengths, counts), so a
//! reply that announces or grows past [`MAX_REPLY_BYTES`] or
//! [`MAX_REPLY_VALUES`] ends the connection before the decoder holds more than
//! that. The store's own replies are a few integers.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The most bytes one reply may take, framing included.
pub(crate) const MAX_REPLY_BYTES: usize = 64 * 1024;
/// The most values one reply may hold, nested ones included.
pub(crate) const MAX_REPLY_VALUES: u64 = 1024;

/// How a reply from Redis broke the bounds or the framing it is read within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutOfBounds {
    /// The first byte of a value is not a RESP type.
    NotAType(u8),
    /// A blob goes on past the length its header gave.
    BlobPastItsLength,
    /// A length or number of over 20 digits.
    TooManyDigits,
    /// A line ends in `\r` without `\n`.
    BadLineEnd,
    /// A length that is not a number.
    LengthNotANumber,
    /// A blob announced longer than a whole reply may be.
    Announced(u64),
    /// A reply past [`MAX_REPLY_BYTES`].
    TooLarge,
    /// A reply of over [`MAX_REPLY_VALUES`] values.
    TooManyValues,
}

impl std::fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutOfBounds::NotAType(byte) => {
                write!(f, "a reply from Redis starts with byte {byte:#04x}, not a RESP type")
            }
            OutOfBounds::BlobPastItsLength => f.write_str("a blob from Redis is longer than its header says"),
            OutOfBounds::TooManyDigits => f.write_str("a length or number from Redis has over 20 digits"),
            OutOfBounds::BadLineEnd => f.write_str("a line from Redis ends in `\\r` without `\\n`"),
            OutOfBounds::LengthNotANumber => f.write_str("a length from Redis is not a number"),
            OutOfBounds::Announced(length) => write!(
                f,
                "a reply from Redis announces {length} bytes, over the {MAX_REPLY_BYTES} allowed"
            ),
            OutOfBounds::TooLarge => write!(f, "a reply from Redis is over {MAX_REPLY_BYTES} bytes"),
            OutOfBounds::TooManyValues => write!(f, "a reply from Redis holds over {MAX_REPLY_VALUES} values"),
        }
    }
}

impl std::error::Error for OutOfBounds {}

/// Where the scanner is in the reply it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Part {
    /// The type byte of the next value.
    #[default]
    Type,
    /// A header or simple line (its type byte), up to `\r\n`.
    Line(u8),
    /// The `\n` of a line's `\r\n`.
    LineEnd(u8),
    /// The bytes of a blob, then its `\r\n`.
    Blob(u64),
}

/// A blob with `left` bytes to come; none left, its own `\r\n` follows, read as an empty line.
fn blob(left: u64) -> Part {
    if left == 0 {
        Part::Line(b'\0')
    } else {
        Part::Blob(left)
    }
}

/// The RESP framing of the bytes read so far, and the bounds it keeps.
#[derive(Debug, Default)]
pub(crate) struct Framing {
    part: Part,
    /// The current line's bytes (bounded: a header is a number).
    line: Vec<u8>,
    /// Values still to read in the current reply, a blob counted at its header
    /// (0 at a type byte: between replies).
    pending: u64,
    /// Values announced in the current reply so far.
    values: u64,
    /// Bytes of the current reply so far.
    bytes: usize,
}

impl Framing {
    /// Follows `data`; an error names the bound a reply broke (or its bad framing).
    pub(crate) fn scan(&mut self, data: &[u8]) -> Result<(), OutOfBounds> {
        for &byte in data {
            if self.pending == 0 && self.part == Part::Type {
                // A new reply.
                self.pending = 1;
                self.values = 1;
                self.bytes = 0;
            }
            self.grow(1)?;
            match self.part {
                // A byte of the blob (its length was checked in its header).
                Part::Blob(left) => self.part = blob(left - 1),
                Part::Type => {
                    if !b"+-:$*_,#(=!%~>|".contains(&byte) {
                        return Err(OutOfBounds::NotAType(byte));
                    }
                    self.part = Part::Line(byte);
                    self.line.clear();
                }
                Part::Line(kind) => {
                    if byte == b'\r' {
                        self.part = Part::LineEnd(kind);
                    } else if kind == b'\0' {
                        return Err(OutOfBounds::BlobPastItsLength);
                    } else if b"+-,(".contains(&kind) {
                        // A simple line: only its length matters (bounded by `grow`).
                    } else {
                        if self.line.len() >= 20 {
                            return Err(OutOfBounds::TooManyDigits);
                        }
                        self.line.push(byte);
                    }
                }
                Part::LineEnd(kind) => {
                    if byte != b'\n' {
                        return Err(OutOfBounds::BadLineEnd);
                    }
                    self.end_line(kind)?;
                }
            }
        }
        Ok(())
    }

    fn grow(&mut self, by: usize) -> Result<(), OutOfBounds> {
        self.bytes = self.bytes.saturating_add(by);
        if self.bytes > MAX_REPLY_BYTES {
            return Err(OutOfBounds::TooLarge);
        }
        Ok(())
    }

    /// A line ended: the value it heads (or is) counts, and its children are owed.
    fn end_line(&mut self, kind: u8) -> Result<(), OutOfBounds> {
        self.part = Part::Type;
        if kind == b'\0' {
            // The end of a blob: its value was counted at its header.
            return Ok(());
        }
        self.pending -= 1;
        let number = || -> Result<i64, OutOfBounds> {
            std::str::from_utf8(&self.line)
                .ok()
                .and_then(|text| text.parse::<i64>().ok())
                .ok_or(OutOfBounds::LengthNotANumber)
        };
        match kind {
            b'$' | b'=' | b'!' => {
                // A negative length: nil, no bytes follow.
                let Ok(length) = u64::try_from(number()?) else {
                    return Ok(());
                };
                if length > MAX_REPLY_BYTES as u64 {
                    return Err(OutOfBounds::Announced(length));
                }
                self.part = blob(length);
            }
            b'*' | b'~' | b'>' | b'%' | b'|' => {
                let Ok(count) = u64::try_from(number()?) else {
                    return Ok(());
                };
                let per = if matches!(kind, b'%' | b'|') { 2 } else { 1 };
                let mut owed = count.saturating_mul(per);
                if kind == b'|' {
                    // An attribute comes before the value it describes.
                    owed = owed.saturating_add(1);
                }
                self.values = self.values.saturating_add(owed);
                if self.values > MAX_REPLY_VALUES {
                    return Err(OutOfBounds::TooManyValues);
                }
                self.pending += owed;
            }
            b':' => {
                number()?;
            }
            _ => {}
        }
        Ok(())
    }
}

pin_project_lite::pin_project! {
    /// A connection whose replies are read within bounds (see the module).
    pub(crate) struct Bounded<S> {
        #[pin]
        inner: S,
        framing: Framing,
        broken: Option<OutOfBounds>,
    }
}

impl<S> Bounded<S> {
    pub(crate) fn new(inner: S) -> Self {
        Self {
            inner,
            framing: Framing::default(),
            broken: None,
        }
    }
}

impl<S: AsyncRead> AsyncRead for Bounded<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        if let Some(broken) = *this.broken {
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, broken)));
        }
        let before = buf.filled().len();
        std::task::ready!(this.inner.poll_read(cx, buf))?;
        if let Err(broken) = this.framing.scan(&buf.filled()[before..]) {
            // Nothing of this read reaches the decoder, and nothing after it.
            buf.set_filled(before);
            *this.broken = Some(broken);
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, broken)));
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite> AsyncWrite for Bounded<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A socket to Redis: TCP, TLS over TCP, or a unix socket.
pub(crate) trait Socket: AsyncRead + AsyncWrite + Unpin + Send {}
impl<S: AsyncRead + AsyncWrite + Unpin + Send> Socket for S {}

/// Opens a socket to `addr` (the caller bounds the time it may take).
pub(crate) async fn open(addr: &redis::ConnectionAddr) -> io::Result<Bounded<Box<dyn Socket>>> {
    let socket: Box<dyn Socket> = match addr {
        redis::ConnectionAddr::Tcp(host, port) => Box::new(tcp(host, *port).await?),
        redis::ConnectionAddr::TcpTls { host, port, .. } => {
            let config = vidplat_core::__private::tls_config().map_err(io::Error::other)?;
            let name = rustls::pki_types::ServerName::try_from(host.clone()).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("`{host}` cannot name a TLS server: {e}"),
                )
            })?;
            let stream = tcp(host, *port).await?;
            let tls = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
                .connect(name, stream)
                .await
                .map_err(|e| io::Error::new(e.kind(), format!("TLS with {host}:{port}: {e}")))?;
            Box::new(tls)
        }
        #[cfg(unix)]
        redis::ConnectionAddr::Unix(path) => Box::new(
            tokio::net::UnixStream::connect(path)
                .await
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?,
        ),
        #[cfg(not(unix))]
        redis::ConnectionAddr::Unix(_) => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "unix sockets are not available here",
            ))
        }
        other => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("unsupported address {other}"),
            ))
        }
    };
    Ok(Bounded::new(socket))
}

async fn tcp(host: &str, port: u16) -> io::Result<tokio::net::TcpStream> {
    let stream = tokio::net::TcpStream::connect((host, port))
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("{host}:{port}: {e}")))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(parts: &[&[u8]]) -> Result<Framing, OutOfBounds> {
        let mut framing = Framing::default();
        for part in parts {
            framing.scan(part)?;
        }
        Ok(framing)
    }

    #[test]
    fn every_reply_the_store_gets_passes_whole_and_in_pieces() {
        let replies: &[&[u8]] = &[
            b"+OK\r\n",
            b"-NOSCRIPT No matching script. Please use EVAL.\r\n",
            b":-5\r\n",
            b"*4\r\n:4\r\n:-5\r\n:0\r\n:0\r\n",
            b"$8\r\nreleased\r\n",
            b"$0\r\n\r\n",
            b"$-1\r\n",
            b"*-1\r\n",
            b"*3\r\n$7\r\nmessage\r\n$20\r\n{vidplat:a}:released\r\n$8\r\nreleased\r\n",
            b"%1\r\n+server\r\n+redis\r\n",
            b"|1\r\n+ttl\r\n:3\r\n:7\r\n",
            b"_\r\n",
            b"#t\r\n",
            b",1.5\r\n",
            b"=15\r\ntxt:Some string\r\n",
        ];
        let all: Vec<u8> = replies.concat();
        let framing = scan(&[&all]).unwrap();
        assert_eq!((framing.pending, framing.part), (0, Part::Type), "between replies");
        // One byte at a time: the framing carries over every boundary.
        let bytes: Vec<&[u8]> = all.chunks(1).collect();
        let framing = scan(&bytes).unwrap();
        assert_eq!((framing.pending, framing.part), (0, Part::Type));
    }

    #[test]
    fn a_reply_over_its_bounds_is_refused_at_its_header() {
        let error = scan(&[b"$1073741824\r\n"]).unwrap_err();
        assert_eq!(error, OutOfBounds::Announced(1_073_741_824));
        assert_eq!(
            error.to_string(),
            "a reply from Redis announces 1073741824 bytes, over the 65536 allowed"
        );
        assert_eq!(scan(&[b"*1000000\r\n"]).unwrap_err(), OutOfBounds::TooManyValues);
        assert_eq!(scan(&[b"%600\r\n"]).unwrap_err(), OutOfBounds::TooManyValues);
        // A line that never ends, in pieces.
        let line = vec![b'x'; 8192];
        let mut framing = Framing::default();
        framing.scan(b"-ERR ").unwrap();
        let error = (0..100).find_map(|_| framing.scan(&line).err()).unwrap();
        assert_eq!(error, OutOfBounds::TooLarge);
        assert_eq!(error.to_string(), "a reply from Redis is over 65536 bytes");
        // Many small values that add up.
        let mut many = b"*1000\r\n".to_vec();
        for _ in 0..1000 {
            many.extend_from_slice(b"$100\r\n");
            many.extend_from_slice(&[b'y'; 100]);
            many.extend_from_slice(b"\r\n");
        }
        assert_eq!(scan(&[&many]).unwrap_err(), OutOfBounds::TooLarge);
        // Framing that is not RESP.
        assert_eq!(
            scan(&[b"HTTP/1.1 200 OK\r\n"]).unwrap_err(),
            OutOfBounds::NotAType(b'H')
        );
        assert_eq!(scan(&[b"$3\r\nabcd\r\n"]).unwrap_err(), OutOfBounds::BlobPastItsLength);
        assert_eq!(
            scan(&[b":123456789012345678901234\r\n"]).unwrap_err(),
            OutOfBounds::TooManyDigits
        );
        assert_eq!(scan(&[b"*x\r\n"]).unwrap_err(), OutOfBounds::LengthNotANumber);
    }
}
