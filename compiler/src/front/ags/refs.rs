//! `subgraph.ref`: loading the AGS documents a graph references, before lowering.
//!
//! - A local URI (starting with `.` or `/`, or without a scheme) names a file relative to the
//!   referencing file's folder; a leading `/` is relative to the workspace root (`--root`,
//!   default [`crate::front::detect_root`]: the nearest folder above the document holding
//!   `.git`, `.hg`, `.jj` or `.agc-root`, else the document's own folder). Nothing outside the root is read: `..` that climbs out, and
//!   symlinks that lead out, are refused (AGC081). A missing file is AGC082.
//! - Remote URIs (`https://…`) are never fetched: the region stays opaque, with a warning
//!   (AGC083); AG909 separately asks for `integrity`.
//! - `integrity` is checked against the sha256 of the target's JCS form (RT051 on mismatch) and
//!   `expected_id` against its `id` (RT052), statically rather than at run time.
//! - Each file is loaded once, however often it is referenced; a cycle of references across
//!   files is AG131, reported at every `ref` on the cycle.
//!
//! Resolution is a work list over files, so reference depth never becomes recursion depth.

use super::scope::{self, Scope};
use crate::diag::Diagnostic;
use crate::source::Document;
use crate::source::Field;
use crate::source::Value;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// The documents of one compilation: the root document first, then every referenced file.
pub struct Workspace {
    pub docs: Vec<Document>,
    /// Canonical path of each document (`None` for in-memory input).
    pub paths: Vec<Option<PathBuf>>,
    /// `(referencing doc, pointer of its subgraph block)` → referenced doc.
    pub refs: HashMap<(usize, String), usize>,
    /// Expressions the checks already parsed, for lowering to reuse (may be empty: lowering
    /// parses what it does not find here). Lowering *takes* each one it uses (moves it into
    /// the IR rather than cloning it, so the parsed form is held once at the memory peak); an
    /// expression lowered twice (a fragment `use`d by two nodes) is parsed again.
    pub exprs: std::cell::RefCell<super::checker::ExprCache>,
    /// The node reads the checks resolved, in every document ([`super::checker::Reads`]).
    pub reads: super::checker::Reads,
}

impl Workspace {
    /// A workspace of one document that references nothing.
    pub fn single(doc: Document) -> Workspace {
        Workspace {
            docs: vec![doc],
            paths: vec![None],
            refs: HashMap::new(),
            exprs: Default::default(),
            reads: Vec::new(),
        }
    }
}

/// How to load and check one referenced file: returns its document (if it loaded) and the
/// diagnostics of loading, schema and semantic checks.
pub type LoadFn<'a> = dyn FnMut(&Path, &str) -> (Option<Document>, Vec<Diagnostic>) + 'a;

/// Loads every file `root` references, transitively.
pub fn resolve(
    root: Document,
    root_path: Option<&Path>,
    root_display: &str,
    ws_root: &Path,
    load: &mut LoadFn<'_>,
) -> (Workspace, Vec<Diagnostic>) {
    let ws_canon = ws_root
        .canonicalize()
        .unwrap_or_else(|_| ws_root.to_path_buf());
    let mut ws = Workspace {
        docs: vec![root],
        paths: vec![root_path.and_then(|p| p.canonicalize().ok())],
        refs: HashMap::new(),
        exprs: Default::default(),
        reads: Vec::new(),
    };
    let mut diags = Vec::new();
    // How each document is shown: the referencing document's name joined with the URI, so
    // locations read like the paths the user typed (independent of the root and of links).
    let mut displays: Vec<String> = vec![root_display.to_string()];
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    if let Some(p) = &ws.paths[0] {
        by_path.insert(p.clone(), 0);
    }
    // (from doc, pointer of the `ref` block, to doc) for the cycle check.
    let mut ref_edges: Vec<(usize, String, usize)> = Vec::new();
    let mut next = 0;
    while next < ws.docs.len() {
        let sites = ref_sites(&ws.docs[next]);
        for (bptr, uri, integrity, expected) in sites {
            let doc = &ws.docs[next];
            let uri_ptr = format!("{bptr}/ref/uri");
            if is_remote(&uri) {
                diags.push(
                    Diagnostic::warning("AGC083", format!("remote reference `{uri}` is not fetched"))
                        .at(doc.span(&uri_ptr))
                        .with_pointer(uri_ptr.clone())
                        .with_help("agc never reaches the network; vendor the file and reference it by a local path"),
                );
                continue;
            }
            let base = match &ws.paths[next] {
                Some(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
                None => ws_canon.clone(),
            };
            let target = match contained(&ws_canon, &base, &uri) {
                Ok(t) => t,
                Err(why) => {
                    diags.push(
                        Diagnostic::error("AGC081", format!("`{uri}` {why}"))
                            .at(doc.span(&uri_ptr))
                            .with_pointer(uri_ptr.clone())
                            .with_help(format!(
                                "references stay inside the workspace root `{}` (set it with `--root`)",
                                display_root(ws_root)
                            )),
                    );
                    continue;
                }
            };
            let idx = if let Some(&i) = by_path.get(&target) {
                i
            } else {
                let display =
                    join_display(&displays[next], &uri, &relative_display(&ws_canon, &target));
                let (child, mut found) = load(&target, &display);
                diags.append(&mut found);
                let Some(child) = child else {
                    continue;
                };
                ws.docs.push(child);
                displays.push(display);
                ws.paths.push(Some(target.clone()));
                by_path.insert(target, ws.docs.len() - 1);
                ws.docs.len() - 1
            };
            let doc = &ws.docs[next];
            if let Some(expected) = &expected {
                let actual = ws.docs[idx]
                    .value
                    .field("id")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if actual != expected {
                    diags.push(
                        Diagnostic::error(
                            "RT052",
                            format!("`{uri}` has id `{actual}`, not the expected `{expected}`"),
                        )
                        .at(doc.span(&format!("{bptr}/ref/expected_id")))
                        .with_pointer(format!("{bptr}/ref/expected_id"))
                        .with_label(ws.docs[idx].span("/id"), "the referenced graph's id"),
                    );
                }
            }
            // The child's params, bound from `subgraph.params` (AG301/AG302, params.rs).
            if let Some(declared) = ws.docs[idx]
                .value
                .field("params")
                .and_then(Value::as_object)
            {
                let id = bptr
                    .rsplit('/')
                    .nth(1)
                    .unwrap_or_default()
                    .replace("~1", "/")
                    .replace("~0", "~");
                let given = doc.value.pointer(&format!("{bptr}/params"));
                let budget = crate::diag::suggest::Budget::default();
                diags.extend(super::params::check_binding(
                    doc, &budget, &id, &bptr, given, declared,
                ));
            }
            if let Some(expected) = &integrity {
                match crate::canon::verify_integrity(&ws.docs[idx].value, expected) {
                    Ok(true) => {}
                    Ok(false) => {
                        let actual =
                            crate::canon::graph_digest(&ws.docs[idx].value).unwrap_or_default();
                        diags.push(
                            Diagnostic::error(
                                "RT051",
                                format!("`{uri}` does not match its `integrity`"),
                            )
                            .at(doc.span(&format!("{bptr}/ref/integrity")))
                            .with_pointer(format!("{bptr}/ref/integrity"))
                            .with_help(format!("the file's digest is `{actual}`")),
                        );
                    }
                    Err(e) => diags.push(
                        Diagnostic::error("RT051", format!("`{uri}` cannot be digested: {e}"))
                            .at(doc.span(&format!("{bptr}/ref/integrity"))),
                    ),
                }
            }
            ws.refs.insert((next, bptr.clone()), idx);
            ref_edges.push((next, bptr, idx));
        }
        next += 1;
    }
    diags.extend(cycles(&ws, &ref_edges));
    (ws, diags)
}

/// `(pointer of the subgraph block, uri, integrity, expected_id)` for every `ref` in a document.
fn ref_sites(doc: &Document) -> Vec<(String, String, Option<String>, Option<String>)> {
    let Some(root) = doc.value.as_object() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in scope::collect(root) {
        let s: Scope<'_> = s;
        for (id, node) in s.nodes() {
            if let Some(r) = node.field("subgraph").and_then(|b| b.field("ref")) {
                let Some(uri) = r.field("uri").and_then(Value::as_str) else {
                    continue;
                };
                let get = |k: &str| r.field(k).and_then(Value::as_str).map(str::to_string);
                out.push((
                    format!("{}/subgraph", s.node_ptr(id)),
                    uri.to_string(),
                    get("integrity"),
                    get("expected_id"),
                ));
            }
        }
    }
    out
}

fn is_remote(uri: &str) -> bool {
    !(uri.starts_with('.') || uri.starts_with('/')) && uri.contains("://")
}

/// Resolves `uri` against `base` (or the root for a leading `/`), refusing escapes: lexically
/// first, then after following symlinks.
fn contained(root: &Path, base: &Path, uri: &str) -> Result<PathBuf, String> {
    let (start, rel) = match uri.strip_prefix('/') {
        Some(rest) => (root.to_path_buf(), rest),
        None => (base.to_path_buf(), uri),
    };
    let mut path = start;
    for c in Path::new(rel).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !path.pop() || !path.starts_with(root) {
                    return Err("climbs out of the workspace root".into());
                }
            }
            Component::Normal(part) => path.push(part),
            Component::RootDir | Component::Prefix(_) => {
                return Err("is not a relative path".into());
            }
        }
    }
    if !path.starts_with(root) {
        return Err("lies outside the workspace root".into());
    }
    let canon = path
        .canonicalize()
        .map_err(|_| "does not exist (no such file inside the workspace)".to_string())?;
    if !canon.starts_with(root) {
        return Err("leads outside the workspace root through a symbolic link".into());
    }
    if !canon.is_file() {
        return Err("is not a file".into());
    }
    Ok(canon)
}

fn relative_display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// `parent`'s folder joined with `uri`, lexically normalised (`./` dropped, `x/..` folded). A
/// root-relative `/uri` is shown as `rooted` (its path below the workspace root).
fn join_display(parent: &str, uri: &str, rooted: &str) -> String {
    if uri.starts_with('/') {
        return rooted.to_string();
    }
    let dir = parent.rsplit_once('/').map_or("", |(d, _)| d);
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for seg in uri.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if matches!(parts.last(), Some(p) if *p != "..") {
                    parts.pop();
                } else {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// The root as shown in messages: `x/..` folded lexically (`a/b/../..` is `.`).
fn display_root(root: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut absolute = false;
    for c in root.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => absolute = true,
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(parts.last(), Some(p) if p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..".into());
                }
            }
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// AG131 for every reference on a cycle of files.
fn cycles(ws: &Workspace, edges: &[(usize, String, usize)]) -> Vec<Diagnostic> {
    let pairs: Vec<(usize, usize)> = edges.iter().map(|(a, _, b)| (*a, *b)).collect();
    let (_, on_cycle) = crate::analysis::cycles::edges_on_cycles(ws.docs.len(), &pairs);
    let mut out = Vec::new();
    for ((a, bptr, b), on_cycle) in edges.iter().zip(on_cycle) {
        if on_cycle.is_some() {
            let ptr = format!("{bptr}/ref/uri");
            out.push(
                Diagnostic::error(
                    "AG131",
                    "recursive subgraph reference: this file is part of a cycle of `ref`s",
                )
                .at(ws.docs[*a].span(&ptr))
                .with_pointer(ptr)
                .with_label(ws.docs[*b].span(""), "the referenced document")
                .with_help("subgraphs are expanded statically and must terminate"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn display_names_follow_the_referencing_file() {
        let j = super::join_display;
        assert_eq!(
            j("../a/b/wf.yaml", "./child.yaml", "x"),
            "../a/b/child.yaml"
        );
        assert_eq!(j("wf.yaml", "sub/c.yaml", "x"), "sub/c.yaml");
        assert_eq!(j("a/wf.yaml", "../c.yaml", "x"), "c.yaml");
        assert_eq!(j("../wf.yaml", "../c.yaml", "x"), "../../c.yaml");
        assert_eq!(j("a/wf.yaml", "/lib/c.yaml", "lib/c.yaml"), "lib/c.yaml");
    }

    #[test]
    fn roots_are_shown_folded() {
        use std::path::Path;
        let d = |p: &str| super::display_root(Path::new(p));
        assert_eq!(d("../shared/corpus/x/../.."), "../shared");
        assert_eq!(d("a/b/../.."), ".");
        assert_eq!(d(""), ".");
        assert_eq!(d("./ws"), "ws");
        assert_eq!(d("../../x"), "../../x");
    }
}
