//! What `agc run` reads before it runs, for either engine: the plan (from a document or a
//! plan file) and the run script, read side by side (the plan on a second thread), and the
//! check that the script names nodes of the plan.

use super::run_args::RunArgs;
use crate::diag::Diagnostic;
use crate::source::SourceMap;
use agc_runtime::plan::Plan;
use agc_runtime::run::script::Script;
use std::path::Path;

/// A plan, the plan text it was read from (what a run directory keeps as `plan.json`: writing
/// the plan out again would cost as much as the run of a large graph, and reads back to the
/// same plan), and what ran beside reading it.
pub(super) struct Loaded<R> {
    pub plan: Plan,
    pub text: String,
    /// What `meanwhile` returned.
    pub beside: R,
    /// What `meanwhile` reported: the caller's to report, after whatever it checks first.
    pub beside_diags: Vec<Diagnostic>,
}

/// [`load_plan_and`] with the run's script (`--script`) read beside the plan: None when no
/// script is given, `Some(None)` when it does not read (its diagnostics in `beside_diags`,
/// which follow the plan's and the params').
pub(super) fn load_plan_and_script(
    args: &RunArgs,
    file: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<Loaded<Option<Option<Script>>>> {
    let limit = args.root.limit.bytes;
    load_plan_and(args, file, sources, diags, |sources, found| {
        args.script
            .as_ref()
            .map(|p| load_script(p, limit, sources, found))
    })
}

/// Compiles `file`, or reads it as a plan when it is one, and runs `meanwhile` (the run's other
/// input, usually its script) with a list of diagnostics of its own. A plan file is parsed on a
/// second thread while `meanwhile` runs on this one: the 10k chain's 7 MB plan and 418 KB
/// script took 67 and 38 ms one after the other (issue 41). After a document's compile (which
/// keeps both cores busy itself) `meanwhile` runs here. None when there is no plan (its
/// diagnostics are in `diags`; what `meanwhile` found is dropped, as if it had not run: the
/// plan's errors come first and alone).
fn load_plan_and<R>(
    args: &RunArgs,
    file: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
    meanwhile: impl FnOnce(&mut SourceMap, &mut Vec<Diagnostic>) -> R,
) -> Option<Loaded<R>> {
    let display = super::walk::shown(file);
    let mut beside_diags = Vec::new();
    // Run once: beside the plan file's reading, or after the compile of a document.
    let mut meanwhile = Some(meanwhile);
    let mut beside = None;
    if file.extension().and_then(|e| e.to_str()) == Some("json") {
        let limit = args.root.limit.bytes;
        let (read, side) = read_plan_while(file, limit, || {
            meanwhile.take().map(|m| m(sources, &mut beside_diags))
        });
        beside = side;
        match read {
            Some((text, Ok(plan))) => {
                return Some(Loaded {
                    plan,
                    text,
                    beside: beside?,
                    beside_diags,
                });
            }
            Some((_, Err(e))) => {
                diags.push(Diagnostic::error(
                    "AGC302",
                    format!("`{display}` is not a valid agc plan: {e}"),
                ));
                return None;
            }
            // Not a plan (or not readable as one): a document, compiled below.
            None => {}
        }
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
    let (read, side) = parse_plan_while(&text, || {
        meanwhile.take().map(|m| m(sources, &mut beside_diags))
    });
    match read {
        Ok(plan) => Some(Loaded {
            plan,
            text,
            beside: beside.or(side)?,
            beside_diags,
        }),
        Err(e) => {
            diags.push(Diagnostic::error(
                "AGC302",
                format!("the plan of `{display}` does not read back: {e}"),
            ));
            None
        }
    }
}

/// Reads the file at `path` (at most `limit` bytes) and, when it is a plan (it names a plan
/// format: anything else is a document to compile), reads it as one, on a second thread while
/// `meanwhile` runs on this one: the text and the plan, or None when it is no plan, and what
/// `meanwhile` returned. Where no thread can be started, the file is read here first.
fn read_plan_while<R>(path: &Path, limit: usize, meanwhile: impl FnOnce() -> R) -> (ReadPlan, R) {
    let read = || {
        let text = crate::fsio::read_text(path, limit).ok()?;
        if !text.contains("\"agc.plan/v") {
            return None;
        }
        let plan = Plan::from_json(&text);
        Some((text, plan))
    };
    beside(read, meanwhile)
}

/// A plan file's text and what reading it as a plan gave; None when the file is no plan.
type ReadPlan = Option<(String, Result<Plan, agc_runtime::plan::PlanError>)>;

/// Reads `text` as a plan on a second thread while `meanwhile` runs on this one, and returns
/// both ([`beside`]).
pub(super) fn parse_plan_while<R>(
    text: &str,
    meanwhile: impl FnOnce() -> R,
) -> (Result<Plan, agc_runtime::plan::PlanError>, R) {
    beside(|| Plan::from_json(text), meanwhile)
}

/// `job` on a second thread (the plan's) while `meanwhile` runs on this one: both answers.
/// The thread has the main thread's stack (8 MiB), so a plan that reads there reads here; a
/// panic in either is the caller's, as it would be without the thread. Where no thread can be
/// started, `job` runs here first.
fn beside<T: Send, R>(job: impl Fn() -> T + Sync, meanwhile: impl FnOnce() -> R) -> (T, R) {
    std::thread::scope(|s| {
        let thread = std::thread::Builder::new()
            .name("agc-plan".into())
            .stack_size(8 << 20)
            .spawn_scoped(s, &job);
        match thread {
            Ok(thread) => {
                let other = meanwhile();
                let done = thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (done, other)
            }
            Err(_) => (job(), meanwhile()),
        }
    })
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
    // Each entry is read once, from the document's values as they are (a script of 10k
    // entries is read as often as there are runs of a 10k-node graph).
    let mut script = Script::default();
    if let Some(f) = root.get("format") {
        match <Option<String> as serde::Deserialize>::deserialize(f) {
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
            match <agc_runtime::run::script::Entry as serde::Deserialize>::deserialize(v) {
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
    // Each name's nodes in plan order, as a list through `named`: (node, the index in `named`
    // of the next node of that name). Most names have one node: no list of their own.
    let mut named: Vec<(&agc_runtime::plan::Node, usize)> = Vec::with_capacity(plan.nodes.len());
    let mut by_name: crate::hash::HashMap<&str, (usize, usize)> = Default::default();
    by_name.reserve(plan.nodes.len() * 2);
    for n in &plan.nodes {
        let names = [
            Some(n.id.as_str()),
            (n.local_id != n.id).then_some(n.local_id.as_str()),
        ];
        for name in names.into_iter().flatten() {
            named.push((n, usize::MAX));
            let at = named.len() - 1;
            // (first, last) of the name's list.
            let ends = by_name.entry(name).or_insert((at, at));
            if ends.1 != at {
                named[ends.1].1 = at;
                ends.1 = at;
            }
        }
    }
    let named = named.as_slice();
    let nodes_named = |name: &str| {
        let mut at = by_name.get(name).map_or(usize::MAX, |e| e.0);
        std::iter::from_fn(move || {
            let (n, next) = *named.get(at)?;
            at = next;
            Some(n)
        })
    };
    for (key, entry) in &script.nodes {
        // A key without a scope's indices is its own plain name (most keys).
        let plain = if key.contains(['[', '#']) {
            std::borrow::Cow::Owned(agc_runtime::run::strip_indices(key))
        } else {
            std::borrow::Cow::Borrowed(key.as_str())
        };
        if !by_name.contains_key(plain.as_ref()) {
            diags.push(Diagnostic::warning(
                "AGC304",
                format!(
                    "the script's entry `{key}` names no node of graph `{}`",
                    plan.graph.id
                ),
            ));
            continue;
        }
        let mut answered = entry
            .checkpoints
            .iter()
            .flatten()
            .chain(
                entry
                    .results
                    .iter()
                    .flatten()
                    .flat_map(|r| r.checkpoints.iter().flatten()),
            )
            .peekable();
        if answered.peek().is_none() {
            continue;
        }
        let mut ids: Vec<String> = vec!["escalation".into(), "takeover".into()];
        for n in nodes_named(&plain) {
            ids.extend(agc_runtime::run::core::checkpoint_ids(n));
        }
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
