//! JSON text of serde values, byte for byte what `serde_json::to_string_pretty` and
//! `serde_json::to_writer` write, at a fraction of the cost: the run record, the journal's
//! lines and the scripted handler's log are written once per node of a run, and serde_json's
//! writer spends most of its time around the bytes (every piece, and every level of
//! indentation, goes through `io::Write` on its own; every key is scanned for escapes). This
//! serializer appends to a `String` directly, writes an indentation in one piece and copies a
//! string that needs no escape whole (issue 41: a 10k-node run record 160 -> 47 M
//! instructions).
//!
//! The types keep their derived `Serialize` (one description of each type's JSON); only the
//! writing differs. The rules followed are serde_json's (1.0, `preserve_order`): two-space
//! indentation, `"key": value`, empty containers as `{}` and `[]`, the escapes `\" \\ \b \f \n
//! \r \t` and `\u00xx` (lowercase hex) for the other control characters and nothing else,
//! non-finite floats as `null`, integer map keys quoted, enum variants as serde_json writes
//! them. Floats are written by serde_json itself (its shortest round-trip form). The tests
//! compare both writers on the run records, events and scripts of the examples and on values
//! built to reach every rule.

use serde::ser::{self, Serialize};
use std::fmt;

/// `value` as pretty JSON (two-space indentation), as `serde_json::to_string_pretty` writes it.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut w = Writer {
        out: String::with_capacity(128),
        pretty: true,
        depth: 0,
    };
    value.serialize(&mut w)?;
    Ok(w.out)
}

/// The elements of a list `to_string_pretty` writes at `depth` (the elements' own depth: 2 for
/// a list that is a field of the top-level object), as they appear there between `[` and the
/// line of its `]`: each on a new line, joined by `,`. Parts of one large list written this way
/// on several threads and joined with `,` are its text (the run record's node runs).
pub fn pretty_elements<T: Serialize>(items: &[T], depth: usize) -> Result<String, Error> {
    let mut w = Writer {
        out: String::with_capacity(128),
        pretty: true,
        depth,
    };
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            w.out.push(',');
        }
        w.newline();
        item.serialize(&mut w)?;
    }
    Ok(w.out)
}

/// Appends `value` as compact JSON to `out`, as `serde_json::to_writer` writes it.
pub fn write_compact<T: Serialize + ?Sized>(out: &mut String, value: &T) -> Result<(), Error> {
    let mut w = Writer {
        out: std::mem::take(out),
        pretty: false,
        depth: 0,
    };
    let done = value.serialize(&mut w);
    *out = w.out;
    done
}

/// A value that has no JSON form here (a map key that is not a string, a number, a boolean
/// or a character), or a type's own serialization error.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// A new line and the spaces of its indentation, written in one piece (levels deeper than 31
/// in more).
const NEWLINE: &str = "\n                                                              ";

/// The serializer: where the text goes, pretty or compact, and the depth of nesting.
pub struct Writer {
    out: String,
    pretty: bool,
    depth: usize,
}

impl Writer {
    /// A new line at the current depth (pretty only).
    fn newline(&mut self) {
        let n = 1 + self.depth * 2;
        if n <= NEWLINE.len() {
            self.out.push_str(&NEWLINE[..n]);
        } else {
            self.out.push_str(NEWLINE);
            for _ in NEWLINE.len()..n {
                self.out.push(' ');
            }
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        escaped(&mut self.out, s);
        self.out.push('"');
    }

    /// Opens a container (`{` or `[`); `empty` when it is known to hold nothing.
    fn open(&mut self, open: char, close: char, empty: bool) -> Compound<'_> {
        self.out.push(open);
        if empty {
            self.out.push(close);
        } else {
            self.depth += 1;
        }
        Compound {
            w: self,
            first: true,
            close,
            done: empty,
        }
    }

    fn float(&mut self, v: f64) {
        if v.is_finite() {
            // serde_json's own float form (shortest round trip); floats are rare in records.
            self.out
                .push_str(&serde_json::to_string(&v).unwrap_or_default());
        } else {
            self.out.push_str("null");
        }
    }

    fn float32(&mut self, v: f32) {
        if v.is_finite() {
            self.out
                .push_str(&serde_json::to_string(&v).unwrap_or_default());
        } else {
            self.out.push_str("null");
        }
    }
}

/// Appends `v` in decimal (without `core::fmt`'s machinery: attempts and counts are written
/// once per node, nearly always one digit).
pub(crate) fn decimal(out: &mut String, mut v: u64) {
    if v < 10 {
        out.push(char::from(b'0' + v as u8));
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// Appends `s` with JSON's escapes (serde_json's set). The text between escapes is copied
/// whole; it is found eight bytes at a time.
fn escaped(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = next_escape(bytes, start) {
        let b = bytes[i];
        // `b` is ASCII, so `i` and `i + 1` are character boundaries.
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// Whether `s` goes into a JSON string as it is (no byte of it is escaped).
pub(crate) fn plain(s: &str) -> bool {
    next_escape(s.as_bytes(), 0).is_none()
}

/// The index of the first byte at or after `from` that JSON escapes: a control character,
/// `"` or `\`. Eight bytes at a time, the last few too (padded with spaces, which need no
/// escape): most strings written are keys and ids shorter than eight bytes.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The bytes of `x` below 0x20, or equal to `"` or `\`, as their high bits (the bit
    // tricks of "Bit Twiddling Hacks": `hasless` and `haszero`). A borrow can mark a byte
    // above a match, never one below the first: the lowest mark is the first match.
    let marks = |x: u64| {
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
            | zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')))
    };
    let mut i = from;
    while i < bytes.len() {
        let mut word = [b' '; 8];
        let n = (bytes.len() - i).min(8);
        word[..n].copy_from_slice(&bytes[i..i + n]);
        let found = marks(u64::from_le_bytes(word));
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    None
}

/// An open object or array.
pub struct Compound<'w> {
    w: &'w mut Writer,
    first: bool,
    close: char,
    /// Closed already (it was known to be empty).
    done: bool,
}

impl Compound<'_> {
    /// Before an element or a key.
    fn next(&mut self) {
        if !self.first {
            self.w.out.push(',');
        }
        self.first = false;
        if self.w.pretty {
            self.w.newline();
        }
    }

    /// Between a key and its value.
    fn colon(&mut self) {
        self.w.out.push_str(if self.w.pretty { ": " } else { ":" });
    }

    fn close(self) {
        if self.done {
            return;
        }
        self.w.depth -= 1;
        if self.w.pretty && !self.first {
            self.w.newline();
        }
        self.w.out.push(self.close);
    }

    fn key(&mut self, key: &str) {
        self.next();
        self.w.out.push('"');
        escaped(&mut self.w.out, key);
        self.w
            .out
            .push_str(if self.w.pretty { "\": " } else { "\":" });
    }
}

/// A variant's `{"Variant": ...}` around a tuple or struct variant's content.
pub struct Variant<'w> {
    outer: Compound<'w>,
    inner_first: bool,
    inner_close: char,
}

impl<'w> ser::Serializer for &'w mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'w>;
    type SerializeTuple = Compound<'w>;
    type SerializeTupleStruct = Compound<'w>;
    type SerializeTupleVariant = Variant<'w>;
    type SerializeMap = Compound<'w>;
    type SerializeStruct = Compound<'w>;
    type SerializeStructVariant = Variant<'w>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        if v < 0 {
            self.out.push('-');
        }
        decimal(&mut self.out, v.unsigned_abs());
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        use std::fmt::Write;
        let _ = write!(self.out, "{v}");
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        decimal(&mut self.out, v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        use std::fmt::Write;
        let _ = write!(self.out, "{v}");
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.float32(v);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let mut c = self.open('{', '}', false);
        c.key(variant);
        value.serialize(&mut *c.w)?;
        c.close();
        Ok(())
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'w>, Error> {
        Ok(self.open('[', ']', len == Some(0)))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'w>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'w>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'w>, Error> {
        self.variant(variant, '[', ']', len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'w>, Error> {
        Ok(self.open('{', '}', len == Some(0)))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'w>, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'w>, Error> {
        self.variant(variant, '{', '}', len)
    }
}

impl Writer {
    /// `{"variant": ` and the opening of its content (serde_json writes the content's
    /// brackets even when it is empty: `{"V": []}`).
    fn variant(
        &mut self,
        variant: &'static str,
        open: char,
        close: char,
        len: usize,
    ) -> Result<Variant<'_>, Error> {
        let mut outer = self.open('{', '}', false);
        outer.key(variant);
        outer.w.out.push(open);
        if len == 0 {
            outer.w.out.push(close);
        } else {
            outer.w.depth += 1;
        }
        Ok(Variant {
            outer,
            inner_first: true,
            inner_close: if len == 0 { '\0' } else { close },
        })
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.next();
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.next();
        key.serialize(KeyWriter(&mut self.w.out))?;
        self.colon();
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.key(key);
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

impl Variant<'_> {
    fn next(&mut self) {
        if !self.inner_first {
            self.outer.w.out.push(',');
        }
        self.inner_first = false;
        if self.outer.w.pretty {
            self.outer.w.newline();
        }
    }

    fn end(self) {
        let Variant {
            outer,
            inner_first,
            inner_close,
        } = self;
        if inner_close != '\0' {
            outer.w.depth -= 1;
            if outer.w.pretty && !inner_first {
                outer.w.newline();
            }
            outer.w.out.push(inner_close);
        }
        outer.close();
    }
}

impl ser::SerializeTupleVariant for Variant<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.next();
        value.serialize(&mut *self.outer.w)
    }
    fn end(self) -> Result<(), Error> {
        Variant::end(self);
        Ok(())
    }
}

impl ser::SerializeStructVariant for Variant<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.next();
        self.outer.w.string(key);
        self.outer
            .w
            .out
            .push_str(if self.outer.w.pretty { ": " } else { ":" });
        value.serialize(&mut *self.outer.w)
    }
    fn end(self) -> Result<(), Error> {
        Variant::end(self);
        Ok(())
    }
}

/// A map key: a string or a character as itself; a number (a finite float) or a boolean in
/// quotes (serde_json's keys); anything else has no JSON form.
struct KeyWriter<'a>(&'a mut String);

impl KeyWriter<'_> {
    fn quoted(self, v: impl fmt::Display) -> Result<(), Error> {
        use std::fmt::Write;
        let _ = write!(self.0, "\"{v}\"");
        Ok(())
    }
}

fn key_must_be_a_string() -> Error {
    Error("key must be a string".into())
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.push('"');
        escaped(self.0, v);
        self.0.push('"');
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.quoted(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error("float key must be finite (got NaN or +/-inf)".into()));
        }
        self.quoted(serde_json::to_string(&v).unwrap_or_default())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error("float key must be finite (got NaN or +/-inf)".into()));
        }
        self.quoted(serde_json::to_string(&v).unwrap_or_default())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
