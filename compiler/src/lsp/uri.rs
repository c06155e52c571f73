//! `file:` URIs ↔ paths, and the one spelling of a path the server keys its maps by.
//!
//! Only `file:` URIs name documents agc can check (an editor's untitled buffers have other
//! schemes: the server ignores them). Paths are made absolute and normalised lexically
//! ([`normal`]) so that the files a check reports having read (as the front ends spelled
//! them, `dir/./frag.yaml`) match the documents the editor opened.

use lsp_types::Uri;
use std::path::{Path, PathBuf};

/// The path a `file:` URI names, normalised; `None` for other schemes or a URI whose path
/// does not decode to UTF-8.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme()?.as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    let path = uri.path().as_estr().decode().into_string().ok()?;
    // `file:///C:/x` on Windows: the drive letter follows the leading slash.
    let path = match path.as_bytes() {
        [b'/', d, b':', ..] if cfg!(windows) && d.is_ascii_alphabetic() => &path[1..],
        _ => &path[..],
    };
    if path.is_empty() {
        return None;
    }
    Some(normal(Path::new(path)))
}

/// The `file:` URI of an absolute path: every byte but the unreserved ones and `/`
/// percent-encoded, so that any file name round-trips through [`to_path`].
pub fn from_path(path: &Path) -> Option<Uri> {
    let text = path.to_str()?.replace('\\', "/");
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else if b == b':' && cfg!(windows) {
            out.push(':');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.parse().ok()
}

/// The key of a file in the server's maps: the session's (one normalisation for both).
pub use crate::session::normal;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_round_trip_through_paths_with_any_name() {
        for p in [
            "/w/a b/x.yaml",
            "/w/ünï/%20.yaml",
            "/w/a#b?c.yaml",
            "/w/[x].yaml",
        ] {
            let uri = from_path(Path::new(p)).unwrap();
            assert_eq!(
                to_path(&uri).as_deref(),
                Some(Path::new(p)),
                "{}",
                uri.as_str()
            );
        }
        let uri: Uri = "file:///w/./a/../b%20c.yaml".parse().unwrap();
        assert_eq!(to_path(&uri).unwrap(), Path::new("/w/b c.yaml"));
        let untitled: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(to_path(&untitled), None);
    }
}
