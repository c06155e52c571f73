//! [`CanonError`]: why a value has no canonical form or a digest cannot be checked.

use std::fmt;

/// The prefix of every AGS digest.
pub const DIGEST_PREFIX: &str = "sha256-";

/// Why a value has no canonical form, or why an integrity string cannot be checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CanonError {
    /// A number JCS cannot represent (NaN or an infinity), at a JSON Pointer into the value.
    NonFinite { pointer: String },
    /// An integrity string that does not start with `sha256-` (other algorithms, such as the
    /// `sha384-`/`sha512-` of web Subresource Integrity, are not AGS digests).
    UnsupportedAlgorithm { found: String },
    /// An integrity string whose payload is not the padded standard base64 of 32 bytes.
    MalformedDigest { found: String, reason: String },
}

impl fmt::Display for CanonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CanonError::NonFinite { pointer } => {
                let at = if pointer.is_empty() { "/" } else { pointer };
                write!(
                    f,
                    "the number at `{at}` is not finite; JCS cannot represent it"
                )
            }
            CanonError::UnsupportedAlgorithm { found } => write!(
                f,
                "integrity `{found}` does not start with `{DIGEST_PREFIX}`; AGS digests are SHA-256"
            ),
            CanonError::MalformedDigest { found, reason } => {
                write!(
                    f,
                    "integrity `{found}` is not a valid SHA-256 digest: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for CanonError {}
