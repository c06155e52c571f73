//! Identifiers from a document's names, whatever the target language: a name is split into
//! ASCII words ([`words`]), a [`Lexicon`] spells them as the language wants (case, keywords,
//! reserved names), and a [`Namer`] keeps them unique within one namespace.
//!
//! Everything here is a pure function of its input, so generation is deterministic.

use std::collections::BTreeSet;

/// Longest identifier a lexicon should make (before a uniqueness suffix), in bytes.
pub const MAX_IDENT: usize = 40;

/// How a target language spells identifiers and documentation.
pub trait Lexicon: Sync {
    /// A field, method or module name for `name` (Rust: snake_case, never a keyword).
    fn member(&self, name: &str) -> String;
    /// A type name for `name` (Rust: UpperCamelCase, never a name the generated code uses).
    fn type_name(&self, name: &str) -> String;
    /// An enum variant (or constant) name for `name`.
    fn variant(&self, name: &str) -> String;
    /// The name an identifier stands for, without any escape that lets a keyword be one
    /// (Rust: `r#type` stands for `type`). Uniqueness is decided on it.
    fn bare<'a>(&self, ident: &'a str) -> &'a str {
        ident
    }
    /// `text` as doc-comment lines, escaped for the language's documentation tool.
    fn doc_lines(&self, text: &str) -> Vec<String>;
}

/// Splits `name` into ASCII words: runs of letters and digits, split at separators and at
/// lower-to-upper case changes. A non-ASCII character becomes its own word `u<hex>`.
pub fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            if ch.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
            cur.push(ch);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            if !ch.is_ascii() {
                out.push(format!("u{:x}", ch as u32));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Cuts `s` (ASCII) to [`MAX_IDENT`] bytes.
pub fn cap(mut s: String) -> String {
    s.truncate(MAX_IDENT);
    s
}

/// Hands out identifiers unique within one namespace, deterministically: the first to ask for
/// a name gets it, later ones get `_2`, `_3`... (members) or `2`, `3`... (types, variants).
pub struct Namer {
    lex: &'static dyn Lexicon,
    taken: BTreeSet<String>,
}

impl Namer {
    pub fn new(lex: &'static dyn Lexicon) -> Namer {
        Namer {
            lex,
            taken: BTreeSet::new(),
        }
    }

    /// Reserves `names` (helper names the generated code uses in the same namespace).
    pub fn with_reserved(lex: &'static dyn Lexicon, names: &[&str]) -> Namer {
        Namer {
            lex,
            taken: names.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// A unique member name for `name`.
    pub fn member(&mut self, name: &str) -> String {
        let base = self.lex.member(name);
        self.claim(base, "_")
    }

    /// A unique type name for `name`.
    pub fn type_name(&mut self, name: &str) -> String {
        let base = self.lex.type_name(name);
        self.claim(base, "")
    }

    /// A unique variant name for `name`.
    pub fn variant(&mut self, name: &str) -> String {
        let base = self.lex.variant(name);
        self.claim(base, "")
    }

    /// A unique identifier built from an already spelt type-name base.
    pub fn type_ident(&mut self, base: String) -> String {
        self.claim(cap(base), "")
    }

    fn claim(&mut self, base: String, sep: &str) -> String {
        let key = self.lex.bare(&base).to_string();
        if self.taken.insert(key.clone()) {
            return base;
        }
        let stem = self.lex.bare(&base).trim_end_matches('_').to_string();
        let mut n = 2u32;
        loop {
            let cand = format!("{stem}{sep}{n}");
            if self.taken.insert(cand.clone()) {
                return cand;
            }
            n += 1;
        }
    }
}
