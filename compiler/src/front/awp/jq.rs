//! jq in AWP documents (research note §3.2): where programs sit, parsing them all at once,
//! and checking the state paths they read against `state_schema`.
//!
//! Programs: switch `cases[].when`, `set_state` `assignments.<key>.jq`, `end`
//! `output_mapping`, and `subworkflow` / `agent_delegate` `input_mapping.<key>` values that
//! are `{jq: …}` or a string that is entirely `${ … }` (the engine's
//! `^\$\{\s*(.+?)\s*\}$` after trimming; `.` there does not match a line break, so a template
//! spread over several lines is a literal string, as upstream). `tool_call` arguments and
//! prompts are never evaluated upstream, so they are not programs here either.

use super::checker::Checker;
use super::model::{Model, NodeRef};
use super::state::{Lookup, lookup, types};
use crate::expr::jq::{JqProgram, Seg, parse_jq_many};
use crate::source::scalar::ScalarMap;
use crate::source::{Map, Str, Value};
use std::collections::HashSet;

/// Where a program sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A switch case condition.
    When,
    /// A `set_state` assignment to a top-level key.
    Assign,
    /// An `end` node's `output_mapping`.
    Output,
    /// An `input_mapping` value (`{jq: …}` or `${ … }`).
    Input,
}

/// One jq program of the document.
pub struct Site {
    /// Pointer of the string that holds the program.
    pub ptr: String,
    pub role: Role,
    /// The program text (for `${ … }`, what is inside).
    pub text: String,
    /// Byte offset of the program inside the string (non-zero for `${ … }`).
    pub offset: usize,
}

/// The program inside a whole-value `${ … }` string, with its byte offset in `s`.
pub fn template_inner(s: &str) -> Option<(usize, &str)> {
    let lead = s.len() - s.trim_start().len();
    let t = s.trim();
    let body = t.strip_prefix("${")?.strip_suffix('}')?;
    let inner = body.trim_matches(|c: char| c.is_whitespace());
    if inner.is_empty() || inner.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let off = lead + 2 + (body.len() - body.trim_start().len());
    Some((off, inner))
}

/// Programs parsed and checked together ([`Checker::check_jq`]): one jq thread start per
/// batch.
const JQ_BATCH: usize = 1024;

/// The jq programs of one node, in document order, appended to `out`.
pub fn node_sites(n: &NodeRef<'_>, out: &mut Vec<Site>) {
    let mut push = |ptr: String, role: Role, text: &str, offset: usize| {
        out.push(Site {
            ptr,
            role,
            text: text.to_string(),
            offset,
        })
    };
    let holds_programs = matches!(
        n.ty,
        "switch" | "set_state" | "end" | "subworkflow" | "agent_delegate"
    );
    let Some(cfg) = n.config().filter(|_| holds_programs) else {
        return;
    };
    let base = format!("{}/config", n.ptr());
    match n.ty {
        "switch" => {
            for (i, c) in array(cfg, "cases").iter().enumerate() {
                if let Some(w) = c.get("when").and_then(Value::as_str) {
                    push(format!("{base}/cases/{i}/when"), Role::When, w, 0);
                }
            }
        }
        "set_state" => {
            for (k, v) in object(cfg, "assignments") {
                if let Some(j) = v.get("jq").and_then(Value::as_str) {
                    let ptr =
                        crate::source::Document::child_pointer(&format!("{base}/assignments"), k);
                    push(format!("{ptr}/jq"), Role::Assign, j, 0);
                }
            }
        }
        "end" => {
            if let Some(o) = cfg.get("output_mapping").and_then(Value::as_str) {
                push(format!("{base}/output_mapping"), Role::Output, o, 0);
            }
        }
        "subworkflow" | "agent_delegate" => {
            for (k, v) in object(cfg, "input_mapping") {
                let ptr =
                    crate::source::Document::child_pointer(&format!("{base}/input_mapping"), k);
                match v {
                    Value::Object(o) => {
                        if let Some(j) = o.get("jq").and_then(Value::as_str) {
                            push(format!("{ptr}/jq"), Role::Input, j, 0);
                        }
                    }
                    Value::String(s) => {
                        if let Some((off, inner)) = template_inner(s) {
                            push(ptr, Role::Input, inner, off);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The map from the program's offsets to the file (`None` if the pointer names no string).
pub fn program_map(doc: &crate::source::Document, text: &str, s: &Site) -> Option<ScalarMap> {
    let at = doc.at(&s.ptr)?;
    let whole = at.value.as_str()?;
    let map = ScalarMap::for_scalar(text, at.node, whole);
    Some(if s.offset == 0 && s.text.len() == whole.len() {
        map
    } else {
        map.part(s.offset, s.text.len())
    })
}

fn array<'a>(m: &'a Map, k: &str) -> &'a [Value] {
    m.get(k).and_then(Value::as_array).unwrap_or_default()
}

fn object<'a>(m: &'a Map, k: &str) -> impl Iterator<Item = (&'a Str, &'a Value)> {
    m.get(k).and_then(Value::as_object).into_iter().flatten()
}

impl Checker<'_> {
    pub(super) fn check_jq(&mut self, m: &Model<'_>) {
        let state = self.doc.value.get("state_schema").unwrap_or(&Value::Null);
        let schema = Schemas {
            state,
            input: super::ports::input_schema(&self.doc.value),
        };
        let mut read: HashSet<String> = HashSet::new();
        // Readers of the whole state besides jq: an `end` without `output_mapping` (its
        // result is the state), an `llm_call` without `user_prompt`/`prompt` (its user message
        // is the state as JSON), a `step` (its handler gets the state).
        let mut whole = m.nodes.iter().any(|n| match n.ty {
            "end" => n.config_str("output_mapping").is_none(),
            "llm_call" => n
                .config_str("user_prompt")
                .or(n.config_str("prompt"))
                .is_none(),
            "step" => true,
            _ => false,
        });
        // In document order, a batch at a time: a wide workflow's programs, their maps and
        // parses all held at once were a quarter of its check's peak.
        let mut batch = Vec::new();
        for n in &m.nodes {
            node_sites(n, &mut batch);
            if batch.len() >= JQ_BATCH {
                let sites = std::mem::take(&mut batch);
                self.check_batch(sites, &schema, &mut read, &mut whole);
            }
        }
        self.check_batch(batch, &schema, &mut read, &mut whole);
        if !whole {
            self.check_unused(&read);
        }
    }

    /// Parses a batch of programs (on one jq thread) and checks each: its errors and
    /// warnings, the state paths it reads (collected into `read`, or `whole` when it reads
    /// the whole state), against `schema`.
    fn check_batch(
        &mut self,
        sites: Vec<Site>,
        schema: &Schemas<'_>,
        read: &mut HashSet<String>,
        whole: &mut bool,
    ) {
        if sites.is_empty() {
            return;
        }
        let (sites, maps): (Vec<Site>, Vec<ScalarMap>) = sites
            .into_iter()
            .filter_map(|s| {
                let map = program_map(self.doc, self.text, &s)?;
                Some((s, map))
            })
            .unzip();
        let results = parse_jq_many(
            sites
                .iter()
                .zip(&maps)
                .map(|(s, map)| (s.text.clone(), map))
                .collect(),
        );
        for (site, result) in sites.iter().zip(results) {
            let prog = match result {
                Ok(p) => p,
                Err(errs) => {
                    for e in errs {
                        self.diags.push(e.with_pointer(site.ptr.clone()));
                    }
                    continue;
                }
            };
            for w in &prog.warnings {
                self.diags.push(w.clone().with_pointer(site.ptr.clone()));
            }
            *whole |= prog.whole;
            for (p, _) in &prog.paths {
                match p.0.first() {
                    Some(Seg::Field(f)) => {
                        read.insert(f.clone());
                    }
                    _ => *whole = true,
                }
            }
            self.check_paths(site, &prog, schema);
            if site.role == Role::When {
                self.check_when(site, &prog, schema);
            }
        }
    }

    fn check_paths(&mut self, site: &Site, prog: &JqProgram, schema: &Schemas<'_>) {
        let mut seen = HashSet::new();
        for (p, span) in &prog.paths {
            let (code, at, why) = match schema.lookup(p) {
                Lookup::Typed(_) => continue,
                Lookup::Cannot { at, why } => ("AGC242", at, why),
                Lookup::Untyped { at, why } => ("AGC243", at, why),
            };
            let prefix = crate::expr::jq::JqPath(p.0[..=at].to_vec());
            if !seen.insert((code, prefix.to_string())) {
                continue;
            }
            let msg = if code == "AGC242" {
                format!("`{p}` cannot be in the state: at `{prefix}`, {why}")
            } else {
                format!("`{p}` is not checked against `state_schema`: at `{prefix}`, {why}")
            };
            let d = crate::diag::Diagnostic::new(code, msg)
                .at(*span)
                .with_pointer(site.ptr.clone());
            self.diags.push(d);
        }
    }

    /// AGC244: a `when` that is a non-boolean literal, or one path to a required property whose
    /// type admits neither `boolean` nor `null`.
    fn check_when(&mut self, site: &Site, prog: &JqProgram, schema: &Schemas<'_>) {
        let src = prog.source.trim();
        // The program read as a JSON literal (program text, not a document value).
        use serde_json::Value as Json;
        let literal = serde_json::from_str::<Json>(src).ok().filter(|v| {
            matches!(
                v,
                Json::String(_) | Json::Number(_) | Json::Array(_) | Json::Object(_)
            )
        });
        let yields = if let Some(v) = literal {
            Some(match v {
                Json::String(_) => "a string",
                Json::Number(_) => "a number",
                Json::Array(_) => "an array",
                _ => "an object",
            })
        } else {
            match prog.paths.as_slice() {
                [(p, _)] if p.to_string() == src && always_present(schema.state, p) => {
                    match lookup(schema.state, p) {
                        Lookup::Typed(t) => types(t).and_then(|ts| {
                            (!ts.is_empty() && !ts.iter().any(|t| matches!(*t, "boolean" | "null")))
                                .then_some(match ts.as_slice() {
                                    ["string"] => "a string",
                                    ["array"] => "an array",
                                    ["object"] => "an object",
                                    ["number" | "integer"] => "a number",
                                    _ => "a value that is never false or null",
                                })
                        }),
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        if let Some(what) = yields {
            let d = self
                .diag(
                    "AGC244",
                    &site.ptr,
                    format!("this `when` can only yield {what}, which always counts as true"),
                )
                .with_help("compare the value, e.g. `.status == \"open\"`");
            self.diags.push(d);
        }
    }

    fn check_unused(&mut self, read: &HashSet<String>) {
        let Some(props) = self
            .doc
            .value
            .pointer("/state_schema/properties")
            .and_then(Value::as_object)
        else {
            return;
        };
        for k in props.keys() {
            if read.contains(k.as_str()) {
                continue;
            }
            let ptr = crate::source::Document::child_pointer("/state_schema/properties", k);
            let d = crate::diag::Diagnostic::new(
                "AGC241",
                format!("state property `{k}` is declared but no jq program reads it"),
            )
            .at(self.doc.key_span(&ptr))
            .with_pointer(ptr);
            self.diags.push(d);
        }
    }
}

/// The schemas a state path is looked up in.
struct Schemas<'s> {
    state: &'s Value,
    /// The `start` node's `input_schema`: the run's input is the initial state, so a
    /// top-level key it declares and `state_schema` does not is typed by it.
    input: Option<&'s Value>,
}

impl<'s> Schemas<'s> {
    fn lookup(&self, p: &crate::expr::jq::JqPath) -> Lookup<'s> {
        let found = lookup(self.state, p);
        match (&found, self.input, p.0.first()) {
            (Lookup::Untyped { at: 0, .. }, Some(input), Some(Seg::Field(f)))
                if input
                    .get("properties")
                    .and_then(|ps| ps.get(f.as_str()))
                    .is_some() =>
            {
                lookup(input, p)
            }
            _ => found,
        }
    }
}

/// Whether every field step of `p` is `required` by its object (so the path is never
/// missing, which would read `null`).
fn always_present(schema: &Value, p: &crate::expr::jq::JqPath) -> bool {
    let mut s = schema;
    for seg in &p.0 {
        let Seg::Field(f) = seg else {
            return false;
        };
        let required = s
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(f)));
        match (
            required,
            s.pointer(&format!(
                "/properties/{}",
                f.replace('~', "~0").replace('/', "~1")
            )),
        ) {
            (true, Some(next)) => s = next,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::template_inner;

    #[test]
    fn whole_value_templates() {
        assert_eq!(template_inner("${ .task }"), Some((3, ".task")));
        assert_eq!(template_inner("  ${.a}  "), Some((4, ".a")));
        assert_eq!(template_inner("x ${ .a }"), None);
        assert_eq!(template_inner("${ }"), None);
        assert_eq!(template_inner("${ .a\n| .b }"), None);
        assert_eq!(template_inner(".a"), None);
    }
}
