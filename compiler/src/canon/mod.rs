//! Canonical JSON (RFC 8785 JCS) and the AGS digests built on it.
//!
//! AGS 1.0.1 §3.3 defines the canonical form of a document as its RFC 8785 serialization, and
//! both `graph_digest` (run records, resume checks) and `subgraph.ref.integrity` as `sha256-`
//! followed by the standard, padded base64 of SHA-256 over those bytes. What is hashed is the
//! whole document exactly as loaded (YAML and JSON forms of the same data hash alike); no field
//! is removed first: a graph document has no `graph_digest` member of its own, the field lives
//! in run records, and the reference libraries hash the loaded object as is.
//!
//! * [`to_jcs`] serializes a [`serde_json::Value`]; [`jcs`] holds the details and the decisions
//!   (numbers beyond 2^53, key order, escaping).
//! * [`graph_digest`] and [`verify_integrity`] hash without building the canonical text in
//!   memory, so a 100k-node document costs one pass and a small buffer.
//!
//! Every function is iterative: nesting depth costs heap, never stack.

mod error;
pub mod jcs;
mod number;

pub use error::{CanonError, DIGEST_PREFIX};
pub use jcs::{to_jcs, write_jcs};
pub use number::format_number;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The AGS digest of `value`: `sha256-` + base64(SHA-256(JCS bytes)).
pub fn graph_digest<V: jcs::Json>(value: &V) -> Result<String, CanonError> {
    let hash = sha256_of_jcs(value)?;
    Ok(format!("{DIGEST_PREFIX}{}", STANDARD.encode(hash)))
}

/// Checks `value` against a `subgraph.ref.integrity` string. `Ok(false)` is a mismatch (AGS
/// RT051); `Err` means the value has no canonical form or `expected` is not a SHA-256 digest.
/// The payload is compared as decoded bytes, so it must be canonical padded base64.
pub fn verify_integrity<V: jcs::Json>(value: &V, expected: &str) -> Result<bool, CanonError> {
    let want = parse_digest(expected)?;
    Ok(sha256_of_jcs(value)? == want)
}

/// Decodes an AGS digest string into its 32 hash bytes.
pub fn parse_digest(digest: &str) -> Result<[u8; 32], CanonError> {
    let Some(payload) = digest.strip_prefix(DIGEST_PREFIX) else {
        return Err(CanonError::UnsupportedAlgorithm {
            found: digest.to_string(),
        });
    };
    let malformed = |reason: String| CanonError::MalformedDigest {
        found: digest.to_string(),
        reason,
    };
    let bytes = STANDARD
        .decode(payload)
        .map_err(|e| malformed(format!("bad base64: {e}")))?;
    <[u8; 32]>::try_from(bytes.as_slice())
        .map_err(|_| malformed(format!("{} bytes instead of 32", bytes.len())))
}

/// SHA-256 over the JCS bytes of `value`, streamed through a small buffer.
fn sha256_of_jcs<V: jcs::Json>(value: &V) -> Result<[u8; 32], CanonError> {
    let mut sink = HashSink {
        hasher: Sha256::new(),
        buf: String::with_capacity(HashSink::CAP),
    };
    jcs::write_to(value, &mut sink)?;
    sink.hasher.update(sink.buf.as_bytes());
    Ok(sink.hasher.finalize().into())
}

/// Buffers canonical text and feeds it to the hasher in blocks.
struct HashSink {
    hasher: Sha256,
    buf: String,
}

impl HashSink {
    const CAP: usize = 64 * 1024;
}

impl jcs::Sink for HashSink {
    fn put(&mut self, s: &str) {
        if self.buf.len() + s.len() > Self::CAP {
            self.hasher.update(self.buf.as_bytes());
            self.buf.clear();
        }
        if s.len() > Self::CAP {
            self.hasher.update(s.as_bytes());
        } else {
            self.buf.push_str(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn digest_is_sha256_of_the_canonical_bytes() {
        let v = json!({"b": 2, "a": [1.0, "x"]});
        let text = to_jcs(&v).unwrap();
        assert_eq!(text, r#"{"a":[1,"x"],"b":2}"#);
        let expected = format!(
            "sha256-{}",
            STANDARD.encode(Sha256::digest(text.as_bytes()))
        );
        assert_eq!(graph_digest(&v).unwrap(), expected);
        // Key order and number spelling do not change the digest.
        let w: Value = serde_json::from_str(r#"{"a":[1e0,"x"],"b":2.0}"#).unwrap();
        assert_eq!(graph_digest(&w).unwrap(), expected);
        assert_ne!(
            graph_digest(&json!({"b": 3, "a": [1, "x"]})).unwrap(),
            expected
        );
    }

    #[test]
    fn known_sha256_of_the_empty_object() {
        // SHA-256("{}") = 44136fa3...; base64 of those bytes.
        assert_eq!(
            graph_digest(&json!({})).unwrap(),
            "sha256-RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o="
        );
    }

    #[test]
    fn streaming_matches_the_string_for_large_values() {
        // Larger than the sink's buffer, with one string larger than the buffer on its own.
        let big: Vec<Value> = (0..20_000)
            .map(|i| json!({"i": i, "s": format!("item {i}")}))
            .collect();
        let v = json!({"items": big, "long": "y".repeat(200_000)});
        let text = to_jcs(&v).unwrap();
        assert!(text.len() > 2 * HashSink::CAP);
        let expected = format!(
            "sha256-{}",
            STANDARD.encode(Sha256::digest(text.as_bytes()))
        );
        assert_eq!(graph_digest(&v).unwrap(), expected);
    }

    #[test]
    fn integrity_checks() {
        let v = json!({"id": "child", "n": 1});
        let good = graph_digest(&v).unwrap();
        assert_eq!(verify_integrity(&v, &good), Ok(true));
        let other = graph_digest(&json!({"id": "child", "n": 2})).unwrap();
        assert_eq!(verify_integrity(&v, &other), Ok(false));
        assert!(matches!(
            verify_integrity(&v, "sha512-abc="),
            Err(CanonError::UnsupportedAlgorithm { .. })
        ));
        assert!(matches!(
            verify_integrity(&v, "sha256-not base64!"),
            Err(CanonError::MalformedDigest { .. })
        ));
        // Valid base64, wrong length (16 bytes).
        assert!(matches!(
            verify_integrity(&v, "sha256-AAAAAAAAAAAAAAAAAAAAAA=="),
            Err(CanonError::MalformedDigest { .. })
        ));
        // Unpadded base64 of the right hash is rejected rather than silently accepted.
        let unpadded = good.trim_end_matches('=');
        assert_ne!(unpadded, good);
        assert!(verify_integrity(&v, unpadded).is_err());
    }
}
