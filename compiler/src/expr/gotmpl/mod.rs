//! agh's `{{ }}` values: the Go text/template subset agh accepts, lowered to the core form.
//!
//! agh (`internal/loop/dsl/refs/template.go`) parses values with Go's text/template, the
//! curated functions `json`, `toJson`, `join`, `default`, the builtin `len` (later also
//! `shellQuote`) and
//! `missingkey=error`, then walks the tree and rejects any other function. agc accepts:
//!
//! - literal text, comments `{{/* .. */}}`, trim markers `{{- ` and ` -}}`;
//! - paths `.inputs.x`, `.nodes.a.output.f`, the dot `.`, the root `$` and `$.a.b`, and
//!   fields of a parenthesized pipeline `(..).f`;
//! - literals: strings (`"..."` with Go escapes, raw `` `..` ``), numbers, `true`, `false`, `nil`;
//! - pipelines `a | f b`, with the functions `default`, `join`, `json`, `len`, `shellQuote`,
//!   `toJson`, at their arity (agh would fail at render time instead);
//! - `if` / `else if` / `else` / `end`, `range` and `with` (with `else`, and `else with`),
//!   where `range X` and `with X` re-scope the dot to X's element / X.
//!
//! Rejected, with a diagnostic naming what is allowed: every other function (Go's builtins
//! `printf`, `eq`, `and`, `index`, ...), `define`, `template`, `block`, `break`, `continue`,
//! and template variables (`$x`, `$x := ..`, `range $i, $e := ..`). agh accepts a bare `$x`
//! and `{{ template "n" . }}`; agc does not, because the core form has no bindings and no
//! document in the corpus uses either (a deliberate, documented narrowing).
//!
//! Mapping to the core form (the evaluator implements the named functions):
//! - the whole value → `Template { parts }`; text → `Text`; `{{ p }}` → `Expr`. A value that
//!   is exactly one `{{ .a.b }}` is a template with one `Expr` part and no text, which is
//!   how agh's "keeps the native JSON type" rule can be recognised.
//! - `.a.b` at the root → `Member(Ident a, b)`; `.` at the root and `$` → `Ident "$"` (the
//!   whole data); inside the N-th nested `range`/`with` the dot is `Ident "$N"`, so `.id`
//!   there is `Member(Ident "$N", id)`.
//! - `f a b` → `Call f [a, b]`; `x | f a` → `Call f [a, x]` (Go passes the piped value last).
//! - `if P`A`else`B → `Conditional(Call truthy [P], Template A, Template B)` (`else if` nests
//!   in `B`); `truthy` is Go's truth: false, 0, nil, and empty strings, lists and maps are false.
//! - `range P`A`else`B → `Conditional(Call truthy [P], Call join ["", Comprehension map over
//!   P, var "$N", body Template A], Template B)`. Go ranges over a map's *values* in key
//!   order; the evaluator must do the same for a `$N` range in a template (agh documents
//!   range over lists).
//! - `with P`A`else`B → the same shape as `range`, over the one-element list `[P]`.
//!
//! Node ids are in pre-order; spans are file spans. Blocks nest at most 32 deep, parentheses
//! 32 deep, and an action has at most 32 commands (`AGC050` beyond), so a lowered tree is at
//! most about 260 levels high and every recursive pass over it is bounded.
//!
//! Errors: a scanning or structure error stops at the first one (as Go's parser does);
//! errors found while lowering (unknown functions, wrong arity, values given arguments) are
//! all reported.

pub mod lexer;
pub mod lower;
pub mod parser;

use crate::diag::Diagnostic;
use crate::expr::{CODE_SYNTAX, CODE_TOO_DEEP};
use crate::source::Span;
use crate::source::scalar::ScalarMap;
use agc_runtime::expr::Expr;

/// Parses an agh `{{ }}` value. `src` is the decoded string; `map` maps its offsets to the file.
pub fn parse_gotmpl(src: &str, map: &ScalarMap) -> Result<(Expr, Vec<Span>), Vec<Diagnostic>> {
    let fail = |e: parser::Error| {
        let code = if e.too_deep {
            CODE_TOO_DEEP
        } else {
            CODE_SYNTAX
        };
        vec![Diagnostic::error(code, e.message).at(map.span(e.range.0, e.range.1))]
    };
    let items = lexer::scan(src).map_err(|e| fail(parser::lex_error(e)))?;
    let nodes = parser::build(items, src.len()).map_err(fail)?;
    let mut lw = lower::Lowerer::new(map);
    let expr = lw.template(&nodes, (0, src.len()), 0);
    if lw.diags.is_empty() {
        lw.spans.shrink_to_fit();
        Ok((expr, lw.spans))
    } else {
        Err(lw.diags)
    }
}
