//! `agc lsp`'s standard input and output: LSP's framing (`Content-Length` headers, then one
//! JSON-RPC message), with bounds on what a client can make the server hold.
//!
//! `lsp_server`'s own stdio transport reads a header line for as long as it has no newline,
//! and allocates whatever a `Content-Length` says before reading a byte of it: `agc lsp <
//! /dev/zero` and a header `Content-Length: 99999999999` aborted the process on memory
//! (issue 47). Here a header line holds at most [`MAX_HEADER_LINE`] bytes and a message at
//! most [`message_limit`] (twice `--max-file-size`: a document's text arrives inside a JSON
//! string), read as it arrives; past either, the reader stops with an error that names the
//! limit, and the server ends (exit 1, the error on standard error). A message that is not
//! JSON-RPC ends it too, without its text echoed. Messages are `lsp_server`'s type, written
//! by `lsp_server`.
//!
//! The threads and channels are `lsp_server`'s design: a reader and a writer, each handing
//! over one message at a time (rendezvous channels), so the client cannot queue messages
//! ahead of the server.

use crossbeam_channel::{Sender, bounded};
use lsp_server::{Connection, Message};
use std::io::{self, BufRead, Read};
use std::thread::{self, JoinHandle};

/// Longest header line read (`Content-Length: …` and its like take a few dozen bytes).
pub(super) const MAX_HEADER_LINE: usize = 8 << 10;

/// The largest message read: twice the largest file (`--max-file-size`), since a document's
/// text arrives escaped inside a JSON string; at least 1 MiB.
pub(super) fn message_limit(max_file_bytes: usize) -> usize {
    max_file_bytes.saturating_mul(2).max(1 << 20)
}

/// The reader and writer threads of [`stdio`].
pub(super) struct Io {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl Io {
    /// Waits for both threads (after the connection is dropped): the reader's error first.
    pub(super) fn join(self) -> io::Result<()> {
        let gone = |what: &str| io::Error::other(format!("the {what} thread panicked"));
        let read = self.reader.join().unwrap_or_else(|_| Err(gone("reader")));
        let write = self.writer.join().unwrap_or_else(|_| Err(gone("writer")));
        read.and(write)
    }
}

/// A connection over standard input and output, reading messages of at most `limit` bytes.
pub(super) fn stdio(limit: usize) -> io::Result<(Connection, Io)> {
    let (to_writer, from_server) = bounded::<Message>(0);
    let writer = thread::Builder::new()
        .name("agc-lsp-writer".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            from_server.into_iter().try_for_each(|m| m.write(&mut out))
        })?;
    let (to_server, from_reader) = bounded::<Message>(0);
    let reader = thread::Builder::new()
        .name("agc-lsp-reader".into())
        .spawn(move || read_into(&mut io::stdin().lock(), &to_server, limit))?;
    let conn = Connection {
        sender: to_writer,
        receiver: from_reader,
    };
    Ok((conn, Io { reader, writer }))
}

/// Hands every message of `input` to the server until `exit`, the input's end, or the
/// server is gone.
fn read_into(input: &mut impl BufRead, to: &Sender<Message>, limit: usize) -> io::Result<()> {
    while let Some(msg) = read_message(input, limit)? {
        let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
        if to.send(msg).is_err() || exit {
            break;
        }
    }
    Ok(())
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Reads one message of at most `limit` bytes; `None` at the end of the input between
/// messages.
pub(super) fn read_message(input: &mut impl BufRead, limit: usize) -> io::Result<Option<Message>> {
    let mut size = None;
    let mut first = true;
    loop {
        let line = match read_line(input)? {
            None if first => return Ok(None),
            None => return Err(invalid("the input ended inside a message's headers".into())),
            Some(line) => line,
        };
        first = false;
        let Some(line) = line.strip_suffix(b"\r\n") else {
            return Err(invalid(format!(
                "a header line does not end with CRLF: {:?}",
                String::from_utf8_lossy(&line[..line.len().min(80)])
            )));
        };
        if line.is_empty() {
            break;
        }
        let text = String::from_utf8_lossy(line);
        let Some((name, value)) = text.split_once(": ") else {
            return Err(invalid(format!("a malformed header line: {text:?}")));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            let n: usize = value
                .trim()
                .parse()
                .map_err(|_| invalid(format!("a Content-Length that is no size: {value:?}")))?;
            if n > limit {
                return Err(invalid(format!(
                    "a message of {n} bytes is over the limit of {limit} bytes (twice \
                     `--max-file-size BYTES`, which raises it)"
                )));
            }
            size = Some(n);
        }
    }
    let size = size.ok_or_else(|| invalid("a message without a Content-Length header".into()))?;
    // Read as it arrives: the buffer grows with what is read, not with what was announced.
    let mut body = Vec::new();
    input.take(size as u64).read_to_end(&mut body)?;
    if body.len() < size {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the input ended {} bytes into a message of {size}",
                body.len()
            ),
        ));
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| invalid(format!("a message that is not JSON-RPC: {e}")))
}

/// One line of at most [`MAX_HEADER_LINE`] bytes, with its newline; `None` at the end of the
/// input (a last line without a newline is returned as it is).
fn read_line(input: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if line.len() + take > MAX_HEADER_LINE {
            return Err(invalid(format!(
                "a header line longer than {MAX_HEADER_LINE} bytes"
            )));
        }
        line.extend_from_slice(&buf[..take]);
        input.consume(take);
        if done {
            return Ok(Some(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_HEADER_LINE, read_message};
    use lsp_server::Message;
    use std::io::Cursor;

    fn read(input: &[u8], limit: usize) -> Result<Option<Message>, String> {
        read_message(&mut Cursor::new(input), limit).map_err(|e| e.to_string())
    }

    #[test]
    fn a_framed_message_is_read_and_the_end_is_none() {
        let body = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let text = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let mut input = Cursor::new(text.into_bytes());
        let msg = read_message(&mut input, 1 << 20).unwrap();
        assert!(matches!(msg, Some(Message::Notification(n)) if n.method == "exit"));
        assert!(read_message(&mut input, 1 << 20).unwrap().is_none());
    }

    #[test]
    fn a_size_over_the_limit_is_refused_before_anything_is_allocated() {
        let err = read(b"Content-Length: 99999999999\r\n\r\n", 1 << 20).unwrap_err();
        assert!(
            err.contains("99999999999 bytes is over the limit of 1048576"),
            "{err}"
        );
    }

    #[test]
    fn a_line_that_never_ends_is_refused_at_the_line_limit() {
        let err = read(&vec![0u8; 4 * MAX_HEADER_LINE], 1 << 20).unwrap_err();
        assert!(err.contains("longer than 8192 bytes"), "{err}");
    }

    #[test]
    fn short_input_and_bad_headers_are_errors() {
        for (input, says) in [
            (
                &b"Content-Length: 10\r\n\r\n{}"[..],
                "ended 2 bytes into a message of 10",
            ),
            (b"Content-Length: x\r\n\r\n", "no size"),
            (b"Content-Type: a\r\n\r\n{}", "without a Content-Length"),
            (b"Content-Length: 2\n\n{}", "does not end with CRLF"),
            (b"Content-Length: 2\r\n", "inside a message's headers"),
            (b"Content-Length: 2\r\n\r\n[]", "not JSON-RPC"),
        ] {
            let err = read(input, 1 << 20).unwrap_err();
            assert!(err.contains(says), "{err}");
        }
    }
}
