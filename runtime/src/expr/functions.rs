//! The built-in function tables, one per language.
//!
//! Both the evaluator and the compiler's type checker read these tables, so "unknown
//! function", "wrong arity" and "no overload for these argument types" are decided in one
//! place ([`resolve`] and [`Function::select`]) and worded the same way ([`CallError`]).
//!
//! A function is a name plus a call style (global `f(x)` or receiver `x.f()`); CEL has both
//! styles for some names (`size`, `matches`), which are then two entries. Each entry lists
//! overloads; an overload's `params` include the receiver first for receiver-style calls.
//! The arity of a call counts the explicit arguments only. Optional parameters are spelled as
//! extra overloads (AGX `get(obj, path)` and `get(obj, path, default)`).
//!
//! What the tables hold:
//! - AGX: exactly the fixed library of AGS 1.0 (`docs/expressions.md` §5), nothing more.
//! - CEL: the standard definitions agh enables (`cel.NewEnv` with no extension libraries):
//!   `size`, `contains`, `startsWith`, `endsWith`, `matches`, the conversions `int`, `uint`,
//!   `double`, `string`, `bytes`, `bool`, `type`, `dyn`, `timestamp`, `duration`, and the
//!   timestamp/duration accessors. `has` and the comprehension macros are expression forms,
//!   not functions.
//! - Go-template subset (agh `{{ }}`): the loop compiler's function map, `json`, `toJson`,
//!   `join`, `default`, the builtin `len`, and compozy's `shellQuote` (which of them a
//!   document may use is its version's, `front/agh/model.rs`).

use std::fmt;

use super::Lang;
use crate::value::Kind;

/// A set of value kinds a parameter accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kinds(u16);

impl Kinds {
    pub const NULL: Kinds = Kinds::of(Kind::Null);
    pub const BOOL: Kinds = Kinds::of(Kind::Bool);
    pub const INT: Kinds = Kinds::of(Kind::Int);
    pub const UINT: Kinds = Kinds::of(Kind::Uint);
    pub const DOUBLE: Kinds = Kinds::of(Kind::Double);
    pub const STRING: Kinds = Kinds::of(Kind::String);
    pub const BYTES: Kinds = Kinds::of(Kind::Bytes);
    pub const LIST: Kinds = Kinds::of(Kind::List);
    pub const MAP: Kinds = Kinds::of(Kind::Map);
    pub const TIMESTAMP: Kinds = Kinds::of(Kind::Timestamp);
    pub const DURATION: Kinds = Kinds::of(Kind::Duration);
    pub const TYPE: Kinds = Kinds::of(Kind::Type);
    /// Any value.
    pub const ANY: Kinds = Kinds(0x0fff);
    /// int, uint or double.
    pub const NUMBER: Kinds = Kinds::INT.or(Kinds::UINT).or(Kinds::DOUBLE);
    /// Scalars CEL's `string()` converts.
    pub const CEL_STRINGABLE: Kinds = Kinds::NUMBER
        .or(Kinds::STRING)
        .or(Kinds::BYTES)
        .or(Kinds::BOOL)
        .or(Kinds::TIMESTAMP)
        .or(Kinds::DURATION);

    /// The set holding one kind.
    pub const fn of(kind: Kind) -> Kinds {
        Kinds(1 << kind as u16)
    }

    /// The union of two sets.
    pub const fn or(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    /// Whether the set holds `kind`.
    pub fn contains(self, kind: Kind) -> bool {
        self.0 & Kinds::of(kind).0 != 0
    }

    /// Whether this set accepts every kind.
    pub fn is_any(self) -> bool {
        self == Kinds::ANY
    }

    /// The kinds in the set, in declaration order.
    pub fn kinds(self) -> impl Iterator<Item = Kind> {
        ALL_KINDS.into_iter().filter(move |k| self.contains(*k))
    }
}

const ALL_KINDS: [Kind; 12] = [
    Kind::Null,
    Kind::Bool,
    Kind::Int,
    Kind::Uint,
    Kind::Double,
    Kind::String,
    Kind::Bytes,
    Kind::List,
    Kind::Map,
    Kind::Timestamp,
    Kind::Duration,
    Kind::Type,
];

/// What a function returns, as far as the signature says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// A value of this kind (lists and maps of unknown elements).
    Kind(Kind),
    /// A list whose elements are of this kind.
    ListOf(Kind),
    /// Anything (decided by the data: `json(s)`, `get(...)`).
    Dyn,
    /// The same type as argument `n` (counting the receiver as 0 for receiver calls).
    Arg(usize),
    /// The type of argument `a` if it equals that of `b`, else dynamic.
    Join(usize, usize),
}

/// How a function is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `f(a, b)`
    Global,
    /// `target.f(a)`
    Receiver,
}

/// One overload: parameter kinds (receiver first for receiver calls) and the result.
#[derive(Debug)]
pub struct Overload {
    pub params: &'static [Kinds],
    pub result: Ret,
}

/// One function of a language's library.
#[derive(Debug)]
pub struct Function {
    pub name: &'static str,
    pub style: Style,
    pub overloads: &'static [Overload],
    pub summary: &'static str,
}

impl Function {
    /// The explicit argument counts this function accepts, `(min, max)`.
    pub fn arity(&self) -> (usize, usize) {
        let skip = usize::from(self.style == Style::Receiver);
        let counts = self.overloads.iter().map(|o| o.params.len() - skip);
        let min = counts.clone().min().unwrap_or(0);
        (min, counts.max().unwrap_or(0))
    }

    /// The first overload whose parameters accept these argument kinds (receiver first).
    pub fn select(&self, kinds: &[Kind]) -> Option<&'static Overload> {
        self.overloads.iter().find(|o| {
            o.params.len() == kinds.len() && o.params.iter().zip(kinds).all(|(p, k)| p.contains(*k))
        })
    }

    /// Overloads taking this many values (receiver included).
    pub fn overloads_with(&self, values: usize) -> impl Iterator<Item = &'static Overload> {
        self.overloads
            .iter()
            .filter(move |o| o.params.len() == values)
    }
}

/// Why a call cannot be made. The `Display` text is the message both the evaluator and the
/// type checker use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    Unknown {
        name: String,
        receiver: bool,
    },
    WrongArity {
        name: String,
        min: usize,
        max: usize,
        got: usize,
    },
    NoOverload {
        name: String,
        got: Vec<Kind>,
        lang: Lang,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Unknown {
                name,
                receiver: true,
            } => write!(f, "unknown method `.{name}()`"),
            CallError::Unknown { name, .. } => write!(f, "unknown function `{name}`"),
            CallError::WrongArity {
                name,
                min,
                max,
                got,
            } => {
                let expected = if min == max {
                    format!("{min}")
                } else {
                    format!("{min} to {max}")
                };
                let s = if *max == 1 { "" } else { "s" };
                write!(f, "`{name}` takes {expected} argument{s}, got {got}")
            }
            CallError::NoOverload { name, got, lang } => {
                let names: Vec<&str> = got
                    .iter()
                    .map(|k| match lang {
                        Lang::Agx => k.agx_name(),
                        _ => k.cel_name(),
                    })
                    .collect();
                write!(f, "no overload of `{name}` takes ({})", names.join(", "))
            }
        }
    }
}

/// The function table of a language.
pub fn functions(lang: Lang) -> &'static [Function] {
    match lang {
        Lang::Agx => AGX,
        Lang::Cel => CEL,
        Lang::Gotmpl => GOTMPL,
    }
}

/// Finds a function by name and call style and checks the number of explicit arguments.
pub fn resolve(
    lang: Lang,
    name: &str,
    receiver: bool,
    argc: usize,
) -> Result<&'static Function, CallError> {
    let style = if receiver {
        Style::Receiver
    } else {
        Style::Global
    };
    let function = functions(lang)
        .iter()
        .find(|f| f.name == name && f.style == style)
        .ok_or_else(|| CallError::Unknown {
            name: name.to_string(),
            receiver,
        })?;
    let (min, max) = function.arity();
    if argc < min || argc > max {
        return Err(CallError::WrongArity {
            name: name.to_string(),
            min,
            max,
            got: argc,
        });
    }
    Ok(function)
}

const fn o(params: &'static [Kinds], result: Ret) -> Overload {
    Overload { params, result }
}

const fn global(
    name: &'static str,
    overloads: &'static [Overload],
    summary: &'static str,
) -> Function {
    Function {
        name,
        style: Style::Global,
        overloads,
        summary,
    }
}

const fn method(
    name: &'static str,
    overloads: &'static [Overload],
    summary: &'static str,
) -> Function {
    Function {
        name,
        style: Style::Receiver,
        overloads,
        summary,
    }
}

use Kinds as K;

const STR_STR_BOOL: &[Overload] = &[o(&[K::STRING, K::STRING], Ret::Kind(Kind::Bool))];
const STATUS: &[Overload] = &[o(&[K::STRING], Ret::Kind(Kind::Bool))];
const STR_TO_STR: &[Overload] = &[o(&[K::STRING], Ret::Kind(Kind::String))];

static AGX: &[Function] = &[
    global(
        "len",
        &[o(&[K::LIST.or(K::STRING).or(K::MAP)], Ret::Kind(Kind::Int))],
        "length of an array, character count of a string, key count of an object",
    ),
    global(
        "count",
        &[o(&[K::LIST], Ret::Kind(Kind::Int))],
        "length of an array",
    ),
    global(
        "contains",
        &[
            o(&[K::STRING, K::STRING], Ret::Kind(Kind::Bool)),
            o(&[K::LIST, K::ANY], Ret::Kind(Kind::Bool)),
            o(&[K::MAP, K::ANY], Ret::Kind(Kind::Bool)),
        ],
        "substring, array membership, or object key presence",
    ),
    global(
        "startswith",
        STR_STR_BOOL,
        "whether a string starts with a prefix",
    ),
    global(
        "endswith",
        STR_STR_BOOL,
        "whether a string ends with a suffix",
    ),
    global("lower", STR_TO_STR, "lower-case"),
    global("upper", STR_TO_STR, "upper-case"),
    global("trim", STR_TO_STR, "strip leading and trailing whitespace"),
    global(
        "matches",
        STR_STR_BOOL,
        "unanchored regular-expression search",
    ),
    global(
        "split",
        &[o(&[K::STRING, K::STRING], Ret::ListOf(Kind::String))],
        "split a string on a separator",
    ),
    global(
        "join",
        &[o(&[K::LIST, K::STRING], Ret::Kind(Kind::String))],
        "join stringified elements with a separator",
    ),
    global(
        "int",
        &[o(&[K::ANY], Ret::Kind(Kind::Int))],
        "convert to an integer",
    ),
    global(
        "float",
        &[o(&[K::ANY], Ret::Kind(Kind::Double))],
        "convert to a number",
    ),
    global(
        "bool",
        &[o(&[K::ANY], Ret::Kind(Kind::Bool))],
        "convert to a boolean",
    ),
    global(
        "str",
        &[o(&[K::ANY], Ret::Kind(Kind::String))],
        "convert to a string",
    ),
    global("json", &[o(&[K::STRING], Ret::Dyn)], "parse JSON text"),
    global(
        "get",
        &[
            o(&[K::ANY, K::STRING], Ret::Dyn),
            o(&[K::ANY, K::STRING, K::ANY], Ret::Dyn),
        ],
        "dotted-path lookup that never fails on a missing key",
    ),
    global(
        "default",
        &[o(&[K::ANY, K::ANY], Ret::Join(0, 1))],
        "the fallback when the value is null or absent",
    ),
    global(
        "any",
        &[o(&[K::LIST], Ret::Kind(Kind::Bool))],
        "whether any boolean is true",
    ),
    global(
        "all",
        &[o(&[K::LIST], Ret::Kind(Kind::Bool))],
        "whether every boolean is true",
    ),
    global("succeeded", STATUS, "whether a node succeeded"),
    global("failed", STATUS, "whether a node failed (or was blocked)"),
    global("skipped", STATUS, "whether a node was skipped"),
    global(
        "output",
        &[o(&[K::STRING, K::STRING], Ret::Dyn)],
        "a node's output by name: nodes.<id>.outputs.<name>",
    ),
];

const SIZED: Kinds = K::STRING.or(K::BYTES).or(K::LIST).or(K::MAP);
const TS_INT: &[Overload] = &[
    o(&[K::TIMESTAMP], Ret::Kind(Kind::Int)),
    o(&[K::TIMESTAMP, K::STRING], Ret::Kind(Kind::Int)),
];
const TS_DUR_INT: &[Overload] = &[
    o(&[K::TIMESTAMP], Ret::Kind(Kind::Int)),
    o(&[K::TIMESTAMP, K::STRING], Ret::Kind(Kind::Int)),
    o(&[K::DURATION], Ret::Kind(Kind::Int)),
];

static CEL: &[Function] = &[
    global(
        "size",
        &[o(&[SIZED], Ret::Kind(Kind::Int))],
        "length of a string, bytes, list or map",
    ),
    method(
        "size",
        &[o(&[SIZED], Ret::Kind(Kind::Int))],
        "length of a string, bytes, list or map",
    ),
    method("contains", STR_STR_BOOL, "substring test"),
    method("startsWith", STR_STR_BOOL, "prefix test"),
    method("endsWith", STR_STR_BOOL, "suffix test"),
    method("matches", STR_STR_BOOL, "unanchored RE2 search"),
    global("matches", STR_STR_BOOL, "unanchored RE2 search"),
    global(
        "int",
        &[o(
            &[K::NUMBER.or(K::STRING).or(K::TIMESTAMP)],
            Ret::Kind(Kind::Int),
        )],
        "convert to int",
    ),
    global(
        "uint",
        &[o(&[K::NUMBER.or(K::STRING)], Ret::Kind(Kind::Uint))],
        "convert to uint",
    ),
    global(
        "double",
        &[o(&[K::NUMBER.or(K::STRING)], Ret::Kind(Kind::Double))],
        "convert to double",
    ),
    global(
        "string",
        &[o(&[K::CEL_STRINGABLE], Ret::Kind(Kind::String))],
        "convert to string",
    ),
    global(
        "bytes",
        &[o(&[K::STRING.or(K::BYTES)], Ret::Kind(Kind::Bytes))],
        "convert to bytes",
    ),
    global(
        "bool",
        &[o(&[K::BOOL.or(K::STRING)], Ret::Kind(Kind::Bool))],
        "convert to bool",
    ),
    global(
        "type",
        &[o(&[K::ANY], Ret::Kind(Kind::Type))],
        "the type of a value",
    ),
    global("dyn", &[o(&[K::ANY], Ret::Dyn)], "the value, typed dyn"),
    global(
        "timestamp",
        &[o(
            &[K::STRING.or(K::TIMESTAMP).or(K::INT)],
            Ret::Kind(Kind::Timestamp),
        )],
        "parse an RFC 3339 timestamp (or unix seconds)",
    ),
    global(
        "duration",
        &[o(&[K::STRING.or(K::DURATION)], Ret::Kind(Kind::Duration))],
        "parse a duration such as \"1h30m\"",
    ),
    method("getFullYear", TS_INT, "year"),
    method("getMonth", TS_INT, "month, 0-based"),
    method("getDayOfYear", TS_INT, "day of the year, 0-based"),
    method("getDayOfMonth", TS_INT, "day of the month, 0-based"),
    method("getDate", TS_INT, "day of the month, 1-based"),
    method("getDayOfWeek", TS_INT, "day of the week, 0 = Sunday"),
    method("getHours", TS_DUR_INT, "hours"),
    method("getMinutes", TS_DUR_INT, "minutes"),
    method("getSeconds", TS_DUR_INT, "seconds"),
    method("getMilliseconds", TS_DUR_INT, "milliseconds"),
];

static GOTMPL: &[Function] = &[
    global(
        "json",
        &[o(&[K::ANY], Ret::Kind(Kind::String))],
        "JSON-encode a value",
    ),
    global(
        "toJson",
        &[o(&[K::ANY], Ret::Kind(Kind::String))],
        "alias of `json`",
    ),
    global(
        "join",
        &[o(
            &[K::STRING, K::LIST.or(K::STRING)],
            Ret::Kind(Kind::String),
        )],
        "join elements, separator first: `join \", \" .xs`",
    ),
    global(
        "default",
        &[o(&[K::ANY, K::ANY], Ret::Join(1, 0))],
        "the fallback (first) when the value (second) is empty",
    ),
    global(
        "len",
        &[o(&[K::STRING.or(K::LIST).or(K::MAP)], Ret::Kind(Kind::Int))],
        "length (bytes of a string)",
    ),
    global(
        "shellQuote",
        &[o(&[K::ANY], Ret::Kind(Kind::String))],
        "the value's text quoted for a POSIX shell: `'…'`, each `'` as `'\"'\"'` (compozy)",
    ),
    global(
        "truthy",
        &[o(&[K::ANY], Ret::Kind(Kind::Bool))],
        "Go's truth of a value (what `if`, `with` and `range` test; the lowering calls it)",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agx_library_is_exactly_the_ags_arity_table() {
        // AGS 1.0 docs/expressions.md §5, the arity table every support library uses.
        let table = [
            ("len", 1, 1),
            ("count", 1, 1),
            ("contains", 2, 2),
            ("startswith", 2, 2),
            ("endswith", 2, 2),
            ("lower", 1, 1),
            ("upper", 1, 1),
            ("trim", 1, 1),
            ("matches", 2, 2),
            ("split", 2, 2),
            ("join", 2, 2),
            ("int", 1, 1),
            ("float", 1, 1),
            ("bool", 1, 1),
            ("str", 1, 1),
            ("json", 1, 1),
            ("get", 2, 3),
            ("default", 2, 2),
            ("any", 1, 1),
            ("all", 1, 1),
            ("succeeded", 1, 1),
            ("failed", 1, 1),
            ("skipped", 1, 1),
            ("output", 2, 2),
        ];
        let got: Vec<(&str, usize, usize)> = functions(Lang::Agx)
            .iter()
            .map(|f| {
                assert_eq!(f.style, Style::Global, "{}", f.name);
                let (min, max) = f.arity();
                (f.name, min, max)
            })
            .collect();
        assert_eq!(got, table);
    }

    #[test]
    fn resolve_reports_unknown_and_arity() {
        assert!(resolve(Lang::Agx, "len", false, 1).is_ok());
        assert_eq!(
            resolve(Lang::Agx, "len", false, 2).unwrap_err().to_string(),
            "`len` takes 1 argument, got 2"
        );
        assert_eq!(
            resolve(Lang::Cel, "startsWith", false, 1).unwrap_err(),
            CallError::Unknown {
                name: "startsWith".into(),
                receiver: false
            }
        );
        assert!(resolve(Lang::Cel, "size", true, 0).is_ok());
        assert!(resolve(Lang::Cel, "size", false, 1).is_ok());
        assert!(resolve(Lang::Gotmpl, "toJson", false, 1).is_ok());
    }

    #[test]
    fn overload_selection_by_kind() {
        let contains = resolve(Lang::Agx, "contains", false, 2).unwrap();
        assert!(contains.select(&[Kind::String, Kind::String]).is_some());
        assert!(contains.select(&[Kind::List, Kind::Int]).is_some());
        assert!(contains.select(&[Kind::String, Kind::Int]).is_none());
        let hours = resolve(Lang::Cel, "getHours", true, 0).unwrap();
        assert!(hours.select(&[Kind::Duration]).is_some());
        assert!(hours.select(&[Kind::String]).is_none());
    }

    #[test]
    fn every_table_entry_is_well_formed() {
        for lang in [Lang::Agx, Lang::Cel, Lang::Gotmpl] {
            let table = functions(lang);
            for (i, f) in table.iter().enumerate() {
                assert!(!f.overloads.is_empty(), "{}", f.name);
                if f.style == Style::Receiver {
                    assert!(
                        f.overloads.iter().all(|o| !o.params.is_empty()),
                        "{}",
                        f.name
                    );
                }
                let dup = table[..i]
                    .iter()
                    .any(|g| g.name == f.name && g.style == f.style);
                assert!(!dup, "duplicate entry {}", f.name);
            }
        }
    }

    #[test]
    fn lang_serializes_kebab_case() {
        assert_eq!(serde_json::to_string(&Lang::Gotmpl).unwrap(), "\"gotmpl\"");
        assert_eq!(serde_json::from_str::<Lang>("\"cel\"").unwrap(), Lang::Cel);
    }
}
