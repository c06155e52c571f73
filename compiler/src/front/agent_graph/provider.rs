//! Loading a Provider: the manifest's code catalog, graphs, actions, resources and materializers,
//! in upstream's order (`loadProvider` of `@c4a/agent-graph` 0.2.6), with every finding reported
//! instead of the first. Fills in the runtime's model ([`agc_runtime::agent_graph::model`]) when
//! nothing failed, with the per-graph closure digests that revisions are built from.

use super::inventory::Inventory;
use super::loader::{ActionEntry, GraphDoc, Loader};
use super::paths::{self, Refusal};
use super::spans::{key_span_at, span_at};
use super::{convert, frontmatter, graph};
use crate::diag::Diagnostic;
use crate::dialect::{AgentGraphKind, Dialect};
use crate::front::Context;
use crate::source::{Document, Span, Value};
use agc_runtime::agent_graph::canon::{digest_bytes, digest_value, locale_compare};
use agc_runtime::agent_graph::model::{self, FileRef, SkillRef};
use indexmap::{IndexMap, IndexSet};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What loading gives: the model (when error-free), the graph documents and the findings.
pub struct LoadedProvider {
    pub provider: Option<model::Provider>,
    pub graphs: Vec<GraphDoc>,
    pub diags: Vec<Diagnostic>,
    /// What a bundle of the Provider holds (when error-free).
    pub inventory: Option<Inventory>,
}

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

impl<'x, 'a> Loader<'x, 'a> {
    pub(super) fn display(&self, rel: &str) -> String {
        format!("{}{rel}", self.display_base)
    }

    fn refuse(&mut self, (code, message): Refusal, at: Span) {
        self.diags.push(Diagnostic::error(code, message).at(at));
    }

    /// A contained file reference, or `None` after reporting why not.
    pub(super) fn resolve(&mut self, reference: &str, at: Span) -> Option<(String, PathBuf)> {
        match paths::contained_file(&self.root, reference) {
            Ok(r) => Some(r),
            Err(e) => {
                self.refuse(e, at);
                None
            }
        }
    }

    fn digest(&mut self, rel: &str) -> String {
        if let Some(d) = self.digests.get(rel) {
            return d.clone();
        }
        let limit = self.cx.opts.limits.max_file_bytes;
        let bytes = self.cx.files.read(&self.root.join(rel), limit);
        let d = digest_bytes(&bytes.unwrap_or_default());
        self.digests.insert(rel.to_string(), d.clone());
        d
    }

    pub(super) fn file_ref(&mut self, rel: &str) -> FileRef {
        FileRef {
            path: self.root.join(rel).to_string_lossy().into_owned(),
            digest: self.digest(rel),
        }
    }

    /// Loads a document of `kind`; `None` (after reporting) unless it passed its schema.
    pub(super) fn load(&mut self, rel: &str, abs: &Path, kind: AgentGraphKind) -> Option<Document> {
        self.load_any(rel, abs, kind)
            .filter(|(_, ok)| *ok)
            .map(|(d, _)| d)
    }

    /// [`Self::load`], also giving a document that failed its schema (with `false`).
    fn load_any(
        &mut self,
        rel: &str,
        abs: &Path,
        kind: AgentGraphKind,
    ) -> Option<(Document, bool)> {
        let display = self.display(rel);
        let expect = Dialect::AgentGraph(kind);
        let mut loaded = self.cx.load_document(abs, &display, Some(expect));
        crate::session::agent_graph_parse_codes(&mut loaded.diags);
        self.diags.extend(loaded.diags);
        let doc = loaded.doc?;
        if loaded.dialect != Some(expect) {
            self.diags.push(
                Diagnostic::error(
                    "schema-invalid",
                    format!("`{display}` must be an `{}` document", kind.marker()),
                )
                .at(span_at(&doc, "/schema")),
            );
            return None;
        }
        Some((doc, loaded.schema_ok))
    }

    /// Loads (once) the action at `reference` and the files it names; gives its relative path.
    fn include_action(&mut self, reference: &str, at: Span) -> Option<String> {
        let (rel, abs) = self.resolve(reference, at)?;
        if self.actions.contains_key(&rel) {
            return Some(rel);
        }
        let Some(doc) = self.load(&rel, &abs, AgentGraphKind::Action) else {
            self.actions.insert(
                rel.clone(),
                ActionEntry {
                    id: String::new(),
                    effect: String::new(),
                    runner: String::new(),
                    model: None,
                    files: Vec::new(),
                    schemas: Vec::new(),
                },
            );
            return None;
        };
        let v = &doc.value;
        let id = str_at(v, "id").unwrap_or_default().to_string();
        if let Some(first) = self.action_ids.get(&id) {
            self.diags.push(
                Diagnostic::error(
                    "action-id-duplicate",
                    format!(
                        "the action id `{id}` is also declared by `{}`",
                        self.display(first)
                    ),
                )
                .at(span_at(&doc, "/id")),
            );
        } else {
            self.action_ids.insert(id.clone(), rel.clone());
        }
        let mut files = vec![rel.clone()];
        let mut ok = true;
        let mut one = |this: &mut Self, key: &str, pointer: &str| -> Option<String> {
            let r = str_at(v, key)?;
            match this.resolve(r, span_at(&doc, pointer)) {
                Some((rel, _)) => Some(rel),
                None => {
                    ok = false;
                    None
                }
            }
        };
        let entry = one(self, "entry", "/entry");
        let input = one(self, "inputSchema", "/inputSchema");
        let output = one(self, "outputSchema", "/outputSchema");
        files.extend(entry.iter().chain(&input).chain(&output).cloned());
        if let Some(list) = v.get("files").and_then(Value::as_array) {
            for (i, f) in list.iter().enumerate() {
                match self.resolve(
                    f.as_str().unwrap_or_default(),
                    span_at(&doc, &format!("/files/{i}")),
                ) {
                    Some((rel, _)) => files.push(rel),
                    None => ok = false,
                }
            }
        }
        let mut skill = None;
        if let Some(r) = str_at(v, "skill") {
            match self.resolve(r, span_at(&doc, "/skill")) {
                Some((srel, sabs)) => {
                    let dir = sabs.parent().map(Path::to_path_buf).unwrap_or_default();
                    if dir == self.root {
                        files.push(srel.clone());
                    } else {
                        for f in paths::files_below(&dir) {
                            if let Ok(r) = f.strip_prefix(&self.root) {
                                files.push(r.to_string_lossy().replace('\\', "/"));
                            }
                        }
                    }
                    let limit = self.cx.opts.limits.max_file_bytes;
                    let name = self.cx.files.read_text(&sabs, limit).ok().and_then(|text| {
                        let mut scratch = crate::source::SourceMap::new();
                        frontmatter::parse(&mut scratch, "", &text, self.cx.opts.limits)
                            .ok()
                            .and_then(|(_, m)| {
                                m.get("name").and_then(Value::as_str).map(String::from)
                            })
                    });
                    skill = Some(SkillRef {
                        file: self.file_ref(&srel),
                        name,
                    });
                }
                None => ok = false,
            }
        }
        let model = ok.then(|| model::Action {
            id: id.clone(),
            runner: str_at(v, "runner").unwrap_or_default().to_string(),
            effect: str_at(v, "effect").unwrap_or_default().to_string(),
            command: str_at(v, "command").map(String::from),
            entry: entry
                .as_ref()
                .map(|e| self.root.join(e).to_string_lossy().into_owned()),
            runtime: str_at(v, "runtime").map(String::from),
            handler: str_at(v, "handler").map(String::from),
            args: v
                .get("args")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default(),
            cwd_provider: str_at(v, "cwd") == Some("provider"),
            skill,
            input_schema: input.as_ref().map(|r| self.file_ref(r)),
            output_schema: output.as_ref().map(|r| self.file_ref(r)),
        });
        self.actions.insert(
            rel.clone(),
            ActionEntry {
                effect: str_at(v, "effect").unwrap_or_default().to_string(),
                runner: str_at(v, "runner").unwrap_or_default().to_string(),
                id,
                model,
                files,
                schemas: ["inputSchema", "outputSchema"]
                    .iter()
                    .filter_map(|k| str_at(v, k).map(String::from))
                    .collect(),
            },
        );
        Some(rel)
    }
}

/// Loads the Provider whose manifest is `manifest` (schema-valid) at `path`, shown as `shown`.
pub(super) fn load(
    cx: &mut Context<'_>,
    manifest: &Document,
    path: &Path,
    shown: &str,
) -> LoadedProvider {
    let abs = paths::absolute(path);
    let root = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let display_base = match shown.rfind('/') {
        Some(i) => shown[..=i].to_string(),
        None => String::new(),
    };
    let mut l = Loader {
        cx,
        root: root.clone(),
        display_base,
        diags: Vec::new(),
        digests: HashMap::new(),
        actions: IndexMap::new(),
        action_ids: HashMap::new(),
        resources: IndexMap::new(),
        resource_ids: HashMap::new(),
    };
    let m = &manifest.value;

    // 2. The code catalog.
    let mut catalog: Option<IndexMap<String, model::CatalogEntry>> = None;
    let mut catalog_rel = None;
    if let Some(reference) = m.pointer("/catalogs/codes").and_then(Value::as_str)
        && let Some((rel, abs)) = l.resolve(reference, span_at(manifest, "/catalogs/codes"))
        && let Some(doc) = l.load(&rel, &abs, AgentGraphKind::CodeCatalog)
    {
        catalog_rel = Some(rel.clone());
        let mut entries = IndexMap::new();
        let codes = doc.value["codes"].as_array().unwrap_or_default();
        for (i, c) in codes.iter().enumerate() {
            let code = str_at(c, "code").unwrap_or_default().to_string();
            if entries.contains_key(&code) {
                l.diags.push(
                    Diagnostic::error(
                        "code-catalog-code-duplicate",
                        format!("the code catalog declares `{code}` twice"),
                    )
                    .at(span_at(&doc, &format!("/codes/{i}/code"))),
                );
                continue;
            }
            entries.insert(
                code,
                model::CatalogEntry {
                    kind: str_at(c, "kind").unwrap_or_default().to_string(),
                    summary: str_at(c, "summary").unwrap_or_default().to_string(),
                },
            );
        }
        for (i, c) in codes.iter().enumerate() {
            let Some(document) = str_at(c, "document") else {
                continue;
            };
            let at = span_at(&doc, &format!("/codes/{i}/document"));
            if let Some(rel) = l.include_resource(document, at)
                && l.resources[&rel].materializer.is_some()
            {
                l.diags.push(
                    Diagnostic::error(
                        "code-document-dynamic",
                        format!(
                            "code `{}` must reference a static document resource",
                            str_at(c, "code").unwrap_or_default()
                        ),
                    )
                    .at(at),
                );
            }
        }
        catalog = Some(entries);
    }

    // 3. The graphs, in manifest order.
    let mut graphs: Vec<GraphDoc> = Vec::new();
    let mut graph_rel: Vec<String> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut broken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (i, r) in m["graphs"]
        .as_array()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let at = span_at(manifest, &format!("/graphs/{i}"));
        let Some((rel, abs)) = l.resolve(r.as_str().unwrap_or_default(), at) else {
            continue;
        };
        let Some((doc, schema_ok)) = l.load_any(&rel, &abs, AgentGraphKind::Graph) else {
            continue;
        };
        if !schema_ok {
            // Known by id, so that calls to it do not also report `subgraph-missing`.
            if let Some(id) = str_at(&doc.value, "id") {
                broken.insert(id.to_string());
            }
            continue;
        }
        let found = graph::check(&doc);
        let ok = !found.iter().any(Diagnostic::is_error);
        l.diags.extend(found);
        let id = str_at(&doc.value, "id").unwrap_or_default().to_string();
        if ids.contains_key(&id) {
            l.diags.push(
                Diagnostic::error(
                    "graph-id-duplicate",
                    format!("the provider declares the graph id `{id}` twice"),
                )
                .at(span_at(&doc, "/id")),
            );
            continue;
        }
        ids.insert(id, graphs.len());
        graph_rel.push(rel.clone());
        let display = l.display(&rel);
        graphs.push(GraphDoc { doc, display, ok });
    }

    // 4. Nodes: subgraphs, actions, gates, resources.
    let mut direct: Vec<IndexSet<String>> = Vec::new();
    let mut deps: Vec<Vec<(usize, Span)>> = Vec::new();
    for (gi, g) in graphs.iter().enumerate() {
        let mut files: IndexSet<String> = IndexSet::new();
        files.insert(graph_rel[gi].clone());
        let mut children = Vec::new();
        let doc = &g.doc;
        let gid = str_at(&doc.value, "id").unwrap_or_default();
        for (ni, n) in doc.value["nodes"]
            .as_array()
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let p = |field: &str| span_at(doc, &format!("/nodes/{ni}/{field}"));
            let nid = str_at(n, "id").unwrap_or_default();
            let mut add_action =
                |l: &mut Loader<'_, '_>, files: &mut IndexSet<String>, r: &str, at: Span| {
                    let rel = l.include_action(r, at)?;
                    files.extend(l.actions[&rel].files.iter().cloned());
                    Some(rel)
                };
            match str_at(n, "kind") {
                Some("subgraph") => {
                    let child = str_at(n, "graph").unwrap_or_default();
                    let entry = str_at(n, "entry").unwrap_or_default();
                    match ids.get(child) {
                        None if broken.contains(child) => {}
                        None => l.diags.push(
                            Diagnostic::error(
                                "subgraph-missing",
                                format!("graph `{gid}` calls the missing graph `{child}`"),
                            )
                            .at(p("graph")),
                        ),
                        Some(&ci) => {
                            if graphs[ci].doc.value["entrypoints"].get(entry).is_none() {
                                l.diags.push(
                                    Diagnostic::error(
                                        "subgraph-entry-missing",
                                        format!("graph `{gid}` calls the missing entry `{child}#{entry}`"),
                                    )
                                    .at(p("entry")),
                                );
                            }
                            children.push((ci, p("graph")));
                        }
                    }
                }
                Some("action") => {
                    if let Some(r) = str_at(n, "action") {
                        add_action(&mut l, &mut files, r, p("action"));
                    }
                }
                Some("gate") => {
                    if let Some(r) = str_at(n, "inspectionAction")
                        && let Some(rel) = add_action(&mut l, &mut files, r, p("inspectionAction"))
                        && l.actions[&rel].model.is_some()
                        && l.actions[&rel].effect != "read"
                    {
                        let msg = format!(
                            "the inspection action `{}` of gate `{gid}/{nid}` must use `effect: read`",
                            l.actions[&rel].id
                        );
                        l.diags.push(
                            Diagnostic::error("gate-inspection-effect-invalid", msg)
                                .at(p("inspectionAction")),
                        );
                    }
                    if let Some(d) = n.get("delegated") {
                        let gate = &n["gate"];
                        if gate.get("delegatable") != Some(&Value::Bool(true))
                            || gate.get("authority").is_none()
                        {
                            l.diags.push(
                                Diagnostic::error(
                                    "gate-delegated-policy-invalid",
                                    format!("gate `{gid}/{nid}` declares `delegated` without a delegatable authority"),
                                )
                                .at(key_span_at(doc, &format!("/nodes/{ni}/delegated")))
                                .with_help("set `gate.authority` and `gate.delegatable: true`, or remove `delegated`"),
                            );
                        }
                        if str_at(d, "inspection") == Some("skip")
                            && n.get("inspectionAction").is_none()
                        {
                            l.diags.push(
                                Diagnostic::error(
                                    "gate-delegated-inspection-missing",
                                    format!("gate `{gid}/{nid}` skips delegated inspection but has no `inspectionAction`"),
                                )
                                .at(p("delegated/inspection")),
                            );
                        }
                        if let Some(r) = str_at(d, "resolutionAction") {
                            check_resolution(
                                &mut l,
                                &mut files,
                                r,
                                p("delegated/resolutionAction"),
                                gid,
                                nid,
                                &mut add_action,
                            );
                        }
                    }
                    if let Some(r) = str_at(n, "resolutionAction") {
                        check_resolution(
                            &mut l,
                            &mut files,
                            r,
                            p("resolutionAction"),
                            gid,
                            nid,
                            &mut add_action,
                        );
                    }
                }
                _ => {}
            }
            for base in ["resources", "delegated/resources"] {
                for list in ["required", "recommended"] {
                    let ptr = format!("/nodes/{ni}/{base}/{list}");
                    let Some(items) = doc.value.pointer(&ptr).and_then(Value::as_array) else {
                        continue;
                    };
                    for (ri, r) in items.iter().enumerate() {
                        let at = span_at(doc, &format!("{ptr}/{ri}"));
                        if let Some(rel) = l.include_resource(r.as_str().unwrap_or_default(), at) {
                            files.extend(l.resources[&rel].files.iter().cloned());
                        }
                    }
                }
            }
        }
        direct.push(files);
        deps.push(children);
    }

    // 5. Cross-graph recursion.
    for cycle in super::recursion::cycles(&deps) {
        let names: Vec<&str> = cycle
            .0
            .iter()
            .map(|&i| str_at(&graphs[i].doc.value, "id").unwrap_or_default())
            .collect();
        l.diags.push(
            Diagnostic::error(
                "graph-recursion",
                format!(
                    "cross-graph recursion is not allowed: {}",
                    names.join(" -> ")
                ),
            )
            .at(cycle.1),
        );
    }

    // 6. Catalog closure.
    if let Some(entries) = &catalog {
        for g in &graphs {
            for (ni, n) in g.doc.value["nodes"]
                .as_array()
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                if !matches!(str_at(n, "kind"), Some("action" | "gate")) {
                    continue;
                }
                let code = str_at(n, "reasonCode").unwrap_or_default();
                let at = span_at(&g.doc, &format!("/nodes/{ni}/reasonCode"));
                match entries.get(code) {
                    None => l.diags.push(
                        Diagnostic::error(
                            "route-reason-code-missing",
                            format!("the reason code `{code}` is not declared by the provider's code catalog"),
                        )
                        .at(at),
                    ),
                    Some(e) if e.kind != "route-reason" => l.diags.push(
                        Diagnostic::error(
                            "route-reason-code-kind-invalid",
                            format!("the reason code `{code}` names a `{}` catalog entry, not a `route-reason`", e.kind),
                        )
                        .at(at),
                    ),
                    Some(_) => {}
                }
            }
        }
    }

    // 7. Materializers of dynamic resources.
    let dynamic: Vec<(String, String, Span)> = l
        .resources
        .iter()
        .filter_map(|(rel, r)| r.materializer.clone().map(|(m, at)| (rel.clone(), m, at)))
        .collect();
    for (rel, reference, at) in dynamic {
        let Some(arel) = l.include_action(&reference, at) else {
            continue;
        };
        let a = &l.actions[&arel];
        if a.model.is_none() {
            continue;
        }
        if a.effect != "read" {
            let msg = format!("the materializer `{}` must have `effect: read`", a.id);
            l.diags
                .push(Diagnostic::error("materializer-effect-invalid", msg).at(at));
        }
        if a.runner != "command" && a.runner != "script" {
            let msg = format!(
                "the materializer `{}` must use the `command` or `script` runner",
                a.id
            );
            l.diags
                .push(Diagnostic::error("materializer-runner-invalid", msg).at(at));
        }
        let mfiles = a.files.clone();
        for files in &mut direct {
            if files.contains(&rel) {
                files.extend(mfiles.iter().cloned());
            }
        }
    }

    let mut diags = std::mem::take(&mut l.diags);
    diags.extend(super::lints::check(&graphs, catalog.as_ref()));
    let failed = diags.iter().any(Diagnostic::is_error)
        || graphs.iter().any(|g| !g.ok)
        || l.actions.values().any(|a| a.model.is_none())
        || l.resources.values().any(|r| r.model.is_none());
    if failed {
        return LoadedProvider {
            provider: None,
            graphs,
            diags,
            inventory: None,
        };
    }

    // Closure digests.
    let id = str_at(m, "id").unwrap_or_default().to_string();
    let version = str_at(m, "version").unwrap_or_default().to_string();
    let order = super::recursion::post_order(&deps);
    let mut closures: Vec<IndexSet<String>> = vec![IndexSet::new(); graphs.len()];
    for gi in order {
        let mut set = direct[gi].clone();
        for (c, _) in &deps[gi] {
            let child = closures[*c].clone();
            set.extend(child);
        }
        closures[gi] = set;
    }
    let mut graph_digests = IndexMap::new();
    let mut model_graphs = IndexMap::new();
    for (gi, g) in graphs.iter().enumerate() {
        let gid = str_at(&g.doc.value, "id").unwrap_or_default().to_string();
        let mut files: Vec<&String> = closures[gi].iter().collect();
        files.sort_by(|a, b| locale_compare(a, b));
        let files: Vec<serde_json::Value> =
            files.into_iter().map(|f| json!([f, l.digest(f)])).collect();
        let digest = digest_value(&json!({
            "provider": {"id": id, "version": version},
            "graph": gid,
            "files": files,
        }));
        graph_digests.insert(gid.clone(), digest);
        let path = root.join(&graph_rel[gi]).to_string_lossy().into_owned();
        model_graphs.insert(gid, convert::graph(&g.doc.value, path));
    }
    let inventory = super::inventory::of(&l, &abs, m, &catalog_rel, &graphs, &graph_rel, &deps);
    let provider = model::Provider {
        id,
        version,
        root: root.to_string_lossy().into_owned(),
        graphs: model_graphs,
        actions: l
            .actions
            .iter()
            .filter_map(|(k, a)| a.model.clone().map(|m| (k.clone(), m)))
            .collect(),
        resources: l
            .resources
            .values()
            .filter_map(|r| r.model.clone())
            .collect(),
        catalog,
        graph_digests,
    };
    LoadedProvider {
        provider: Some(provider),
        graphs,
        diags,
        inventory: Some(inventory),
    }
}

fn check_resolution(
    l: &mut Loader<'_, '_>,
    files: &mut IndexSet<String>,
    reference: &str,
    at: Span,
    gid: &str,
    nid: &str,
    add: &mut impl FnMut(&mut Loader<'_, '_>, &mut IndexSet<String>, &str, Span) -> Option<String>,
) {
    if let Some(rel) = add(l, files, reference, at)
        && l.actions[&rel].model.is_some()
        && l.actions[&rel].effect == "read"
    {
        let msg = format!(
            "the resolution action `{}` of gate `{gid}/{nid}` must use `effect: write` or `external`",
            l.actions[&rel].id
        );
        l.diags
            .push(Diagnostic::error("gate-resolution-effect-invalid", msg).at(at));
    }
}
