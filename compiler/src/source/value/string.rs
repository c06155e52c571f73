//! [`Str`]: a document's string or key in 16 bytes: up to 15 bytes inline, longer ones in one
//! exact allocation (no capacity).
//!
//! A document holds a key or a string per value, and most are short (`id`, `type`, `config`,
//! `n1234`): kept inline they cost no allocation at all, where a `Box<str>` of them paid a
//! malloc block (and its header) each.
//!
//! Layout (`repr(C)`, the same on every endianness): byte 15 is the tag. `0x80 | n` marks an
//! inline string of `n` bytes in bytes `0..n` (the rest zero); 0 marks a heap string, whose
//! pointer is the first field and whose length is stored little-endian in the bytes after it,
//! below the tag byte.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::size_of;
use std::ops::Deref;
use std::ptr::{self, NonNull};

/// The longest string kept inline.
pub const INLINE_MAX: usize = 15;
/// Bytes of a heap string's length field (the tag is its last).
const LEN_BYTES: usize = 16 - size_of::<NonNull<u8>>();
/// Tag bit of an inline string (its length is in the low bits).
const INLINE: u8 = 0x80;

/// An immutable string of a loaded document.
///
/// Invariant: byte 15 is `INLINE | n` with `n <= INLINE_MAX` and `inline[..n]` a UTF-8 string,
/// or 0 with `heap` a `Box<str>` of more than `INLINE_MAX` bytes, turned into its raw parts and
/// owned by this value.
#[repr(C)]
pub struct Str(Repr);

#[repr(C)]
#[derive(Clone, Copy)]
union Repr {
    inline: [u8; 16],
    heap: Heap,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Heap {
    ptr: NonNull<u8>,
    /// The length, little-endian in all bytes but the last (the tag, 0).
    len: [u8; LEN_BYTES],
}

const _: () = assert!(size_of::<Str>() == 16 && size_of::<Heap>() == 16);

// SAFETY: a `Str` owns its bytes (inline or a `Box<str>` nobody else points to) and never
// mutates them, as a `Box<str>` would be `Send` and `Sync`.
unsafe impl Send for Str {}
// SAFETY: as above: shared access only reads immutable bytes.
unsafe impl Sync for Str {}

impl Str {
    /// The tag byte (`INLINE | n` or 0 for the heap).
    fn tag(&self) -> u8 {
        // SAFETY: every constructor initialises all 16 bytes, and byte 15 is a plain `u8` in
        // both variants (the last byte of `heap.len`), so reading it as one is defined.
        unsafe { self.0.inline[15] }
    }

    /// Whether the string is kept in place (at most [`INLINE_MAX`] bytes).
    pub fn is_inline(&self) -> bool {
        self.tag() & INLINE != 0
    }

    /// A string of at most [`INLINE_MAX`] bytes, inline.
    fn inline(s: &str) -> Str {
        debug_assert!(s.len() <= INLINE_MAX);
        let mut bytes = [0u8; 16];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        bytes[15] = INLINE | s.len() as u8;
        Str(Repr { inline: bytes })
    }

    /// A string of more than [`INLINE_MAX`] bytes; takes its allocation as it is.
    fn heap(b: Box<str>) -> Str {
        debug_assert!(b.len() > INLINE_MAX);
        let le = (b.len() as u64).to_le_bytes();
        assert!(le[7] == 0, "a document string is shorter than 2^56 bytes");
        let mut len = [0u8; LEN_BYTES];
        len[..7].copy_from_slice(&le[..7]);
        let ptr = NonNull::from(Box::leak(b)).cast::<u8>();
        Str(Repr {
            heap: Heap { ptr, len },
        })
    }

    /// The pointer and length of a heap string (tag 0).
    fn heap_parts(&self) -> (NonNull<u8>, usize) {
        debug_assert!(!self.is_inline());
        // SAFETY: tag 0 means `heap` was written (invariant), all 16 bytes of it.
        let h = unsafe { self.0.heap };
        let mut le = [0u8; 8];
        le[..7].copy_from_slice(&h.len[..7]);
        (h.ptr, u64::from_le_bytes(le) as usize)
    }

    pub fn as_str(&self) -> &str {
        let tag = self.tag();
        if tag & INLINE != 0 {
            // SAFETY: an inline tag means `inline` was written; its first `n` bytes are UTF-8
            // copied from a `str` (invariant), and `n <= 15` keeps the slice in the array.
            unsafe {
                let bytes = &self.0.inline[..(tag & !INLINE) as usize];
                std::str::from_utf8_unchecked(bytes)
            }
        } else {
            let (ptr, len) = self.heap_parts();
            // SAFETY: `ptr..ptr + len` is the `Box<str>` this value owns (invariant), alive and
            // unchanged for as long as `self` is borrowed.
            unsafe { std::str::from_utf8_unchecked(&*ptr::slice_from_raw_parts(ptr.as_ptr(), len)) }
        }
    }

    /// Takes back the `Box<str>` of a heap string.
    ///
    /// # Safety
    ///
    /// `self` is a heap string, and is neither used nor dropped afterwards (it is being dropped,
    /// or is in a `ManuallyDrop`), so that the box is taken back once.
    unsafe fn take_box(&self) -> Box<str> {
        let (ptr, len) = self.heap_parts();
        // SAFETY: the parts are those of the `Box<str>` leaked in `Str::heap` (same pointer,
        // same length, so the same layout), taken back once by the caller's contract.
        unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(ptr.as_ptr(), len) as *mut str) }
    }
}

impl Drop for Str {
    fn drop(&mut self) {
        if !self.is_inline() {
            // SAFETY: a heap string, being dropped: never used again.
            drop(unsafe { self.take_box() });
        }
    }
}

impl Clone for Str {
    fn clone(&self) -> Str {
        if self.is_inline() {
            Str(self.0)
        } else {
            Str::heap(self.as_str().into())
        }
    }
}

impl Default for Str {
    fn default() -> Str {
        Str::inline("")
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Str {}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Str) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    fn cmp(&self, other: &Str) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// Hashes as the `str` it holds, which `Borrow<str>` requires.
impl Hash for Str {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Str {
    fn from(s: &str) -> Str {
        if s.len() <= INLINE_MAX {
            Str::inline(s)
        } else {
            Str::heap(s.into())
        }
    }
}

/// A short string is copied inline and its buffer freed; a long one keeps its buffer, shrunk to
/// its length.
impl From<String> for Str {
    fn from(s: String) -> Str {
        if s.len() <= INLINE_MAX {
            Str::inline(&s)
        } else {
            Str::heap(s.into_boxed_str())
        }
    }
}

impl From<Box<str>> for Str {
    fn from(s: Box<str>) -> Str {
        if s.len() <= INLINE_MAX {
            Str::inline(&s)
        } else {
            Str::heap(s)
        }
    }
}

/// A heap string hands over its allocation; an inline one is copied.
impl From<Str> for String {
    fn from(s: Str) -> String {
        if s.is_inline() {
            return s.as_str().to_owned();
        }
        let s = std::mem::ManuallyDrop::new(s);
        // SAFETY: a heap string, in a `ManuallyDrop` that goes out of scope here undropped.
        unsafe { s.take_box() }.into_string()
    }
}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Str> for String {
    fn eq(&self, other: &Str) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests;
