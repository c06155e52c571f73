//! References, rename, completion and code actions, over stdio, on AGS, AWP, agh and Agent
//! Graph documents.

use super::client::{Client, uri};
use super::{agc_check, at, workspace};
use serde_json::{Value, json};
use std::path::Path;

/// The text of every location's range (ASCII documents), in order.
fn texts(text: &str, locations: &Value) -> Vec<String> {
    locations
        .as_array()
        .unwrap()
        .iter()
        .map(|l| slice(text, &l["range"]).to_string())
        .collect()
}

fn offset(text: &str, pos: &Value) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    start + pos["character"].as_u64().unwrap() as usize
}

fn slice<'t>(text: &'t str, range: &Value) -> &'t str {
    &text[offset(text, &range["start"])..offset(text, &range["end"])]
}

/// `text` with `edits` (LSP text edits, ASCII) applied.
fn apply(text: &str, edits: &Value) -> String {
    let mut edits: Vec<(usize, usize, String)> = edits
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let r = &e["range"];
            let s = offset(text, &r["start"]);
            (
                s,
                offset(text, &r["end"]),
                e["newText"].as_str().unwrap().into(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    out
}

fn pos_params(u: &str, pos: Value) -> Value {
    json!({ "textDocument": { "uri": u }, "position": pos })
}

fn references(c: &mut Client, u: &str, pos: Value, decl: bool) -> Value {
    let mut p = pos_params(u, pos);
    p["context"] = json!({ "includeDeclaration": decl });
    c.request("textDocument/references", p)
}

/// Opens `text` as `name` in a fresh workspace.
fn open(name: &str, text: &str) -> (common_dir::Dir, Client, String) {
    let ws = workspace(name.split('.').next().unwrap());
    let path = ws.join(name);
    std::fs::write(&path, text).unwrap();
    let u = uri(&path);
    let mut c = Client::start(&ws, false);
    c.open(&u, text);
    c.sync();
    (ws, c, u)
}

mod common_dir {
    pub type Dir = super::super::common::TempDir;
}

/// Renames at `pos` to `new`: the edits of the one document, applied.
fn rename(c: &mut Client, u: &str, text: &str, pos: Value, new: &str) -> Result<String, String> {
    let mut p = pos_params(u, pos);
    p["newName"] = json!(new);
    let r = c.request_raw("textDocument/rename", p);
    match r.response_result {
        Ok(edit) => Ok(apply(text, &edit["changes"][u])),
        Err(e) => Err(e.message),
    }
}

#[test]
fn ags_references_and_rename_reach_expressions_and_templates() {
    let text = std::fs::read_to_string("examples/ags/changelog-release.agraph.yaml").unwrap();
    let (ws, mut c, u) = open("wf.agraph.yaml", &text);
    // From the `depends_on` entry: the key, that entry, and two expression reads.
    let pos = at(&text, "depends_on: [draft_notes]", "draft_notes");
    let all = references(&mut c, &u, pos.clone(), true);
    assert_eq!(texts(&text, &all), ["draft_notes"; 4], "{all}");
    let uses = references(&mut c, &u, pos.clone(), false);
    assert_eq!(uses.as_array().unwrap().len(), 3);
    // From inside a template, `${{ nodes.collect_changes.outputs.entry_count }}`.
    let in_template = at(&text, "(${{ nodes.", "collect_changes");
    let cc = references(&mut c, &u, in_template.clone(), true);
    // The key, the entrypoint, `depends_on`, two `from`/template reads, two branch `when`s.
    assert_eq!(texts(&text, &cc), ["collect_changes"; 7], "{cc}");
    let def = c.request("textDocument/definition", pos_params(&u, in_template));
    assert_eq!(
        def[0]["range"]["start"],
        at(&text, "\n  collect_changes:", "collect_changes")
    );
    // `prepareRename` gives the id's range; off an id it refuses.
    let prep = c.request("textDocument/prepareRename", pos_params(&u, pos.clone()));
    assert_eq!(slice(&text, &prep["range"]), "draft_notes");
    let off = c.request_raw(
        "textDocument/prepareRename",
        pos_params(&u, json!({ "line": 0, "character": 1 })),
    );
    assert!(off.response_result.is_err());
    // The rename: every site, and the result checks clean.
    let renamed = rename(&mut c, &u, &text, pos.clone(), "notes_draft").unwrap();
    assert!(!renamed.contains("draft_notes"), "{renamed}");
    assert_eq!(renamed.matches("notes_draft").count(), 4);
    let path = ws.join("renamed.agraph.yaml");
    std::fs::write(&path, &renamed).unwrap();
    assert_eq!(agc_check(&path), Vec::<Value>::new());
    // Refused: a taken id, a name that is no id, one the dialect's id pattern refuses.
    let taken = rename(&mut c, &u, &text, pos.clone(), "approve").unwrap_err();
    assert!(taken.contains("already a node"), "{taken}");
    let spaced = rename(&mut c, &u, &text, pos.clone(), "two words").unwrap_err();
    assert!(spaced.contains("cannot be a node id"), "{spaced}");
    let upper = rename(&mut c, &u, &text, pos, "Draft").unwrap_err();
    assert!(upper.contains("would not check"), "{upper}");
    // The refused check left the document as it was.
    assert_eq!(c.diags(&u), Vec::<Value>::new());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn awp_references_cover_edges_switch_targets_and_branches() {
    let text = std::fs::read_to_string("examples/awp/support-triage.workflow.yaml").unwrap();
    let (_ws, mut c, u) = open("triage.workflow.yaml", &text);
    let pos = at(&text, "- id: research", "research");
    let all = references(&mut c, &u, pos.clone(), true);
    let n = texts(&text, &all).len();
    // The id, the switch case, the edge from `review`; not the `{source: research}` literal.
    assert!(n >= 3, "{all}");
    assert!(texts(&text, &all).iter().all(|t| t == "research"));
    let renamed = rename(&mut c, &u, &text, pos, "dig").unwrap();
    assert_eq!(renamed.matches("target: dig").count(), 2, "{renamed}");
    assert!(
        renamed.contains("{source: research}"),
        "a literal is no reference"
    );
    let entry = at(&text, "entry: search_logs", "search_logs");
    let def = c.request("textDocument/definition", pos_params(&u, entry));
    assert_eq!(
        def[0]["range"]["start"],
        at(&text, "- id: search_logs", "search_logs")
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn agh_rename_reaches_edges_and_templates() {
    let text = std::fs::read_to_string("examples/agh/delivery.loop.yaml").unwrap();
    let (ws, mut c, u) = open("delivery.loop.yaml", &text);
    let pos = at(&text, "- id: tasks", "tasks");
    let all = references(&mut c, &u, pos.clone(), true);
    // The id, two edge ends and the `{{ .nodes.tasks.output.tasks }}` read.
    assert_eq!(texts(&text, &all), ["tasks"; 4], "{all}");
    let renamed = rename(&mut c, &u, &text, pos, "task_list").unwrap();
    assert!(
        renamed.contains("{{ .nodes.task_list.output.tasks }}"),
        "{renamed}"
    );
    assert!(
        renamed.contains("{ from: plan, to: task_list }"),
        "{renamed}"
    );
    let path = ws.join("renamed.loop.yaml");
    std::fs::write(&path, &renamed).unwrap();
    let errors: Vec<Value> = agc_check(&path)
        .into_iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors, Vec::<Value>::new());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn agent_graph_references_of_a_graph_node() {
    let dir = Path::new("examples/agent-graph/release");
    let ws = workspace("ag");
    for sub in ["graphs", "actions"] {
        std::fs::create_dir_all(ws.join(sub)).unwrap();
        for f in std::fs::read_dir(dir.join(sub)).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, ws.join(sub).join(f.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(dir.join("provider.yaml"), ws.join("provider.yaml")).unwrap();
    let path = ws.join("graphs/release.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let u = uri(&path);
    let mut c = Client::start(&ws, false);
    c.open(&u, &text);
    let pos = at(&text, "- id: review", "review");
    let all = references(&mut c, &u, pos, true);
    // The id, and three edge ends.
    assert_eq!(texts(&text, &all), ["review"; 4], "{all}");
    // A node's action: the action file (the Provider's folder, above `graphs/`).
    let pos = at(&text, "action: actions/", "build");
    let def = c.request("textDocument/definition", pos_params(&u, pos));
    assert_eq!(def[0]["uri"], uri(&ws.join("actions/build.yaml")), "{def}");
    // The Provider's `graphs`: the graph file.
    let pp = ws.join("provider.yaml");
    let ptext = std::fs::read_to_string(&pp).unwrap();
    c.open(&uri(&pp), &ptext);
    let pos = at(&ptext, "graphs: [", "release");
    let def = c.request("textDocument/definition", pos_params(&uri(&pp), pos));
    assert_eq!(def[0]["uri"], u.as_str(), "{def}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn completion_offers_ids_outputs_and_schema_keys() {
    let text = std::fs::read_to_string("examples/ags/changelog-release.agraph.yaml").unwrap();
    let (_ws, mut c, u) = open("wf.agraph.yaml", &text);
    let labels = |v: &Value| -> Vec<String> {
        let items = v
            .as_array()
            .or(v["items"].as_array())
            .cloned()
            .unwrap_or_default();
        items
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    // Half-typed: `from: nodes.collect_changes.outputs.` (the document then has errors).
    let anchor = "from: nodes.draft_notes.outputs.notes";
    let typed = text.replacen(anchor, "from: nodes.collect_changes.outputs.", 1);
    c.replace(&u, 2, &typed);
    let mut pos = at(&typed, "from: nodes.collect_changes.outputs.", "outputs.");
    pos["character"] = json!(pos["character"].as_u64().unwrap() + "outputs.".len() as u64);
    let got = labels(&c.request("textDocument/completion", pos_params(&u, pos)));
    assert_eq!(got, ["entries", "entry_count"]);
    // A node where one is expected: `depends_on: [`.
    let typed = text.replacen("depends_on: [draft_notes]", "depends_on: [", 1);
    c.replace(&u, 3, &typed);
    let mut pos = at(&typed, "depends_on: [\n", "[");
    pos["character"] = json!(pos["character"].as_u64().unwrap() + 1);
    let got = labels(&c.request("textDocument/completion", pos_params(&u, pos)));
    assert!(
        got.contains(&"draft_notes".to_string()) && got.len() == 5,
        "{got:?}"
    );
    // A key of a node: from the schema.
    let typed = text.replacen("    type: gate\n", "    type: gate\n    \n", 1);
    c.replace(&u, 4, &typed);
    let pos = at(&typed, "type: gate\n    \n", "\n    \n");
    let pos = json!({ "line": pos["line"].as_u64().unwrap() + 1, "character": 4 });
    let got = labels(&c.request("textDocument/completion", pos_params(&u, pos)));
    for k in ["depends_on", "gate", "outputs", "title"] {
        assert!(got.contains(&k.to_string()), "{k}: {got:?}");
    }
    assert_eq!(c.shutdown(), 0);
}

/// The quick fixes at the first diagnostic with `code`, applied one by one.
fn fixes(c: &mut Client, u: &str, text: &str, code: &str) -> Vec<(String, String)> {
    let d = c
        .diags(u)
        .into_iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code}: {:?}", c.diags(u)));
    assert!(d["data"]["fix"].is_object(), "the fix is data: {d}");
    let actions = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": d["range"],
                "context": { "diagnostics": [d] } }),
    );
    actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            assert_eq!(a["kind"], "quickfix");
            let title = a["title"].as_str().unwrap().to_string();
            (title, apply(text, &a["edit"]["changes"][u]))
        })
        .collect()
}

#[test]
fn code_actions_apply_the_fix_the_help_names() {
    // "did you mean": AGS `depends_on`, an AGX read, an AWP edge, an agh edge.
    let cases = [
        (
            "typo.agraph.yaml",
            std::fs::read_to_string("tests/fixtures/ags/ag114-typo-dependency.agraph.yaml")
                .unwrap(),
            "AG114",
            ("fecth", "fetch"),
        ),
        (
            "read.agraph.yaml",
            std::fs::read_to_string("examples/ags/changelog-release.agraph.yaml")
                .unwrap()
                .replacen("from: nodes.draft_notes.", "from: nodes.draft_note.", 1),
            "AG203",
            ("nodes.draft_note.", "nodes.draft_notes."),
        ),
        (
            "wf.workflow.yaml",
            std::fs::read_to_string("examples/awp/support-triage.workflow.yaml")
                .unwrap()
                .replacen(
                    "{source: review, target: research}",
                    "{source: review, target: reseach}",
                    1,
                ),
            "edge-endpoint-missing",
            ("target: reseach", "target: research"),
        ),
        (
            "d.loop.yaml",
            std::fs::read_to_string("examples/agh/delivery.loop.yaml")
                .unwrap()
                .replacen("{ from: plan, to: tasks }", "{ from: plan, to: taks }", 1),
            "unknown_reference",
            ("to: taks", "to: tasks"),
        ),
    ];
    for (name, text, code, (wrong, right)) in cases {
        let (_ws, mut c, u) = open(name, &text);
        let fixed = fixes(&mut c, &u, &text, code);
        assert_eq!(fixed.len(), 1, "{name}: {fixed:?}");
        assert_eq!(fixed[0].1, text.replacen(wrong, right, 1), "{name}");
        assert_eq!(c.shutdown(), 0);
    }
}

#[test]
fn a_missing_dependency_is_added_by_its_code_action() {
    // `approve` reads `trim_notes` without depending on it (AG201).
    let text = std::fs::read_to_string("examples/ags/changelog-release.agraph.yaml")
        .unwrap()
        .replacen(
            "      prompt: Publish the release notes for ${{ params.since_tag }}?",
            "      prompt: Publish ${{ nodes.draft_notes.outputs.notes }}?",
            1,
        )
        .replacen("    join: any\n", "", 1)
        .replacen("  - from: trim_notes\n    to: approve\n", "", 1)
        .replacen(
            "  - from: review_length\n    to: approve\n    kind: conditional\n    when: nodes.review_length.outputs.decision == \"ok\"\n",
            "",
            1,
        );
    let (ws, mut c, u) = open("dep.agraph.yaml", &text);
    let fixed = fixes(&mut c, &u, &text, "AG201");
    assert_eq!(fixed.len(), 1, "{fixed:?}");
    assert_eq!(fixed[0].0, "add `draft_notes` to `depends_on`");
    assert!(
        fixed[0]
            .1
            .contains("  approve:\n    depends_on: [draft_notes]\n    type: gate\n"),
        "{}",
        fixed[0].1
    );
    let path = ws.join("fixed.agraph.yaml");
    std::fs::write(&path, &fixed[0].1).unwrap();
    assert!(
        !agc_check(&path).iter().any(|d| d["code"] == "AG201"),
        "{:?}",
        agc_check(&path)
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn definition_follows_links_to_other_files() {
    // `subgraph.ref.uri`: the child file.
    let ws = workspace("links");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    let child_path = ws.join("sub/child.agraph.yaml");
    std::fs::write(&child_path, super::child("kid")).unwrap();
    let parent_path = ws.join("parent.agraph.yaml");
    std::fs::write(&parent_path, super::PARENT).unwrap();
    let pu = uri(&parent_path);
    let mut c = Client::start(&ws, false);
    c.open(&pu, super::PARENT);
    let pos = at(super::PARENT, "uri: \"./sub/", "child");
    let def = c.request("textDocument/definition", pos_params(&pu, pos));
    assert_eq!(def[0]["uri"], uri(&child_path), "{def}");
    assert_eq!(
        def[0]["range"]["start"],
        json!({ "line": 0, "character": 0 })
    );
    // An agh tool id: where the extension manifest declares the tool.
    let ext = ws.join("extensions/my-ext");
    let lp = ext.join("loops/one/loop.yaml");
    std::fs::create_dir_all(lp.parent().unwrap()).unwrap();
    // `push` is named first in another tool's description: the link is to its own key.
    let manifest = "{\"extension\": {\"name\": \"my-ext\"}, \"resources\": {\"tools\": {\n  \"pull\": {\"description\": \"undoes a push\"},\n  \"push\": {\"output_schema\": {\"type\": \"object\"}}}}}\n";
    std::fs::write(ext.join("extension.json"), manifest).unwrap();
    let lp_text = "apiVersion: agh.loop/v1\nkind: Loop\nmeta: { name: one }\ncontract: { goal: Push., terminal_states: [done] }\ngraph:\n  nodes:\n    - id: push\n      class: action\n      kind: ext__my_ext__push\n      params: { remote: origin }\n";
    std::fs::write(&lp, lp_text).unwrap();
    let lu = uri(&lp);
    c.open(&lu, lp_text);
    c.sync();
    let pos = at(lp_text, "kind: ext__", "my_ext");
    let def = c.request("textDocument/definition", pos_params(&lu, pos));
    assert_eq!(def[0]["uri"], uri(&ext.join("extension.json")), "{def}");
    assert_eq!(
        def[0]["range"]["start"],
        json!({ "line": 2, "character": 3 })
    );
    assert_eq!(c.shutdown(), 0);
}
