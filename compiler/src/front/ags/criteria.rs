//! AG206 on a success criterion's `output:` (artifact_present, json_schema, regex): it names
//! an output of the node the criterion belongs to (its declared and implicit outputs, as
//! `nodes.<id>.outputs.*` reads them), or, for the graph's (or a fragment's) own `success`,
//! one of the graph's `outputs`.

use super::checker::Checker;
use super::names::{declares_output, outputs_of};
use super::scope::Scope;
use crate::source::Field;
use crate::source::{Map, Value};

impl Checker<'_> {
    /// AG206 on every criterion `output:` of `scope` that names no output.
    pub(super) fn check_criterion_outputs(&mut self, root: &Map, scope: &Scope<'_>) {
        for (id, node) in scope.nodes() {
            let ptr = scope.node_ptr(id);
            for (i, name) in criterion_outputs(node) {
                if declares_output(root, node, name) != Some(false) {
                    continue;
                }
                let declared = outputs_of(root, node).unwrap_or_default();
                let help = self.closest_output(name, declared.iter().map(String::as_str));
                self.error(
                    "AG206",
                    &format!("{ptr}/success/criteria/{i}/output"),
                    format!("the criterion reads output `{name}`, which `{id}` does not declare"),
                    Some(help),
                );
            }
        }
        let graph_outputs = scope.obj.field("outputs").and_then(Value::as_object);
        for (i, name) in criterion_outputs(scope.obj) {
            if graph_outputs.is_some_and(|o| o.contains_key(name)) {
                continue;
            }
            let help = self.closest_output(
                name,
                graph_outputs.into_iter().flatten().map(|(k, _)| k.as_str()),
            );
            self.error(
                "AG206",
                &format!("{}/success/criteria/{i}/output", scope.ptr),
                format!("the criterion reads output `{name}`, which the graph does not declare"),
                Some(help),
            );
        }
    }

    fn closest_output<'a>(&self, name: &str, declared: impl Iterator<Item = &'a str>) -> String {
        self.suggestions
            .closest(name, declared)
            .map(|c| format!("did you mean `{c}`?"))
            .unwrap_or_else(|| "`output:` names one of the declared `outputs`".into())
    }
}

/// `(index, output)` of each criterion of `obj`'s `success` that names an `output`.
fn criterion_outputs(obj: &Map) -> impl Iterator<Item = (usize, &str)> {
    obj.field("success")
        .and_then(|s| s.field("criteria"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, c)| Some((i, c.field("output")?.as_str()?)))
}
