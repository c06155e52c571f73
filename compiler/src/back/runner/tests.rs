//! The type space is the same for every language; only the spelling of its names differs. A
//! toy lexicon in Python's manner (snake_case members, CamelCase classes, Python's keywords
//! avoided with a trailing `_`) against the Rust back end's, on one schema.

use super::naming::{Lexicon, Namer, words};
use super::types::{DefKind, Ty, TypeSpace};
use serde_json::json;

struct Pythonish;

const PY_KEYWORDS: &[&str] = &["class", "def", "from", "import", "lambda", "None", "pass"];

impl Lexicon for Pythonish {
    fn member(&self, name: &str) -> String {
        let s = words(name).join("_").to_ascii_lowercase();
        if PY_KEYWORDS.contains(&s.as_str()) {
            format!("{s}_")
        } else {
            s
        }
    }

    fn type_name(&self, name: &str) -> String {
        words(name)
            .iter()
            .map(|w| w[..1].to_ascii_uppercase() + &w[1..].to_ascii_lowercase())
            .collect()
    }

    fn variant(&self, name: &str) -> String {
        words(name).join("_").to_ascii_uppercase()
    }

    fn doc_lines(&self, text: &str) -> Vec<String> {
        text.lines()
            .map(|l| l.replace("\"\"\"", "\\\"\\\"\\\""))
            .collect()
    }
}

static PY: Pythonish = Pythonish;

/// One port's schema mapped in `space`: its fields (identifier, JSON name, type) and the
/// variants of the enum its `level` property became.
fn map(mut space: TypeSpace) -> (Vec<(String, String, Ty)>, Vec<String>) {
    let decl = agc_runtime::plan::Declared {
        schema: Some(json!({
            "type": "object",
            "description": "A \"\"\"quoted\"\"\" report.",
            "required": ["type"],
            "properties": {
                "type": {"type": "string"},
                "class": {"type": "integer"},
                "level": {"enum": ["low", "very-high"]},
            }
        })),
        ..Default::default()
    };
    let Ty::Named(i) = space.port("build report", "object", &decl) else {
        panic!("an object with properties is a named definition");
    };
    let DefKind::Struct { fields } = &space.defs[i].kind else {
        panic!("a struct");
    };
    let fields: Vec<_> = fields
        .iter()
        .map(|f| (f.ident.clone(), f.json.clone(), f.ty.clone()))
        .collect();
    let variants = space
        .defs
        .iter()
        .find_map(|d| match &d.kind {
            DefKind::Enum { variants } => Some(variants.iter().map(|v| v.ident.clone()).collect()),
            _ => None,
        })
        .expect("the enum of `level`");
    (fields, variants)
}

#[test]
fn one_type_space_two_spellings() {
    let (rust, rust_variants) = map(TypeSpace::new(&crate::back::rust::names::RUST));
    let (py, py_variants) = map(TypeSpace::new(&PY));
    let idents = |f: &[(String, String, Ty)]| f.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    let shape = |f: &[(String, String, Ty)]| {
        f.iter()
            .map(|x| (x.1.clone(), std::mem::discriminant(&x.2)))
            .collect::<Vec<_>>()
    };
    // The same fields, JSON names and types in the same order...
    assert_eq!(shape(&rust), shape(&py));
    // ...each spelt by its language: `type` is a keyword of Rust, `class` one of Python.
    assert_eq!(idents(&rust), ["r#type", "class", "level"]);
    assert_eq!(idents(&py), ["type", "class_", "level"]);
    assert_eq!(rust_variants, ["Low", "VeryHigh"]);
    assert_eq!(py_variants, ["LOW", "VERY_HIGH"]);
}

#[test]
fn a_namer_keeps_names_unique_by_the_lexicons_spelling() {
    let mut n = Namer::new(&PY);
    assert_eq!(n.member("class"), "class_");
    assert_eq!(n.member("Class"), "class_2");
    assert_eq!(n.type_name("build report"), "BuildReport");
    assert_eq!(n.type_name("build-report"), "BuildReport2");
}
