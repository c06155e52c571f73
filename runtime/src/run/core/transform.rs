//! agh `transform` nodes: the output is the evaluated `params.map`, `{key: value}`.
//!
//! The compiler lowers each map entry into one node input (`produces: inputs` marks the
//! lowering), so the runtime parses nothing:
//!
//! - `from` (an input with a path expression): the dotted namespace path read with its native
//!   type (`null` included); a path that does not resolve (a missing key, a field of a list,
//!   a root the namespace does not hold) fails the node (RT033) naming the entry and the path;
//! - `template` (a `{{ }}` template): rendered to a string, also when it is exactly one
//!   action (unlike a fan-out's `collection`, which keeps its type); a failing action fails
//!   the node the same way;
//! - `value`: the literal as written, never rendered.
//!
//! The evaluated map is both the node run's `inputs` in the record and its output (`output`,
//! what `.nodes.<id>.output` reads). A plan lowered before this (its map a single `map` input,
//! no `attributes.transform`) is still reported as not carried out (AGC307).

use super::super::env::Anchor;
use super::super::{RunId, State};
use crate::plan::{InputSource, NodeKind, Produces};
use serde_json::{Map, Value};

impl State {
    /// Whether plan node `node` is an agh transform whose map is lowered to its inputs.
    pub(in crate::run::core) fn is_transform(&self, node: usize) -> bool {
        let n = &self.plan.nodes[node];
        n.kind == NodeKind::StateUpdate && n.produces == Some(Produces::Inputs)
    }

    /// Evaluates transform run `r`'s map in its scope.
    pub(in crate::run::core) fn transform_map(
        &self,
        r: RunId,
    ) -> Result<Map<String, Value>, String> {
        let node = &self.plan.nodes[self.runs[r].node];
        let scope = self.runs[r].scope;
        let anchor = Anchor {
            run: Some(r),
            inputs: None,
        };
        let mut out = Map::new();
        for input in &node.inputs {
            let value = match &input.source {
                InputSource::From(e) => self.eval(scope, e, &anchor).map_err(|err| {
                    format!("map entry `{}`: `from` does not resolve: {err}", input.name)
                })?,
                InputSource::Template(e) => self.render(scope, e, &anchor).map_err(|err| {
                    format!("map entry `{}`: the template failed: {err}", input.name)
                })?,
                InputSource::Value(v) => v.clone(),
                // Not produced by the lowering; nothing to read.
                InputSource::Implicit(_) => continue,
            };
            out.insert(input.name.clone(), value);
        }
        Ok(out)
    }
}
