//! Params checked when the document is compiled, with the codes the spec gives them at run
//! time (SPEC §5.2, §18.1): AG301 (a required param with no value and no default) and AG302
//! (a value that fails its param's `type`, `enum` or `schema`, or a name no param declares).
//!
//! - A param's own `default` is the value a run binds when none is given: one that breaks
//!   its own `type`/`enum`/`schema` fails every run that relies on it (AG302).
//! - A `subgraph` node with `use` or `inline` binds its child's params from `subgraph.params`
//!   (SPEC §7.6): a required child param it leaves out is AG301 on every run, a name the child
//!   does not declare AG302. A child that declares no params is not judged (the reference
//!   validator lets such a fragment read the graph's params); a `ref` child is checked where
//!   it is loaded.

use super::checker::Checker;
use super::scope::Scope;
use crate::diag::Diagnostic;
use crate::source::Field;
use crate::source::tree::escape_token;
use crate::source::{Map, Str, Value};
use agc_runtime::plan::Declared;

impl Checker<'_> {
    /// AG302 on every param `default` of every scope that breaks its own declaration, and
    /// AG301/AG302 on the `subgraph.params` of `use` and `inline` subgraph nodes.
    pub(super) fn check_params(&mut self, scopes: &[Scope<'_>]) {
        let Some(root) = scopes.first().map(|s| s.obj) else {
            return;
        };
        for s in scopes {
            self.check_defaults(s);
            for (id, node) in s.nodes() {
                let Some(sg) = node.field("subgraph") else {
                    continue;
                };
                let child = match (sg.field("use").and_then(Value::as_str), sg.field("inline")) {
                    (Some(name), _) => root.field("subgraphs").and_then(|f| f.field(name)),
                    (None, Some(inline)) => Some(inline),
                    (None, None) => None,
                };
                let Some(declared) = child
                    .and_then(|c| c.field("params"))
                    .and_then(Value::as_object)
                else {
                    continue;
                };
                let ptr = format!("{}/subgraph", s.node_ptr(id));
                let found = check_binding(
                    self.doc,
                    &self.suggestions,
                    id,
                    &ptr,
                    sg.field("params"),
                    declared,
                );
                self.diags.extend(found);
            }
        }
    }

    /// AG302 on each param default of `scope` that its own declaration refuses.
    fn check_defaults(&mut self, scope: &Scope<'_>) {
        let Some(params) = scope.obj.field("params").and_then(Value::as_object) else {
            return;
        };
        for (name, spec) in params {
            let Some(default) = spec.field("default") else {
                continue;
            };
            if let Err(why) = fits(spec, default) {
                let ptr = format!("{}/params/{}/default", scope.ptr, escape_token(name));
                self.error(
                    "AG302",
                    &ptr,
                    format!("the default of param `{name}` does not fit its declaration: {why}"),
                    Some(
                        if default.as_str().is_some_and(|d| {
                            ["yes", "no", "on", "off", "y", "n"]
                                .contains(&d.to_ascii_lowercase().as_str())
                        }) {
                            "YAML 1.2 reads `yes`/`no`/`on`/`off` as strings: write `true` or `false`"
                                .into()
                        } else {
                            "a run that does not give this param binds the default, and fails: \
fix the default or the declaration"
                                .into()
                        },
                    ),
                );
            }
        }
    }
}

/// AG301/AG302 for one `subgraph.params` (at `ptr`, the node's `subgraph` block in `doc`)
/// against the child's declared params; `id` names the node.
pub(super) fn check_binding(
    doc: &crate::source::Document,
    budget: &crate::diag::suggest::Budget,
    id: &str,
    ptr: &str,
    given: Option<&Value>,
    declared: &Map,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let given = given.and_then(Value::as_object);
    let at = if given.is_some() {
        format!("{ptr}/params")
    } else {
        ptr.to_string()
    };
    for (name, spec) in declared {
        let required = spec.field("required").and_then(Value::as_bool) != Some(false);
        if required
            && spec.field("default").is_none()
            && !given.is_some_and(|g| g.contains_key(name))
        {
            out.push(
                Diagnostic::error(
                    "AG301",
                    format!("`{id}` does not bind the required param `{name}` of its subgraph"),
                )
                .at(doc.key_span(&at))
                .with_pointer(at.clone())
                .with_help(format!(
                    "add `{name}: <expression>` under `subgraph.params`"
                )),
            );
        }
    }
    for name in given.into_iter().flat_map(|g| g.keys()) {
        if declared.contains_key(name) {
            continue;
        }
        let help = budget
            .closest(name, declared.keys().map(Str::as_str))
            .map(|c| format!("did you mean `{c}`?"))
            .unwrap_or_else(|| {
                let all: Vec<&str> = declared.keys().map(Str::as_str).collect();
                format!("the subgraph declares: {}", all.join(", "))
            });
        let p = format!("{ptr}/params/{}", escape_token(name));
        out.push(
            Diagnostic::error(
                "AG302",
                format!("the subgraph of `{id}` declares no param `{name}`"),
            )
            .at(doc.key_span(&p))
            .with_pointer(p)
            .with_help(help),
        );
    }
    out
}

/// Whether `value` fits the param declaration `spec` (its `type`, `enum` and `schema`), as a
/// run checks a bound param; the reason when not.
fn fits(spec: &Value, value: &Value) -> Result<(), String> {
    let ty = spec.field("type").and_then(Value::as_str).unwrap_or("any");
    let decl = Declared {
        schema: spec
            .field("schema")
            .filter(|s| s.is_object())
            .map(Value::to_json),
        enum_values: spec
            .field("enum")
            .and_then(Value::as_array)
            .map(|e| e.iter().map(Value::to_json).collect()),
        ..Declared::default()
    };
    // The runtime's value check reads JSON: the default, its schema and enum are copied (a
    // param default only, not a document's subtree of any size in practice).
    agc_runtime::run::core::check(&value.to_json(), ty, &decl).map_err(|m| m.message)
}
