//! RFC 6901 JSON pointer reference tokens (`~0` is `~`, `~1` is `/`), shared by the document
//! tree and the values it holds.

use std::borrow::Cow;

/// Decodes one RFC 6901 reference token.
pub fn unescape_token(token: &str) -> String {
    unescape(token).into_owned()
}

pub(crate) fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Encodes one RFC 6901 reference token.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
