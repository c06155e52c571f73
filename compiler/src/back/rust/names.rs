//! Names and text from a document, made safe for generated Rust.
//!
//! Everything a document says reaches generated code in exactly one of three forms:
//!
//! - a **sanitised identifier** ([`snake`], [`camel`], made unique by a [`Namer`]): ASCII only,
//!   never a keyword it cannot be (`r#type` where a raw identifier is allowed, `self_` where it
//!   is not), never starting with a digit, never empty, at most [`MAX_IDENT`] bytes;
//! - a **string literal** ([`literal`]): printable ASCII kept, `"` and `\` escaped, every other
//!   character written as `\u{..}`, so the literal means exactly the original text;
//! - a **doc comment line** ([`doc_lines`]): control and bidi characters written out, `*/`
//!   broken, and the Markdown that rustdoc would act on (backticks, which could open a doctest,
//!   brackets, angle brackets, leading indentation) escaped or dropped.
//!
//! All three are pure functions of their input, so generation is deterministic.

pub use crate::back::runner::naming::MAX_IDENT;
use crate::back::runner::naming::{Lexicon, Namer, cap, words};

/// Keywords of Rust 2024 (strict, reserved and the 2024 `gen`).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// Type names the generated modules define, import or rely on: a document's type may not
/// take them (a glob import of the types would be shadowed by them, or shadow the prelude).
const RESERVED_TYPES: &[&str] = &[
    "Answer",
    "Arc",
    "BTreeMap",
    "Box",
    "CallContext",
    "Clone",
    "Completion",
    "Context",
    "Debug",
    "Decision",
    "Default",
    "DeserializeOwned",
    "Deserialize",
    "Dispatch",
    "Err",
    "Error",
    "Failure",
    "FailureClass",
    "Future",
    "GateOutcome",
    "GateResponse",
    "Graph",
    "Handler",
    "Handlers",
    "Hooks",
    "Journal",
    "JsonlJournal",
    "Map",
    "MemoryJournal",
    "Mutex",
    "None",
    "Ok",
    "Option",
    "Outputs",
    "Params",
    "PartialEq",
    "Plan",
    "PoisonError",
    "Reply",
    "Result",
    "RunError",
    "RunOptions",
    "RunRecord",
    "RunStatus",
    "Self",
    "Serialize",
    "Some",
    "String",
    "Typed",
    "Usage",
    "Value",
    "Vec",
];

/// A snake_case identifier for a field, method or module (`first-name` → `first_name`,
/// `2nd` → `n_2nd`, `type` → `r#type`, `self` → `self_`, `""` → `empty`).
pub fn snake(name: &str) -> String {
    let ws = words(name);
    let mut s = ws
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    if s.is_empty() {
        s = "empty".to_string();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s = format!("n_{s}");
    }
    keyword_safe(cap(s))
}

/// An UpperCamelCase identifier for a type (`first-name` → `FirstName`, `HTTP_ok` →
/// `HttpOk`, `2nd` → `N2nd`, `""` → `Empty`). Reserved type names get `Type` appended
/// (`Option` → `OptionType`).
pub fn camel(name: &str) -> String {
    let s = camel_words(name);
    if RESERVED_TYPES.contains(&s.as_str()) {
        format!("{s}Type")
    } else {
        s
    }
}

/// An UpperCamelCase identifier for an enum variant: as [`camel`], but only `Self` is
/// avoided (variants live in their enum's namespace).
pub fn variant(name: &str) -> String {
    let s = camel_words(name);
    if s == "Self" {
        "SelfValue".to_string()
    } else {
        s
    }
}

fn camel_words(name: &str) -> String {
    let mut s = String::new();
    for w in words(name) {
        let mut cs = w.chars();
        if let Some(first) = cs.next() {
            s.push(first.to_ascii_uppercase());
            s.extend(cs.map(|c| c.to_ascii_lowercase()));
        }
    }
    if s.is_empty() {
        s = "Empty".to_string();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s = format!("N{s}");
    }
    cap(s)
}

/// `s` as an identifier that is not a keyword: `r#kw`, or `kw_` for the keywords that cannot
/// be raw.
fn keyword_safe(s: String) -> String {
    if NOT_RAW.contains(&s.as_str()) {
        format!("{s}_")
    } else if KEYWORDS.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

/// The name an identifier stands for without its `r#` prefix.
pub fn bare(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// Rust's spelling of identifiers ([`Lexicon`]): snake_case members and UpperCamelCase
/// types and variants, keywords avoided, doc lines escaped for rustdoc.
pub struct Rust;

/// The lexicon every namer of the Rust back end uses.
pub static RUST: Rust = Rust;

impl Lexicon for Rust {
    fn member(&self, name: &str) -> String {
        snake(name)
    }

    fn type_name(&self, name: &str) -> String {
        camel(name)
    }

    fn variant(&self, name: &str) -> String {
        variant(name)
    }

    fn bare<'a>(&self, ident: &'a str) -> &'a str {
        bare(ident)
    }

    fn doc_lines(&self, text: &str) -> Vec<String> {
        doc_lines(text)
    }
}

/// A namer for one namespace of generated Rust.
pub fn namer() -> Namer {
    Namer::new(&RUST)
}

/// A namer for one namespace of generated Rust, `names` taken already.
pub fn namer_with(names: &[&str]) -> Namer {
    Namer::with_reserved(&RUST, names)
}

/// Whether `c` must never appear raw in generated source (controls, bidi overrides and
/// isolates, which rustc rejects in comments and literals, and other invisible formatting).
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c as u32, 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF)
}

/// `s` as a Rust string literal with the same value: printable ASCII kept (`"` and `\`
/// escaped), everything else as `\u{..}`.
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// `text` as the lines of a doc comment (without the `///`): one per source line, trimmed
/// (an indented line would be a code block, which rustdoc runs as a doctest), with the
/// Markdown that rustdoc acts on escaped (backticks, which could open a fenced doctest;
/// brackets, links; angle brackets, HTML), control and bidi characters written out as
/// `U+XXXX`, and `*/` broken. Empty text gives no lines.
pub fn doc_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for raw in text.lines() {
        let mut line = String::with_capacity(raw.len());
        let mut prev = ' ';
        for c in raw.trim().chars() {
            match c {
                '`' | '[' | ']' | '<' | '>' | '\\' => {
                    line.push('\\');
                    line.push(c);
                }
                '/' if prev == '*' => line.push_str("\\/"),
                c if unsafe_char(c) => line.push_str(&format!("U+{:04X}", c as u32)),
                c => line.push(c),
            }
            prev = c;
        }
        lines.push(line.trim_end().to_string());
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    lines
}

/// `text` as one line for a Markdown table cell or sentence (README): as [`doc_lines`],
/// joined with spaces, with `|` escaped too.
pub fn markdown_inline(text: &str) -> String {
    doc_lines(text).join(" ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_names() {
        assert_eq!(snake("first-name"), "first_name");
        assert_eq!(snake("firstName"), "first_name");
        assert_eq!(snake("2nd"), "n_2nd");
        assert_eq!(snake("type"), "r#type");
        assert_eq!(snake("self"), "self_");
        assert_eq!(snake("Self"), "self_");
        assert_eq!(snake(""), "empty");
        assert_eq!(snake("--"), "empty");
        assert_eq!(snake("名前"), "u540d_u524d");
        assert_eq!(snake("a\"b*/c"), "a_b_c");
        assert!(snake(&"x".repeat(500)).len() <= MAX_IDENT);
    }

    #[test]
    fn camel_names() {
        assert_eq!(camel("first-name"), "FirstName");
        assert_eq!(camel("HTTP_ok"), "HttpOk");
        assert_eq!(camel("2nd"), "N2nd");
        assert_eq!(camel(""), "Empty");
        assert_eq!(camel("Option"), "OptionType");
        assert_eq!(camel("self"), "SelfType");
        assert_eq!(variant("self"), "SelfValue");
        assert_eq!(variant("ok"), "Ok");
        assert_eq!(camel("🚀 launch"), "U1f680Launch");
    }

    #[test]
    fn collisions_are_numbered_in_order() {
        let mut n = namer();
        assert_eq!(n.member("a-b"), "a_b");
        assert_eq!(n.member("a_b"), "a_b_2");
        assert_eq!(n.member("A B"), "a_b_3");
        assert_eq!(n.member("type"), "r#type");
        assert_eq!(n.member("Type"), "type_2");
        let mut c = namer();
        assert_eq!(c.variant("ok"), "Ok");
        assert_eq!(c.variant("OK"), "Ok2");
        assert_eq!(c.type_name("ok"), "OkType");
        let mut r = namer_with(&["run"]);
        assert_eq!(r.member("run"), "run_2");
    }

    #[test]
    fn literals_keep_the_value_and_stay_ascii() {
        assert_eq!(literal("a\"b"), r#""a\"b""#);
        assert_eq!(literal("\"#"), r##""\"#""##);
        assert_eq!(literal("é\n"), r#""\u{e9}\u{a}""#);
        assert!(literal("🚀\u{202e}").is_ascii());
    }

    #[test]
    fn doc_lines_are_inert() {
        let lines = doc_lines("  ```rust\n    fn main() {} */ \u{202e}\n\n[link](x) <b>\n\n");
        assert_eq!(
            lines,
            vec![
                "\\`\\`\\`rust",
                "fn main() {} *\\/ U+202E",
                "",
                "\\[link\\](x) \\<b\\>"
            ]
        );
        assert!(doc_lines("").is_empty());
    }
}
