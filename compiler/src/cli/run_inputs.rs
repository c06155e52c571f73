//! What `agc run` reads before it runs, for either engine: the plan (from a document or a
//! plan file) and the run script, and the check that the script names nodes of the plan.

use super::run_args::RunArgs;
use crate::diag::Diagnostic;
use crate::source::SourceMap;
use agc_runtime::plan::Plan;
use agc_runtime::run::script::Script;
use std::path::Path;

/// Compiles `file`, or reads it as a plan when it is one: the plan, and the plan text it was
/// read from (what a run directory keeps as `plan.json`: writing the plan out again would cost
/// as much as the run of a large graph, and reads back to the same plan).
pub(super) fn load_plan(
    args: &RunArgs,
    file: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Plan, String)> {
    let display = super::walk::shown(file);
    if file.extension().and_then(|e| e.to_str()) == Some("json")
        && let Ok(text) = crate::fsio::read_text(file, args.root.limit.bytes)
        && text.contains("\"agc.plan/v")
    {
        return match Plan::from_json(&text) {
            Ok(p) => Some((p, text)),
            Err(e) => {
                diags.push(Diagnostic::error(
                    "AGC302",
                    format!("`{display}` is not a valid agc plan: {e}"),
                ));
                None
            }
        };
    }
    let (compiled, mut found) =
        crate::compile::compile_file(sources, file, &display, &args.root.options());
    let compiled = match crate::compile::single(compiled, &display) {
        Ok(c) => c,
        Err(d) => {
            found.push(d);
            None
        }
    };
    let failed = found
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error);
    diags.append(&mut found);
    let compiled = compiled.filter(|_| !failed)?;
    let text = crate::compile::plan_text(&compiled, sources, &display);
    crate::discard::discard(compiled);
    match Plan::from_json(&text) {
        Ok(p) => Some((p, text)),
        Err(e) => {
            diags.push(Diagnostic::error(
                "AGC302",
                format!("the plan of `{display}` does not read back: {e}"),
            ));
            None
        }
    }
}

/// Reads a script (YAML or JSON): every entry that does not fit the format is reported with
/// its position (AGC300).
pub(super) fn load_script(
    path: &Path,
    limit: usize,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<Script> {
    let display = path.to_string_lossy().replace('\\', "/");
    let limits = crate::source::Limits {
        max_file_bytes: limit,
        ..crate::source::Limits::default()
    };
    let (_, loaded) = match crate::source::load::load_path(sources, path, &display, limits) {
        Ok(x) => x,
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    let errors = loaded
        .diags
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error);
    diags.extend(loaded.diags);
    let doc = loaded.doc.filter(|_| !errors)?;
    let mut bad = false;
    let Some(root) = doc.value.as_object() else {
        diags.push(
            Diagnostic::error("AGC300", "a run script is a mapping with a `nodes` key")
                .at(doc.span("")),
        );
        return None;
    };
    for key in root.keys() {
        if key != "nodes" && key != "format" {
            diags.push(
                Diagnostic::error("AGC300", format!("unknown script key `{key}`"))
                    .at(doc.key_span(&format!("/{}", crate::source::tree::escape_token(key))))
                    .with_help("a script has `format` and `nodes`"),
            );
            bad = true;
        }
    }
    // Each entry is converted and read once (a script of 10k entries is read as often as
    // there are runs of a 10k-node graph).
    let mut script = Script::default();
    if let Some(f) = root.get("format") {
        match serde_json::from_value::<Option<String>>(f.to_json()) {
            Ok(f) => script.format = f,
            Err(e) => {
                diags.push(
                    Diagnostic::error("AGC300", format!("`format`: {e}")).at(doc.span("/format")),
                );
                bad = true;
            }
        }
    }
    if let Some(nodes) = root.get("nodes").and_then(crate::source::Value::as_object) {
        script.nodes.reserve(nodes.len());
        for (k, v) in nodes {
            match serde_json::from_value::<agc_runtime::run::script::Entry>(v.to_json()) {
                Ok(entry) => {
                    script.nodes.insert(k.to_string(), entry);
                }
                Err(e) => {
                    let ptr = format!("/nodes/{}", crate::source::tree::escape_token(k));
                    diags.push(
                        Diagnostic::error("AGC300", format!("script entry `{k}`: {e}"))
                            .at(doc.span(&ptr))
                            .with_help(
                                "an entry has outputs, decision, fail, delay_ms, usage, results or checkpoints",
                            ),
                    );
                    bad = true;
                }
            }
        }
    } else if root.contains_key("nodes") {
        diags.push(
            Diagnostic::error("AGC300", "`nodes` must be a mapping from node to result")
                .at(doc.span("/nodes")),
        );
        bad = true;
    }
    (!bad).then_some(script)
}

/// AGC304: a script key that names no node of the plan, or a checkpoint answer that names
/// no checkpoint of those nodes (a typo would silently never match).
/// The plan's nodes are indexed once by id and local id (in plan order), so the check is
/// linear in the script and the plan (scanning the plan per entry made a run of a 40k-node
/// chain quadratic, issue 41).
pub(super) fn check_script_keys(script: &Script, plan: &Plan, diags: &mut Vec<Diagnostic>) {
    if script.nodes.is_empty() {
        return;
    }
    let mut by_name: std::collections::HashMap<&str, Vec<&agc_runtime::plan::Node>> =
        std::collections::HashMap::with_capacity(plan.nodes.len() * 2);
    for n in &plan.nodes {
        by_name.entry(n.id.as_str()).or_default().push(n);
        if n.local_id != n.id {
            by_name.entry(n.local_id.as_str()).or_default().push(n);
        }
    }
    for (key, entry) in &script.nodes {
        let plain = agc_runtime::run::strip_indices(key);
        let nodes: &[&agc_runtime::plan::Node] =
            by_name.get(plain.as_str()).map_or(&[], Vec::as_slice);
        if nodes.is_empty() {
            diags.push(Diagnostic::warning(
                "AGC304",
                format!(
                    "the script's entry `{key}` names no node of graph `{}`",
                    plan.graph.id
                ),
            ));
            continue;
        }
        let mut ids: Vec<String> = vec!["escalation".into(), "takeover".into()];
        for n in nodes {
            ids.extend(agc_runtime::run::core::checkpoint_ids(n));
        }
        let answered = entry.checkpoints.iter().flatten().chain(
            entry
                .results
                .iter()
                .flatten()
                .flat_map(|r| r.checkpoints.iter().flatten()),
        );
        for (id, _) in answered {
            if !ids.contains(id) {
                diags.push(Diagnostic::warning(
                    "AGC304",
                    format!(
                        "the script's entry `{key}` answers checkpoint `{id}`, which `{plain}` does not have (it has: {})",
                        ids.join(", ")
                    ),
                ));
            }
        }
    }
}
