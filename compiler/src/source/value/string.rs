//! [`Str`]: a document's string or key, one exact allocation (16 bytes inline, no capacity).

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

/// An immutable string of a loaded document.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Str(Box<str>);

impl Str {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Str {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Str {
    fn from(s: &str) -> Str {
        Str(s.into())
    }
}

impl From<String> for Str {
    fn from(s: String) -> Str {
        Str(s.into_boxed_str())
    }
}

impl From<Str> for String {
    fn from(s: Str) -> String {
        s.0.into_string()
    }
}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Str> for String {
    fn eq(&self, other: &Str) -> bool {
        **self == *other.0
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}
