//! The bounded reader: every file agc reads because a command line or a document names it
//! comes through [`read`] (or [`read_text`]), which
//!
//! - reads only a regular file, or `-` (standard input) where the caller allows it: a FIFO, a
//!   device (`/dev/zero`), a socket or a folder is refused at once (AGC017) instead of
//!   blocking until a writer comes or reading forever. The file is opened without blocking
//!   (`O_NONBLOCK`: opening a FIFO with no writer would wait) and its type is taken from the
//!   open handle, so a file swapped for a FIFO between a check and the open is refused too;
//! - reads at most one byte past the size limit (AGC012, naming the limit and the flag that
//!   raises it), whatever the file's stated size: a file that grows while it is read, or a
//!   `/proc` file that states 0 bytes, stops there too.
//!
//! Decision: the limit is one number for every input of a command (`--max-file-size`,
//! default [`DEFAULT_MAX_BYTES`]), rather than one per kind of input: a plan, a script and a
//! document are all JSON or YAML that agc loads whole, so they cost alike.

use crate::diag::Diagnostic;
use std::io::Read;
use std::path::Path;

pub use crate::source::limits::DEFAULT_MAX_BYTES;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file; says what it is (`a FIFO (named pipe)`, `a folder`, ...).
    NotRegular(&'static str),
    /// More than the limit: `size` when the file states it, `None` for a stream.
    TooLarge { limit: usize, size: Option<u64> },
    /// The operating system's refusal (missing, unreadable, not UTF-8 for [`read_text`]).
    Io(std::io::Error),
}

impl ReadError {
    /// The diagnostic code: AGC017 not a regular file, AGC012 too large, AGC001 unreadable.
    pub fn code(&self) -> &'static str {
        match self {
            ReadError::NotRegular(_) => "AGC017",
            ReadError::TooLarge { .. } => "AGC012",
            ReadError::Io(_) => "AGC001",
        }
    }

    /// The message for the file shown as `display`.
    pub fn message(&self, display: &str) -> String {
        match self {
            ReadError::NotRegular(what) => format!(
                "`{display}` is {what}, not a regular file; agc reads regular files, or `-` for \
                 standard input"
            ),
            ReadError::TooLarge {
                limit,
                size: Some(size),
            } => format!("`{display}` is {size} bytes, more than the limit of {limit} bytes"),
            ReadError::TooLarge { limit, size: None } => {
                format!("`{display}` holds more than the limit of {limit} bytes")
            }
            ReadError::Io(e) => format!("cannot read `{display}`: {e}"),
        }
    }

    /// The coded diagnostic for the file shown as `display` (no span: the caller places it).
    pub fn diagnostic(&self, display: &str) -> Diagnostic {
        let d = Diagnostic::error(self.code(), self.message(display));
        match self {
            ReadError::TooLarge { .. } => {
                d.with_help("`--max-file-size BYTES` raises the limit".to_string())
            }
            ReadError::NotRegular(_) => d.with_help(
                "copy the data into a file, or pipe it to `-` (standard input)".to_string(),
            ),
            ReadError::Io(_) => d,
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// Whether a command-line path is `-`: standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads `path` whole, at most `limit` bytes: standard input for `-`, else a regular file.
pub fn read(path: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
    if is_stdin(path) {
        return read_stream(&mut std::io::stdin().lock(), limit);
    }
    read_file(path, limit)
}

/// As [`read`], as UTF-8 text (invalid UTF-8 is an [`ReadError::Io`] of kind `InvalidData`).
pub fn read_text(path: &Path, limit: usize) -> Result<String, ReadError> {
    String::from_utf8(read(path, limit)?).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 (byte {at})"),
        ))
    })
}

/// Reads the regular file `path` (never standard input, whatever its name), at most `limit`
/// bytes.
pub fn read_file(path: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
    let file = open(path)?;
    let meta = file.metadata()?;
    if let Some(what) = not_regular(&meta.file_type()) {
        return Err(ReadError::NotRegular(what));
    }
    if meta.len() > limit as u64 {
        return Err(ReadError::TooLarge {
            limit,
            size: Some(meta.len()),
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    let cap = (limit as u64).saturating_add(1);
    (&file).take(cap).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        // It grew while read (or states no size, as `/proc` files do).
        return Err(ReadError::TooLarge { limit, size: None });
    }
    Ok(bytes)
}

/// Reads a stream whole, at most one byte past `limit` (then [`ReadError::TooLarge`]).
pub fn read_stream(reader: &mut dyn Read, limit: usize) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    let cap = (limit as u64).saturating_add(1);
    reader.take(cap).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(ReadError::TooLarge { limit, size: None });
    }
    Ok(bytes)
}

/// Opens for reading without waiting for a FIFO's writer.
#[cfg(unix)]
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    // Without O_NONBLOCK, ask first (a file swapped in between is not caught here).
    if let Some(what) = not_regular(&std::fs::metadata(path)?.file_type()) {
        return Err(std::io::Error::other(format!("it is {what}")));
    }
    std::fs::File::open(path)
}

/// What a file that is not regular is, for the message; `None` for a regular file.
pub fn not_regular(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read(&p, 5).unwrap(), b"12345");
        let e = read(&p, 4).unwrap_err();
        assert_eq!(e.code(), "AGC012");
        assert_eq!(
            e.message("a.json"),
            "`a.json` is 5 bytes, more than the limit of 4 bytes"
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_folders_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let e = read(Path::new("/dev/zero"), 1024).unwrap_err();
        assert_eq!(
            (e.code(), e.message("z").contains("character device")),
            ("AGC017", true)
        );
        let e = read(dir.path(), 1024).unwrap_err();
        assert!(e.message("d").contains("a folder"), "{}", e.message("d"));
        // A FIFO with no writer: opening it for reading would wait forever.
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read(&fifo, 1024).unwrap_err();
            assert!(e.message("f").contains("FIFO"), "{}", e.message("f"));
        }
    }

    #[test]
    fn a_stream_stops_one_byte_past_the_limit() {
        let mut endless = std::io::repeat(b'x');
        let e = read_stream(&mut endless, 1000).unwrap_err();
        assert_eq!(
            e.message("<stdin>"),
            "`<stdin>` holds more than the limit of 1000 bytes"
        );
        assert_eq!(read_stream(&mut &b"abc"[..], 3).unwrap(), b"abc");
    }

    #[test]
    fn a_missing_file_is_agc001() {
        let e = read(Path::new("/no/such/file"), 10).unwrap_err();
        assert_eq!(e.code(), "AGC001");
    }
}
