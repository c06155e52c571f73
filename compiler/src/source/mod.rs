//! Source files and spans.
//!
//! Every loaded file gets a [`FileId`] in a [`SourceMap`]. A [`Span`] is a byte range inside one
//! file; line and column are derived on demand from the file's line-start table, so spans stay
//! small (12 bytes) and are cheap to store in side tables.
//!
//! Columns are 1-based and counted in Unicode scalar values (code points), which is what editors,
//! SARIF (`columnKind: unicodeCodePoints`) and ariadne (char index) agree on.

pub mod field;
pub mod json;
pub mod limits;
pub mod load;
pub mod pointer;
pub mod scalar;
mod span;
pub mod tree;
pub mod value;
pub mod yaml;

pub use field::Field;
pub use limits::Limits;
pub use span::{FileId, LineCol, SourceFile, SourceMap, Span};
pub use tree::walk::Walker;
pub use tree::{Cursor, Document, ScalarStyle, SpanNode};
pub use value::{Map, Str, Value};
