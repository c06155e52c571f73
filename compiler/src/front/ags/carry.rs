//! A loop's `carry`: each key names an output produced in the loop's body (AG206 otherwise)
//! and each value a param of the body (AG203 otherwise), SPEC §10 and the reference
//! validator's rule (research notes `ags.md` §3.3).
//!
//! - "Produced in the body" means declared by a node of the body (its own `outputs` or the
//!   implicit ones of [`super::names::outputs_of`]: `decision`, `collect` keys,
//!   `outputs_from`). When a body node is a `subgraph.ref` without `outputs_from`, its outputs
//!   are not known here and the key is not judged.
//! - The body's params are its own `params`, else the graph's, as for `params.*` reads in the
//!   body ([`super::exprs`]).
//! - The body is `loop.body`, or the fragment named by `loop.use`; a `use` naming no fragment
//!   is AG132 already and is skipped here.

use super::checker::Checker;
use super::names::outputs_of;
use super::scope::{Scope, ScopeKind};
use crate::hash::{HashMap, HashSet};
use crate::source::Field;
use crate::source::Value;
use crate::source::tree::escape_token;

impl Checker<'_> {
    pub(super) fn check_carry(&mut self, scopes: &[Scope<'_>]) {
        let Some(root) = scopes.first().map(|s| s.obj) else {
            return;
        };
        // Bodies found by pointer and fragments by name through one index each, and a body's
        // outputs gathered once however many loops read it: a graph of many loops stays linear.
        let by_ptr: HashMap<&str, usize> = scopes
            .iter()
            .enumerate()
            .map(|(i, b)| (b.ptr.as_str(), i))
            .collect();
        let fragments: HashMap<&str, usize> = scopes
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match &b.kind {
                ScopeKind::Fragment(name) => Some((name.as_str(), i)),
                _ => None,
            })
            .collect();
        let mut produced_by: HashMap<usize, Option<HashSet<String>>> = HashMap::default();
        for s in scopes {
            for (id, node) in s.nodes() {
                let Some(lp) = node.field("loop").and_then(Value::as_object) else {
                    continue;
                };
                let Some(carry) = lp.field("carry").and_then(Value::as_object) else {
                    continue;
                };
                let owner_ptr = s.node_ptr(id);
                let body = if lp.contains_key("body") {
                    by_ptr.get(format!("{owner_ptr}/loop/body").as_str())
                } else {
                    lp.field("use")
                        .and_then(Value::as_str)
                        .and_then(|name| fragments.get(name))
                };
                let Some(&bi) = body else { continue };
                let body = &scopes[bi];
                // Every output the body's nodes declare; `None` when one is not known.
                let produced = produced_by.entry(bi).or_insert_with(|| {
                    let mut all = HashSet::default();
                    for (_, n) in body.nodes() {
                        all.extend(outputs_of(root, n)?);
                    }
                    Some(all)
                });
                let params = body
                    .obj
                    .field("params")
                    .or_else(|| root.field("params"))
                    .and_then(Value::as_object);
                for (key, target) in carry {
                    let ptr = format!("{owner_ptr}/loop/carry/{}", escape_token(key));
                    if let Some(all) = produced
                        && !all.contains(key.as_str())
                    {
                        let help = self
                            .suggestions
                            .closest(key, all.iter().map(String::as_str))
                            .map(|c| format!("did you mean `{c}`?"))
                            .unwrap_or_else(|| {
                                "a carry key names an output that a node of the loop's body declares"
                                    .to_string()
                            });
                        self.error_key(
                            "AG206",
                            &ptr,
                            &format!(
                                "`carry` reads `{key}`, which no node of the loop's body outputs"
                            ),
                            &help,
                        );
                    }
                    if let Some(t) = target.as_str()
                        && !params.is_some_and(|p| p.contains_key(t))
                    {
                        self.error(
                            "AG203",
                            &ptr,
                            format!("`carry` writes `{t}`, which is not a param of the loop's body"),
                            Some(format!(
                                "declare `{t}` under the body's `params`; the next iteration reads it as `params.{t}`"
                            )),
                        );
                    }
                }
            }
        }
    }
}
