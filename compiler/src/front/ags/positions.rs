//! Every place an AGS document holds AGX (expression position) or a `${{ }}` template
//! (template position), per ags.md §2.1, with what each may read.

use super::scope::Scope;
use crate::source::Field;
use crate::source::Str;
use crate::source::Value;
use crate::source::tree::escape_token;

/// What an expression may read, beyond its scope's declarations. Node ids are held as the
/// document's own [`Str`]: a short id is copied inline, where a `String` cost two allocations
/// per position (a 100k-node graph has 300k positions).
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// The node whose predecessors (and itself) may be read through `nodes.*` (AG201). `None`:
    /// any node of the scope (graph outputs, loop condition and collect).
    pub anchor: Option<Str>,
    /// The node `self` refers to.
    pub self_node: Option<Str>,
    /// `self.outputs` is readable (success criteria, checkpoints after outputs).
    pub self_outputs: bool,
    /// The `outputs` root is readable (graph outputs and success, `outputs_from`).
    pub outputs_root: bool,
    /// For `outputs_from`: the child scope whose outputs `outputs.*` names.
    pub child_outputs: Option<Str>,
}

/// One expression or template position.
#[derive(Clone, Debug)]
pub struct Position {
    pub ptr: String,
    pub template: bool,
    pub access: Access,
}

fn at(ptr: String, template: bool, access: Access) -> Position {
    Position {
        ptr,
        template,
        access,
    }
}

/// Positions inside one scope's nodes and edges (and, for the root, graph outputs/success).
pub fn collect(scope: &Scope<'_>) -> Vec<Position> {
    let mut out = Vec::new();
    for (id, node) in scope.nodes() {
        let np = scope.node_ptr(id);
        let own = || Access {
            anchor: Some(id.clone()),
            self_node: Some(id.clone()),
            ..Access::default()
        };
        let with_outputs = || Access {
            self_outputs: true,
            ..own()
        };
        if node.field("when").is_some() {
            out.push(at(format!("{np}/when"), false, own()));
        }
        if node.field("instructions").is_some() {
            out.push(at(format!("{np}/instructions"), true, own()));
        }
        for (name, spec) in node
            .field("inputs")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let ip = format!("{np}/inputs/{}", escape_token(name));
            if spec.field("from").is_some() {
                out.push(at(format!("{ip}/from"), false, own()));
            }
            if spec.field("template").is_some() {
                out.push(at(format!("{ip}/template"), true, own()));
            }
        }
        if let Some(d) = node.field("decision") {
            if d.field("question").is_some() {
                out.push(at(format!("{np}/decision/question"), true, own()));
            }
            for (i, b) in d
                .field("branches")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if b.field("when").is_some() {
                    out.push(at(format!("{np}/decision/branches/{i}/when"), false, own()));
                }
            }
        }
        if let Some(g) = node.field("gate") {
            if g.field("prompt").is_some() {
                out.push(at(format!("{np}/gate/prompt"), true, own()));
            }
            for (i, _) in g
                .field("present")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                out.push(at(format!("{np}/gate/present/{i}"), false, with_outputs()));
            }
        }
        for (i, h) in node
            .field("human")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let after = matches!(
                h.field("at").and_then(Value::as_str),
                Some("after_outputs" | "on_criteria_failure")
            );
            let acc = || if after { with_outputs() } else { own() };
            if h.field("prompt").is_some() {
                out.push(at(format!("{np}/human/{i}/prompt"), true, acc()));
            }
            if h.field("when").is_some() {
                out.push(at(format!("{np}/human/{i}/when"), false, acc()));
            }
        }
        criteria(
            &mut out,
            node.field("success"),
            &format!("{np}/success"),
            with_outputs,
        );
        if let Some(f) = node.field("failure") {
            for (i, s) in f
                .field("fallback")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if s.field("when").is_some() {
                    out.push(at(
                        format!("{np}/failure/fallback/{i}/when"),
                        false,
                        with_outputs(),
                    ));
                }
            }
            if f.field("escalation")
                .and_then(|e| e.field("message"))
                .is_some()
            {
                out.push(at(
                    format!("{np}/failure/escalation/message"),
                    true,
                    with_outputs(),
                ));
            }
        }
        // map.over and subgraph.params are read in this (the parent) scope, anchored at the
        // owner node.
        let parent_side = own;
        if let Some(m) = node.field("map")
            && m.field("over").is_some()
        {
            out.push(at(format!("{np}/map/over"), false, parent_side()));
        }
        if let Some(s) = node.field("subgraph") {
            for (k, _) in s
                .field("params")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                out.push(at(
                    format!("{np}/subgraph/params/{}", escape_token(k)),
                    false,
                    parent_side(),
                ));
            }
            for (k, _) in s
                .field("outputs_from")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                out.push(at(
                    format!("{np}/subgraph/outputs_from/{}", escape_token(k)),
                    false,
                    Access {
                        outputs_root: true,
                        child_outputs: Some(id.clone()),
                        ..Access::default()
                    },
                ));
            }
        }
    }
    for (i, e) in scope.edges() {
        if e.field("when").is_some() {
            let from = e.field("from").and_then(Value::as_str).map(Str::from);
            out.push(at(
                format!("{}/edges/{i}/when", scope.ptr),
                false,
                Access {
                    anchor: from,
                    ..Access::default()
                },
            ));
        }
    }
    // Graph (or fragment) outputs and success: any node of the scope, plus `outputs`.
    let graph_level = || Access {
        outputs_root: true,
        ..Access::default()
    };
    for (k, o) in scope
        .obj
        .field("outputs")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if o.field("from").is_some() {
            out.push(at(
                format!("{}/outputs/{}/from", scope.ptr, escape_token(k)),
                false,
                graph_level(),
            ));
        }
    }
    criteria(
        &mut out,
        scope.obj.field("success"),
        &format!("{}/success", scope.ptr),
        graph_level,
    );
    out
}

/// Positions of a loop or map owner that are read in its body scope (no anchor).
pub fn body_positions(owner_ptr: &str, block: &str, block_value: &Value) -> Vec<Position> {
    let mut out = Vec::new();
    if block == "loop" && block_value.field("condition").is_some() {
        out.push(at(
            format!("{owner_ptr}/loop/condition"),
            false,
            Access::default(),
        ));
    }
    for (k, _) in block_value
        .field("collect")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        out.push(at(
            format!("{owner_ptr}/{block}/collect/{}", escape_token(k)),
            false,
            Access::default(),
        ));
    }
    out
}

fn criteria(
    out: &mut Vec<Position>,
    success: Option<&Value>,
    sp: &str,
    access: impl Fn() -> Access,
) {
    let Some(success) = success else { return };
    for (i, c) in success
        .field("criteria")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let cp = format!("{sp}/criteria/{i}");
        for field in ["expr", "target"] {
            if c.field(field).is_some() {
                out.push(at(format!("{cp}/{field}"), false, access()));
            }
        }
        for field in ["rubric", "prompt"] {
            if c.field(field).is_some() {
                out.push(at(format!("{cp}/{field}"), true, access()));
            }
        }
        for (j, _) in c
            .field("inputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            out.push(at(format!("{cp}/inputs/{j}"), false, access()));
        }
    }
}
