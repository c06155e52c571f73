//! The references pass (upstream's `lintReferences`): the contract, the starts, then every
//! node of every graph, each template and condition compiled in its node's scope.
//!
//! Which fields hold what (research §4.1):
//! - templates: `collection`, `pattern`, every string under `params` (maps are followed, and
//!   maps inside lists; `run-agent` skips `params.output_schema`, `transform` skips
//!   `params.map.*.value`, `goal` reads only `agent`, `objective` and its judges), criterion
//!   `check`/`agent`/`rubric`/`prompt`/`tool`/`inputs.*`, `harvest.responder` and
//!   `harvest.content_rule`, `start[].input_mapping.*`, `contract.verification[]`;
//! - conditions: `condition`, `filter`, `contract.stop_when`, watch-events `events[].filter`;
//! - not checked (as upstream): `contract.goal`/`definition_of_done` (inserted verbatim into
//!   prompts) and `watch.*` (rendered at run time).
//!
//! A node is in fan-out scope (`item`, `index`) when a fan-out precedes it with no collect in
//! between; `trigger` is available to nodes when the Loop has a trigger, schedule or webhook
//! start, and to a start's own mapping when that start is one; `event` only to watch-events
//! filters. The contract's `stop_when` sees neither `item` nor `trigger`.

use super::lint::Linter;
use super::model::{NodeView, Scope, has_trigger_start, start_allows_trigger};
use super::namespace::{Namespace, NodeSchemas};
use super::refs::{Ref, TemplateWalk, cel_refs, cel_types, check_paths, not_bool};
use crate::diag::Diagnostic;
use crate::expr::{parse_cel, parse_gotmpl};
use crate::source::Value;
use crate::source::scalar::ScalarMap;
use crate::source::tree::escape_token;
use std::borrow::Cow;

/// Where a node reads references, as (pointer, is template).
type Fields = Vec<String>;

impl<'d> Linter<'d> {
    pub fn references(&mut self) {
        let trigger = has_trigger_start(self.root);
        let inputs = self.inputs.clone();
        let suggestions = self.suggestions.clone();
        self.typed_env = super::refs::typed_env(&inputs);
        for si in 0..self.scopes.len() {
            let scope = &self.scopes[si];
            let nodes: NodeSchemas<'d> = scope
                .nodes
                .iter()
                .map(|n| (n.id.to_string(), self.output_schema(n)))
                .collect();
            let base = Namespace {
                inputs: &inputs,
                nodes: &nodes,
                fanout: false,
                trigger: false,
                event: false,
                suggestions: &suggestions,
            };
            self.typed_env
                .insert("nodes", super::refs::nodes_type(&nodes));
            if si == 0 {
                self.contract_refs(&base);
                self.start_refs(&base);
            }
            let fan = fan_scope(scope);
            for (ni, n) in scope.nodes.iter().enumerate() {
                let ns = Namespace {
                    fanout: fan[ni],
                    trigger,
                    ..base.clone()
                };
                self.node_refs(si, ni, n, &ns);
            }
        }
    }

    fn contract_refs(&mut self, ns: &Namespace<'_>) {
        if self.str_at("/contract/stop_when").is_some() {
            self.condition("/contract/stop_when", ns, None, None);
        }
        let n = self
            .root
            .get("contract")
            .and_then(|c| c.get("verification"))
            .and_then(Value::as_array)
            .map_or(0, <[_]>::len);
        for i in 0..n {
            let mut fields = Vec::new();
            self.criterion_fields(&format!("/contract/verification/{i}"), &mut fields);
            for f in fields {
                self.template(&f, ns, None);
            }
        }
    }

    fn start_refs(&mut self, ns: &Namespace<'_>) {
        let starts = self.root.get("start").and_then(Value::as_array);
        for (i, s) in starts.into_iter().flatten().enumerate() {
            let kind = s.get("kind").and_then(Value::as_str).unwrap_or("");
            let sns = Namespace {
                trigger: start_allows_trigger(kind),
                ..ns.clone()
            };
            let mapping = s.get("input_mapping").and_then(Value::as_object);
            for (key, v) in mapping.into_iter().flatten() {
                let ptr = format!("/start/{i}/input_mapping/{}", escape_token(key));
                if !self.inputs.contains_key(key.as_str()) {
                    self.diags.push(
                        Diagnostic::error(
                            "unknown_reference",
                            format!(
                                "start input_mapping key `{key}` does not name a declared input"
                            ),
                        )
                        .at(self.doc.key_span(&ptr))
                        .with_pointer(&ptr),
                    );
                }
                if v.is_string() {
                    self.template(&ptr, &sns, None);
                }
            }
        }
    }

    fn node_refs(&mut self, si: usize, ni: usize, n: &NodeView<'_>, ns: &Namespace<'_>) {
        let at = Some((si, ni));
        self.transform_from(n, ns, at);
        for f in self.node_template_fields(n) {
            let is_collection = n.is("control", "fan-out") && f.ends_with("/collection");
            let refs = self.template(&f, ns, at);
            if is_collection && refs.is_some_and(|r| r.is_empty()) {
                self.error(
                    "fan_out_unbounded",
                    &f,
                    "a fan-out `collection` must reference a namespace value (`{{ .nodes.<id>.output.<list> }}`)"
                        .into(),
                );
            }
        }
        for key in ["condition", "filter"] {
            if n.str(key).is_some_and(|s| !s.trim().is_empty()) {
                self.condition(&n.field(key), ns, None, at);
            }
        }
        if n.is("source", "watch-events") {
            self.watch_filters(n, ns, at);
        }
    }

    fn watch_filters(&mut self, n: &NodeView<'_>, ns: &Namespace<'_>, at: Option<(usize, usize)>) {
        let ens = Namespace {
            event: true,
            ..ns.clone()
        };
        let events = n.get("events").and_then(Value::as_array);
        for (i, ev) in events.into_iter().flatten().enumerate() {
            let kind = ev.get("kind").and_then(Value::as_str).unwrap_or("").trim();
            if super::events::stream(kind).is_none() {
                continue;
            }
            let ptr = format!("{}/events/{i}/filter", n.ptr);
            let filter = ev.get("filter").and_then(Value::as_str).unwrap_or("");
            let parsed = if filter.trim().is_empty() {
                None
            } else {
                let label = format!("watch-events events[{i}].filter for kind `{kind}`");
                match self.condition(&ptr, &ens, Some(label), at) {
                    Some(e) => Some(e),
                    // Invalid: reported; the constraint rule is not applied.
                    None => continue,
                }
            };
            if super::events::NEEDS_SESSION.contains(&kind)
                && !parsed
                    .as_ref()
                    .is_some_and(super::events::has_session_constraint)
            {
                let target = if parsed.is_some() {
                    ptr.clone()
                } else {
                    format!("{}/events/{i}/kind", n.ptr)
                };
                self.error(
                    "watch_events_filter_too_broad",
                    &target,
                    format!(
                        "watch-events events[{i}].filter for kind `{kind}` must constrain \
`event.session_id` with an equality"
                    ),
                )
                .help = Some(
                    "add `event.session_id == inputs.session` (or a string literal), at the top \
level or joined with `&&`"
                        .into(),
                );
            }
        }
    }

    /// Each `params.map.<key>.from` path, checked in the node's namespace (and, as a read,
    /// a data link when it names a node's output).
    fn transform_from(&mut self, n: &NodeView<'_>, ns: &Namespace<'_>, at: Option<(usize, usize)>) {
        if !n.is("action", "transform") {
            return;
        }
        let map = n
            .params()
            .and_then(|p| p.get("map"))
            .and_then(Value::as_object);
        for (k, m) in map.into_iter().flatten() {
            let Some(from) = m.get("from").and_then(Value::as_str) else {
                continue;
            };
            let from = from.trim();
            if from.is_empty() {
                continue;
            }
            let ptr = format!("{}/params/map/{}/from", n.ptr, escape_token(k));
            let r = Ref {
                path: from.split('.').map(str::to_string).collect(),
                span: self.doc.span(&ptr),
            };
            let (errors, warnings) = check_paths(ns, std::slice::from_ref(&r));
            for mut d in errors.into_iter().chain(warnings) {
                d.message = format!("params.map.{k}.from: {}", d.message);
                self.diags.push(d.with_pointer(&ptr));
            }
            self.record(&ptr, &[r], at);
        }
    }

    /// The pointers of a node's template fields that hold strings.
    fn node_template_fields(&self, n: &NodeView<'_>) -> Fields {
        let mut out = Vec::new();
        for key in ["collection", "pattern"] {
            if n.get(key).is_some_and(Value::is_string) {
                out.push(n.field(key));
            }
        }
        let params = format!("{}/params", n.ptr);
        if let Some(p) = n.get("params") {
            match (n.class, n.kind) {
                ("action", "goal") => {
                    for k in ["agent", "objective"] {
                        if p.get(k).is_some_and(Value::is_string) {
                            out.push(format!("{params}/{k}"));
                        }
                    }
                    let judges = p
                        .get("judge")
                        .and_then(Value::as_array)
                        .map_or(0, <[_]>::len);
                    for i in 0..judges {
                        self.criterion_fields(&format!("{params}/judge/{i}"), &mut out);
                    }
                }
                ("action", "run-agent") => {
                    strings(p, &params, &mut out, &|path, key| {
                        path.len() == params.len() && key == "output_schema"
                    });
                }
                ("action", "transform") => {
                    let map = format!("{params}/map/");
                    strings(p, &params, &mut out, &|path, key| {
                        key == "value" && path.starts_with(&map)
                    });
                }
                _ => strings(p, &params, &mut out, &|_, _| false),
            }
        }
        let criteria = n
            .get("criteria")
            .and_then(Value::as_array)
            .map_or(0, <[_]>::len);
        for i in 0..criteria {
            self.criterion_fields(&format!("{}/criteria/{i}", n.ptr), &mut out);
        }
        for key in ["responder", "content_rule"] {
            if n.get("harvest")
                .and_then(|h| h.get(key))
                .is_some_and(Value::is_string)
            {
                out.push(format!("{}/harvest/{key}", n.ptr));
            }
        }
        out
    }

    fn criterion_fields(&self, ptr: &str, out: &mut Fields) {
        let Some(c) = self.doc.value.pointer(ptr) else {
            return;
        };
        for k in ["check", "agent", "rubric", "prompt", "tool"] {
            if c.get(k).is_some_and(Value::is_string) {
                out.push(format!("{ptr}/{k}"));
            }
        }
        if let Some(inputs) = c.get("inputs") {
            strings(inputs, &format!("{ptr}/inputs"), out, &|_, _| false);
        }
    }

    fn str_at(&self, ptr: &str) -> Option<&str> {
        self.doc.value.pointer(ptr).and_then(Value::as_str)
    }

    fn scalar_map(&self, ptr: &str, src: &str) -> Option<ScalarMap> {
        let node = self.doc.node(ptr)?;
        Some(ScalarMap::for_scalar(self.text, node, src))
    }

    /// Compiles the template at `ptr` in `ns`: its references when it compiles (every path
    /// error reported), `None` when it does not.
    pub(super) fn template(
        &mut self,
        ptr: &str,
        ns: &Namespace<'_>,
        at: Option<(usize, usize)>,
    ) -> Option<Vec<Ref>> {
        let src = self.str_at(ptr)?.to_string();
        if src.trim().is_empty() {
            return None;
        }
        if !src.contains("{{") {
            self.sources.insert(ptr.to_string(), false);
            return Some(Vec::new());
        }
        let map = self.scalar_map(ptr, &src)?;
        let (expr, spans) = match parse_gotmpl(&src, &map) {
            Ok(x) => x,
            Err(ds) => {
                self.diags
                    .extend(ds.into_iter().map(|d| d.with_pointer(ptr)));
                return None;
            }
        };
        let fns = self.version.template_functions();
        let walk = TemplateWalk::run(&expr, &spans, fns, self.version.name());
        if !walk.diags.is_empty() {
            self.diags
                .extend(walk.diags.into_iter().map(|d| d.with_pointer(ptr)));
            return None;
        }
        let (errors, warnings) = check_paths(ns, &walk.refs);
        self.diags.extend(
            errors
                .into_iter()
                .chain(warnings)
                .map(|d| d.with_pointer(ptr)),
        );
        self.record(ptr, &walk.refs, at);
        self.exprs
            .insert(ptr.to_string(), std::sync::Arc::new(expr));
        self.sources.insert(ptr.to_string(), false);
        Some(walk.refs)
    }

    /// Compiles the condition at `ptr` in `ns`. `label`: a watch-events filter, whose every
    /// failure is `watch_events_filter_invalid` (as upstream wraps them).
    fn condition(
        &mut self,
        ptr: &str,
        ns: &Namespace<'_>,
        label: Option<String>,
        at: Option<(usize, usize)>,
    ) -> Option<agc_runtime::expr::Expr> {
        let src = self.str_at(ptr)?.to_string();
        let map = self.scalar_map(ptr, &src)?;
        let recode = |mut d: Diagnostic| {
            if let Some(l) = &label
                && d.is_error()
            {
                d.code = "watch_events_filter_invalid";
                d.message = format!("{l} is invalid: {}", d.message);
            }
            d.with_pointer(ptr)
        };
        let (expr, spans) = match parse_cel(&src, &map) {
            Ok(x) => x,
            Err(ds) => {
                self.diags.extend(ds.into_iter().map(recode));
                return None;
            }
        };
        let (compile, ty) = cel_types(&expr, &spans);
        if !compile.is_empty() {
            self.diags.extend(compile.into_iter().map(recode));
            return None;
        }
        let refs = cel_refs(&expr, &spans);
        let (errors, warnings) = check_paths(ns, &refs);
        let failed = !errors.is_empty();
        self.diags
            .extend(errors.into_iter().chain(warnings).map(recode));
        if failed {
            return None;
        }
        let whole = spans
            .get(expr.id as usize)
            .copied()
            .unwrap_or(self.doc.span(ptr));
        if let Some(d) = not_bool(&ty, whole) {
            self.diags.push(recode(d));
            return None;
        }
        // Beyond upstream: the condition typed against the declared schemas (a warning).
        let (_, typed) =
            crate::expr::check::check(&expr, agc_runtime::expr::Lang::Cel, &self.typed_env);
        for t in typed.into_iter().filter(|t| super::refs::certain(t.kind)) {
            let span = spans.get(t.node as usize).copied().unwrap_or(whole);
            self.diags.push(
                Diagnostic::warning(
                    "AGC224",
                    format!(
                        "{}: this fails at run time for every value the declared types allow",
                        t.message
                    ),
                )
                .at(span)
                .with_pointer(ptr),
            );
        }
        self.record(ptr, &refs, at);
        self.exprs
            .insert(ptr.to_string(), std::sync::Arc::new(expr.clone()));
        self.sources.insert(ptr.to_string(), true);
        Some(expr)
    }

    /// Remembers which nodes a node's field reads (for the IR's data links).
    fn record(&mut self, ptr: &str, refs: &[Ref], at: Option<(usize, usize)>) {
        let scope = at.map_or(0, |(si, _)| si as u32);
        for r in refs {
            if r.path.len() >= 2 && r.path[0] == "nodes" {
                self.node_reads
                    .push((scope, r.path[1].as_str().into(), r.span));
            }
        }
        let Some((si, ni)) = at else { return };
        for r in refs {
            if r.path.len() >= 3 && r.path[0] == "nodes" && r.path[2] == "output" {
                self.reads
                    .push((si, ni, ptr.to_string(), r.path[1].clone()));
            }
        }
    }

    /// A node's output schema in the namespace (research §4.2), `None` when undeclared.
    /// Borrowed from the document (or the tool declarations) where it is written there, so
    /// neither the scopes' namespaces nor the lowering copy every agent node's schema (the
    /// lowering's copies were a quarter of a 10k-node check's peak heap).
    pub fn output_schema(&self, n: &NodeView<'d>) -> Option<Cow<'d, Value>> {
        if let Some(p) = n.get("produces").filter(|p| !is_empty(p)) {
            return Some(Cow::Borrowed(p));
        }
        let param = |k: &str| n.params().and_then(|p| p.get(k));
        match (n.class, n.kind) {
            ("source", "input") => {
                let r = n.str("input_ref")?;
                self.inputs.get(r).cloned().map(Cow::Owned)
            }
            ("source", "watch-events") => Some(Cow::Owned(super::events::output_schema())),
            ("action", "goal") => param("output_schema")
                .filter(|v| v.is_object())
                .map(Cow::Borrowed),
            ("action", "run-agent") => param("output_schema")
                .filter(|v| !is_empty(v))
                .map(Cow::Borrowed),
            ("action", "run-loop") => Some(Cow::Owned(Value::from(
                serde_json::json!({"status": "string", "outputs": {}}),
            ))),
            ("action", "transform") => {
                let map = param("map")?.as_object().filter(|m| !m.is_empty())?;
                Some(Cow::Owned(Value::Object(
                    map.keys()
                        .map(|k| (k.clone(), Value::from("any")))
                        .collect(),
                )))
            }
            ("action", kind) if !super::model::RESERVED_ACTIONS.contains(&kind) => {
                match self.tools.resolve(kind, self.version.native_prefix()) {
                    super::tools::Resolved::Declared(t) => t
                        .output
                        .as_ref()
                        .filter(|v| !is_empty(v))
                        .map(Cow::Borrowed),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

/// Pointers of every string under `v` (maps followed, and maps inside lists, as upstream's
/// `paramsStringFields`); `skip(parent pointer, key)` prunes an entry.
fn strings(v: &Value, ptr: &str, out: &mut Fields, skip: &dyn Fn(&str, &str) -> bool) {
    // Explicit stack: params can nest as deep as the document.
    let mut stack: Vec<(&Value, String)> = vec![(v, ptr.to_string())];
    let mut found = Vec::new();
    while let Some((v, p)) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    if skip(&p, k) {
                        continue;
                    }
                    let cp = format!("{p}/{}", escape_token(k));
                    match c {
                        Value::String(_) => found.push(cp),
                        Value::Object(_) => stack.push((c, cp)),
                        Value::Array(items) => {
                            for (i, it) in items.iter().enumerate() {
                                if it.is_object() {
                                    stack.push((it, format!("{cp}/{i}")));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            Value::Array(_) | Value::String(_) => {}
            _ => {}
        }
    }
    found.sort();
    out.extend(found);
}

/// Which nodes of a graph are in fan-out scope: reachable from a fan-out's successors without
/// entering a collect.
pub fn fan_scope(scope: &Scope<'_>) -> Vec<bool> {
    let (out, _) = scope.adjacency();
    let n = scope.nodes.len();
    let mut inside = vec![false; n];
    let mut stack: Vec<usize> = (0..n)
        .filter(|&i| scope.nodes[i].is("control", "fan-out"))
        .flat_map(|i| out[i].iter().copied())
        .collect();
    while let Some(v) = stack.pop() {
        if inside[v] || scope.nodes[v].is("control", "collect") {
            continue;
        }
        inside[v] = true;
        stack.extend(out[v].iter().copied());
    }
    inside
}
