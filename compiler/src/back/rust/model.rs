//! The view-model: everything the templates print, computed from the typed plan
//! ([`agc_runtime::plan::Plan`], the same types every runner reads the plan with).
//!
//! The templates stay dumb: every identifier is sanitised ([`super::names`]), every string from
//! the document is an escaped literal or an escaped doc line, every type is rendered here, and
//! every line whose layout depends on its width is laid out here the way rustfmt lays it out
//! (100 columns), so that the generated crate is rustfmt-clean as written.

use super::facts;
use super::names;
use super::types::{self, DefKind, Field, RustType, Ty, TypeSpace};
use crate::back::runner::naming::Namer;
use agc_runtime::plan::{
    Declared, GraphOutput, HandlerCall, Node, NodeKind, Param, Plan, StateModel,
};
use serde_json::Value;

/// rustfmt's default line width.
const WIDTH: usize = 100;

/// The whole generated crate, ready for the templates.
pub struct Model {
    pub crate_name: String,
    /// The `agc-runtime = ...` dependency line of `Cargo.toml`.
    pub runtime_dep: String,
    pub graph_id_lit: String,
    pub source_path_lit: String,
    pub digest_lit: Option<String>,
    pub dialect: String,
    /// The crate docs' title line and the README's: graph title, else id (escaped).
    pub title_doc: Vec<String>,
    pub title_md: String,
    pub graph_id_md: String,
    pub source_md: String,
    pub types: Vec<DefView>,
    /// Whether `types.rs` needs `use std::collections::BTreeMap`.
    pub uses_map: bool,
    pub handlers: Vec<HandlerView>,
    /// Nodes run by the runtime itself, for the README: `(scoped id, kind)`, escaped.
    pub runtime_nodes: Vec<(String, String)>,
    /// Calls the dispatch answers itself, with no outputs (AWP `start`): their ids as literals.
    pub idle: Vec<String>,
    /// The plan's params type name (`Params`).
    pub params_fields: usize,
}

/// One generated type.
pub struct DefView {
    /// Full comment lines (`/// ...`).
    pub doc: Vec<String>,
    /// Attribute lines (`#[derive(...)]`, `#[serde(...)]`).
    pub attrs: Vec<String>,
    /// `struct` or `enum`.
    pub keyword: &'static str,
    pub name: String,
    pub items: Vec<ItemView>,
}

/// A field or a variant: its doc lines, attributes and the line itself.
pub struct ItemView {
    pub doc: Vec<String>,
    pub attrs: Vec<String>,
    pub line: String,
}

/// One handler method.
#[derive(Clone)]
pub struct HandlerView {
    /// The node's scoped id as a string literal.
    pub id_lit: String,
    /// The scoped id for Markdown.
    pub id_md: String,
    pub kind: String,
    pub method: String,
    pub inputs: String,
    pub outputs: String,
    pub doc: Vec<String>,
    /// The trait method's signature lines (with the closing `;`), laid out for rustfmt.
    pub signature: Vec<String>,
}

/// What the caller chooses.
pub struct Options<'a> {
    pub crate_name: &'a str,
    /// The `agc-runtime` dependency: `path=..` or `version=..`.
    pub runtime: &'a Runtime,
}

/// Where the generated crate finds `agc-runtime`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Runtime {
    Path(String),
    Version(String),
}

impl Runtime {
    /// The dependency line of the generated `Cargo.toml`: the runtime's default features off,
    /// only those the plan needs on ([`Plan::runtime_features`]), so that an AGS runner does
    /// not build AWP's jq or Agent Graph's ICU collator.
    fn dep_line(&self, features: &[&str]) -> String {
        let source = match self {
            Runtime::Path(p) => format!("path = {}", toml_string(p)),
            Runtime::Version(v) => format!("version = {}", toml_string(v)),
        };
        let features: Vec<String> = features.iter().map(|f| toml_string(f)).collect();
        let features = if features.is_empty() {
            String::new()
        } else {
            format!(", features = [{}]", features.join(", "))
        };
        format!("agc-runtime = {{ {source}, default-features = false{features} }}")
    }
}

/// A TOML basic string (the same escapes as JSON, which TOML accepts).
fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Full doc comment lines (`///`, `/// text`) for `text`, indented by `indent` spaces.
fn doc(text: &str) -> Vec<String> {
    comment(&names::doc_lines(text))
}

fn comment(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            if l.is_empty() {
                "///".to_string()
            } else {
                format!("/// {l}")
            }
        })
        .collect()
}

/// A declared port (a param, a node's input or output, a graph output): what a field needs.
struct Port<'a> {
    name: &'a str,
    ty: &'a str,
    required: bool,
    decl: &'a Declared,
}

/// A port as a field of the struct named `owner`.
fn port_field(space: &mut TypeSpace, fnamer: &mut Namer, owner: &str, port: Port<'_>) -> Field {
    let ty = space.port(&format!("{owner} {}", port.name), port.ty, port.decl);
    let required = port.required;
    Field {
        ident: fnamer.member(port.name),
        json: port.name.to_string(),
        ty: if required || matches!(ty, Ty::Option(_)) {
            ty
        } else {
            Ty::Option(Box::new(ty))
        },
        optional: !required,
        doc: names::doc_lines(port.decl.description.as_deref().unwrap_or_default()),
    }
}

/// Builds the model of the plan `plan`.
pub fn build(plan: &Plan, opts: &Options<'_>) -> Model {
    let mut space = types::space();
    let source = &plan.source;
    let graph_id = plan.graph.id.as_str();
    let title = plan.graph.title.as_deref().unwrap_or(graph_id);

    // Params.
    let mut fnamer = names::namer();
    let params: Vec<Field> = plan
        .params
        .iter()
        .map(|p| {
            let port = Port {
                name: &p.name,
                ty: &p.ty,
                required: p.required,
                decl: &p.decl,
            };
            port_field(&mut space, &mut fnamer, "Params", port)
        })
        .collect();
    // Agent Graph: the params are the fact store, typed from the checks that read it.
    let facts = facts::schema(plan).map(|schema| {
        let decl = Declared {
            schema: Some(schema),
            ..Declared::default()
        };
        space.port("facts", "object", &decl)
    });
    let mut params = params;
    if let Some(t) = &facts {
        let doc = "The fact store the run starts with (a run without one starts empty).";
        params.push(facts_field(&mut fnamer, t, doc));
    }
    let params_fields = params.len();
    // AWP: a node's outputs merge into the workflow state (the params' properties), so a task
    // that declares none may set any state property: each one optional.
    let state_update: Option<Vec<Field>> =
        matches!(plan.semantics.state, StateModel::Workflow { .. }).then(|| {
            params
                .iter()
                .map(|f| Field {
                    ty: match &f.ty {
                        Ty::Option(_) => f.ty.clone(),
                        t => Ty::Option(Box::new(t.clone())),
                    },
                    optional: true,
                    ..f.clone()
                })
                .collect()
        });
    space.add_struct(
        "Params".into(),
        names::doc_lines("The graph's parameters."),
        params,
    );

    // Graph outputs: the declared ones, else (AWP) the end node's `output_schema`.
    let mut fnamer = names::namer();
    let result = end_result(plan);
    let declared = if plan.outputs.is_empty() {
        &result
    } else {
        &plan.outputs
    };
    let outputs: Vec<Field> = declared
        .iter()
        .map(|p| {
            let port = Port {
                name: &p.name,
                ty: &p.ty,
                required: p.required,
                decl: &p.decl,
            };
            port_field(&mut space, &mut fnamer, "Outputs", port)
        })
        .collect();
    space.add_struct(
        "Outputs".into(),
        names::doc_lines("The graph's outputs, as a finished run's record holds them."),
        outputs,
    );

    // Handlers, in plan (execution) order: a method for each node the runtime calls a
    // handler for (an AWP signal wait is answered on resume, like a gate left pending). The
    // trait holds nothing else (its hooks are the runtime's `Hooks`), so its methods cannot
    // clash with anything but each other.
    let mut methods = names::namer();
    let mut handlers = Vec::new();
    let mut runtime_nodes = Vec::new();
    let mut idle = Vec::new();
    for node in &plan.nodes {
        let id = node.id.as_str();
        let kind = node.kind.as_str();
        // AWP's `start` marks where a run begins and does no work: the runtime calls it
        // like a task (its attempt is in the record), the dispatch answers it.
        if node.origin_kind == "start" && node.kind == NodeKind::Task && node.outputs.is_empty() {
            runtime_nodes.push((names::markdown_inline(id), "start, no work".to_string()));
            idle.push(names::literal(id));
            continue;
        }
        match plan.handler_call(node) {
            Some(HandlerCall::Task | HandlerCall::Decision | HandlerCall::Gate) => {}
            _ => {
                let how = if node.kind == NodeKind::Decision {
                    "decision, by its expressions".to_string()
                } else {
                    kind.to_string()
                };
                runtime_nodes.push((names::markdown_inline(id), how));
                continue;
            }
        }
        // Room for the `Inputs`/`Outputs`/`Decision` suffixes within the identifier cap.
        let mut base = names::camel(id);
        base.truncate(30);
        let mut fnamer = names::namer();
        let in_name = space.reserve(&format!("{base} inputs"));
        let inputs: Vec<Field> = node
            .inputs
            .iter()
            .map(|p| {
                let port = Port {
                    name: &p.name,
                    ty: &p.ty,
                    required: p.required,
                    decl: &p.decl,
                };
                port_field(&mut space, &mut fnamer, &in_name, port)
            })
            .collect();
        space.add_struct(
            in_name.clone(),
            names::doc_lines(&format!("The inputs of {kind} {id}.")),
            inputs,
        );
        let out_name = space.reserve(&format!("{base} outputs"));
        let mut fnamer = names::namer();
        let mut outputs: Vec<Field> = Vec::new();
        for p in &node.outputs {
            let port = Port {
                name: &p.name,
                ty: &p.ty,
                required: p.required,
                decl: &p.decl,
            };
            let mut f = port_field(&mut space, &mut fnamer, &out_name, port);
            if f.json == "decision"
                && let Some(values) = decision_values(node, kind)
            {
                let t = space.add_enum(&format!("{base} decision"), decision_doc(kind), &values);
                f.ty = if f.optional {
                    Ty::Option(Box::new(t))
                } else {
                    t
                };
            }
            outputs.push(f);
        }
        if kind == "task"
            && node.outputs.is_empty()
            && let Some(fields) = &state_update
        {
            outputs.extend(fields.iter().cloned());
        }
        // Every gate answers `approved` or `rejected` (an Agent Graph or agh gate declares no
        // `decision` output; its answer has one all the same).
        if kind == "gate"
            && !outputs.iter().any(|f| f.json == "decision")
            && let Some(values) = decision_values(node, kind)
        {
            let ty = space.add_enum(&format!("{base} decision"), decision_doc(kind), &values);
            outputs.insert(
                0,
                Field {
                    ident: fnamer.member("decision"),
                    json: "decision".into(),
                    ty,
                    optional: false,
                    doc: names::doc_lines("What the human decided."),
                },
            );
        }
        // Agent Graph: an action reports the outcome its edges route on and facts to merge.
        if let Some(t) = facts.as_ref().filter(|_| kind == "task") {
            let values = facts::outcomes(plan, node);
            if !values.is_empty() {
                let doc = names::doc_lines("The outcomes this node's edges route on.");
                let ty = space.add_enum(&format!("{base} outcome"), doc, &values);
                outputs.push(Field {
                    ident: fnamer.member("outcome"),
                    json: "outcome".into(),
                    ty: Ty::Option(Box::new(ty)),
                    optional: true,
                    doc: names::doc_lines(
                        "The outcome to route on (completed when left out and the call succeeds).",
                    ),
                });
            }
            outputs.push(facts_field(
                &mut fnamer,
                t,
                "Facts to merge into the fact store.",
            ));
        }
        // An input gate's collected values are outputs too (the runtime merges them in).
        for p in gate_collect(node) {
            let port = Port {
                name: &p.name,
                ty: &p.ty,
                required: p.required,
                decl: &p.decl,
            };
            outputs.push(port_field(&mut space, &mut fnamer, &out_name, port));
        }
        space.add_struct(
            out_name.clone(),
            names::doc_lines(&format!("The outputs of {kind} {id}.")),
            outputs,
        );
        let method = methods.member(id);
        let mut hdoc = format!("{} {id}", capitalise(kind));
        if let Some(t) = &node.title {
            hdoc.push_str(": ");
            hdoc.push_str(t);
        }
        if let Some(d) = node.attributes.get("description").and_then(Value::as_str) {
            hdoc.push_str("\n\n");
            hdoc.push_str(d);
        }
        let ret = if kind == "gate" {
            hdoc.push_str("\n\nReturn None to pause the run until a human decides.");
            format!("impl Reply<Option<Answer<{out_name}>>>")
        } else {
            format!("impl Reply<{out_name}>")
        };
        let signature = signature(&method, &in_name, &ret);
        handlers.push(HandlerView {
            id_lit: names::literal(id),
            id_md: names::markdown_inline(id),
            kind: kind.to_string(),
            method,
            inputs: in_name,
            outputs: out_name,
            doc: doc(&hdoc),
            signature,
        });
    }

    let uses_map = space.defs.iter().any(|d| match &d.kind {
        DefKind::Struct { fields } => fields.iter().any(|f| f.ty.uses_map()),
        DefKind::Untagged { variants } => variants.iter().any(|(_, t)| t.uses_map()),
        _ => false,
    });
    let types = (0..space.defs.len()).map(|i| def_view(&space, i)).collect();
    Model {
        crate_name: opts.crate_name.to_string(),
        runtime_dep: opts.runtime.dep_line(&plan.runtime_features()),
        graph_id_lit: names::literal(graph_id),
        source_path_lit: names::literal(&source.path),
        digest_lit: source.graph_digest.as_deref().map(names::literal),
        dialect: names::markdown_inline(&source.dialect),
        title_doc: doc(title),
        title_md: names::markdown_inline(title),
        graph_id_md: names::markdown_inline(graph_id),
        source_md: names::markdown_inline(&source.path),
        types,
        uses_map,
        handlers,
        runtime_nodes,
        idle,
        params_fields,
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// The values a decision or gate node's `decision` output takes, when the plan says: a
/// decision's branch labels (`decision.branches[].label`, else the labels of its
/// outgoing edges are not known here), any gate's `approved`/`rejected`.
fn decision_values(node: &Node, kind: &str) -> Option<Vec<(String, String)>> {
    match kind {
        "decision" => {
            let branches = &node.decision.as_ref()?.branches;
            let mut seen = std::collections::HashSet::new();
            let values: Vec<(String, String)> = branches
                .iter()
                .filter_map(|b| {
                    let d = b.description.as_deref().unwrap_or("");
                    seen.insert(b.label.as_str())
                        .then(|| (b.label.clone(), d.to_string()))
                })
                .collect();
            (!values.is_empty()).then_some(values)
        }
        "gate" => Some(vec![
            ("approved".into(), "The gate was approved.".into()),
            ("rejected".into(), "The gate was rejected.".into()),
        ]),
        _ => None,
    }
}

/// An optional `facts` field of type `t` (the fact store's).
fn facts_field(fnamer: &mut Namer, t: &Ty, doc: &str) -> Field {
    Field {
        ident: fnamer.member("facts"),
        json: "facts".into(),
        ty: Ty::Option(Box::new(t.clone())),
        optional: true,
        doc: names::doc_lines(doc),
    }
}

/// An AWP workflow's result as its end node declares it (`config.output_schema`, an object
/// with `properties`): the run's outputs are the result's keys. Empty when no end node of the
/// root declares one.
fn end_result(plan: &Plan) -> Vec<GraphOutput> {
    let schema = plan
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Terminal && !n.id.contains('/'))
        .find_map(|n| n.attributes.get("config")?.get("output_schema"));
    let Some(schema) = schema else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, prop)| GraphOutput {
            name: name.clone(),
            ty: "any".into(),
            required: required.contains(&name.as_str()),
            from: None,
            decl: Declared {
                schema: Some(prop.clone()),
                description: prop
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                ..Declared::default()
            },
        })
        .collect()
}

/// What an input gate collects (its `gate`'s `collect`), in declaration order, less a
/// value named `decision` (the gate's own answer).
fn gate_collect(node: &Node) -> impl Iterator<Item = &Param> {
    node.gate
        .iter()
        .flat_map(|g| &g.collect)
        .filter(|p| p.name != "decision")
}

fn decision_doc(kind: &str) -> Vec<String> {
    match kind {
        "decision" => names::doc_lines("The branches this decision can take."),
        _ => names::doc_lines("What the gate decided."),
    }
}

/// The handler method's signature laid out as rustfmt lays it out.
fn signature(method: &str, inputs: &str, ret: &str) -> Vec<String> {
    let head = format!("    fn {method}(&self, ctx: &Context, inputs: {inputs})");
    let one = format!("{head} -> {ret};");
    // rustfmt keeps a declaration on one line when it fits with a column to spare; at exactly
    // the width it moves the return type to the next line; beyond, one parameter per line.
    if one.len() < WIDTH {
        return vec![one];
    }
    if one.len() == WIDTH {
        return vec![head, format!("    -> {ret};")];
    }
    vec![
        format!("    fn {method}("),
        "        &self,".to_string(),
        "        ctx: &Context,".to_string(),
        format!("        inputs: {inputs},"),
        format!("    ) -> {ret};"),
    ]
}

/// `#[serde(rename = "...")]` at `indent`, broken the way rustfmt breaks a long attribute.
fn rename_attr(indent: usize, json: &str) -> Vec<String> {
    let lit = names::literal(json);
    let one = format!("#[serde(rename = {lit})]");
    if indent + one.len() <= WIDTH {
        return vec![one];
    }
    vec![
        "#[serde(".into(),
        format!("    rename = {lit}"),
        ")]".into(),
    ]
}

fn def_view(space: &TypeSpace, i: usize) -> DefView {
    let def = &space.defs[i];
    let eq = space.def_is_eq(i);
    let mut attrs = Vec::new();
    let (keyword, items) = match &def.kind {
        DefKind::Struct { fields } => {
            let derive = if eq {
                "#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]"
            } else {
                "#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]"
            };
            // Default only when every field has one (named types may not).
            let all_default = fields.iter().all(|f| has_default(&f.ty));
            attrs.push(if all_default {
                derive.to_string()
            } else {
                derive.replace("Default, ", "")
            });
            let items = fields
                .iter()
                .map(|f| {
                    let mut a = Vec::new();
                    if names::bare(&f.ident) != f.json {
                        a.extend(rename_attr(4, &f.json));
                    }
                    if f.optional && matches!(f.ty, Ty::Option(_)) {
                        a.push(
                            "#[serde(default, skip_serializing_if = \"Option::is_none\")]".into(),
                        );
                    }
                    ItemView {
                        doc: comment(&f.doc),
                        attrs: a,
                        line: format!("pub {}: {},", f.ident, f.ty.rust(space)),
                    }
                })
                .collect();
            ("struct", items)
        }
        DefKind::Enum { variants } => {
            attrs.push(
                "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]".into(),
            );
            let items = variants
                .iter()
                .map(|v| ItemView {
                    doc: comment(&v.doc),
                    attrs: if v.ident != v.json {
                        rename_attr(4, &v.json)
                    } else {
                        Vec::new()
                    },
                    line: format!("{},", v.ident),
                })
                .collect();
            ("enum", items)
        }
        DefKind::Tagged { tag, variants } => {
            attrs.push(enum_derive(eq));
            let tag_attr = format!("#[serde(tag = {})]", names::literal(tag));
            if tag_attr.len() <= WIDTH {
                attrs.push(tag_attr);
            } else {
                attrs.extend([
                    "#[serde(".to_string(),
                    format!("    tag = {}", names::literal(tag)),
                    ")]".to_string(),
                ]);
            }
            let items = variants
                .iter()
                .map(|(v, t)| ItemView {
                    doc: comment(&v.doc),
                    attrs: if v.ident != v.json {
                        rename_attr(4, &v.json)
                    } else {
                        Vec::new()
                    },
                    line: format!("{}({}),", v.ident, t.rust(space)),
                })
                .collect();
            ("enum", items)
        }
        DefKind::Untagged { variants } => {
            attrs.push(enum_derive(eq));
            attrs.push("#[serde(untagged)]".into());
            let items = variants
                .iter()
                .map(|(v, t)| ItemView {
                    doc: Vec::new(),
                    attrs: Vec::new(),
                    line: format!("{v}({}),", t.rust(space)),
                })
                .collect();
            ("enum", items)
        }
    };
    DefView {
        doc: comment(&def.doc),
        attrs,
        keyword,
        name: def.name.clone(),
        items,
    }
}

fn enum_derive(eq: bool) -> String {
    if eq {
        "#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]".into()
    } else {
        "#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]".into()
    }
}

/// Whether `Default` can be derived for a field of type `t`: not for a named type held
/// directly (enums have no default, and a struct's fields are not looked into, which keeps
/// this free of recursion over recursive types).
fn has_default(t: &Ty) -> bool {
    !matches!(t, Ty::Named(_) | Ty::Boxed(_))
}
