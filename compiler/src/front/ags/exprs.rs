//! Layer 3 of SPEC §18.1: every expression and template position parsed (AG204 on syntax),
//! `${{ }}` in expression position refused (AG211), names resolved (AG202/AG203/AG205/AG206),
//! and the predecessor rule (AG201) answered per scope in one batch.

use super::checker::Checker;
use super::names::{self, NodeRead, ScopeNames};
use super::positions::{self, Position};
use super::scope::{Scope, ScopeKind};
use super::types;
use crate::analysis::preds::are_predecessors_in;
use crate::diag::Diagnostic;
use crate::expr::check::{TypeEnv, TypeErrorKind};
use crate::expr::types::Type;
use crate::hash::HashSet;
use crate::ir::NodeId;
use crate::source::Field;
use crate::source::scalar::ScalarMap;
use crate::source::{Map, Str, Value};
use crate::source::{Span, Walker};
use agc_runtime::expr::Expr;

/// Parses one position's text: `template` selects `${{ }}` templates over plain AGX.
pub type ParseFn<'p> =
    dyn Fn(&str, &ScalarMap, bool) -> Result<(Expr, Vec<Span>), Vec<Diagnostic>> + Sync + 'p;

/// Scopes with at least this many expression positions parse and resolve them on several
/// threads (see [`first_pass`]).
pub(super) const PARALLEL_FROM: usize = 4096;

/// What the first pass over some positions found: diagnostics, reads and resolved
/// expressions, each in the order of the positions.
#[derive(Default)]
struct FirstPass {
    diags: Vec<Diagnostic>,
    reads: Vec<(Option<Str>, NodeRead)>,
    /// Resolved expressions waiting for [`second_pass`] (empty once it ran).
    typed: Vec<Typed>,
    /// What the second pass found (AG204), after all of `diags` in the scope's report.
    type_diags: Vec<Diagnostic>,
    /// The typed expressions, for the expression cache.
    exprs: Vec<((crate::source::FileId, u32, bool), Expr)>,
    /// AG203/AG206 on a name that does not exist: (index in `diags`, the name), for its
    /// "did you mean".
    unknown: Vec<(usize, names::Unknown)>,
}

/// What the first pass reads and never changes.
struct PassInput<'s, 'a> {
    doc: &'s crate::source::Document,
    text: &'s str,
    scopes: &'s [Scope<'a>],
    si: usize,
    names: &'s ScopeNames<'s>,
    root: &'s Map,
    parse: &'s ParseFn<'s>,
    /// Set when the checks' result is no longer wanted.
    stop: &'s std::sync::atomic::AtomicBool,
}

impl PassInput<'_, '_> {
    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// An expression whose names resolved, waiting for its scope's type environment.
struct Typed {
    pos: Position,
    expr: Expr,
    spans: Vec<Span>,
    /// Its key in the expression cache.
    key: (crate::source::FileId, u32, bool),
    /// Whether it reads `self` (only then is the node's `self` type built).
    reads_self: bool,
}

impl Checker<'_> {
    /// Checks every expression of every scope.
    pub(super) fn check_expressions(&mut self, scopes: &[Scope<'_>], parse: &ParseFn<'_>) {
        // The root scope is the document's root mapping.
        let Some(root) = scopes.first().map(|s| s.obj) else {
            return;
        };
        let fragment_uses = fragment_uses(scopes);
        for (si, scope) in scopes.iter().enumerate() {
            if self.stopped() {
                return;
            }
            let names = scope_names(scopes, si, root, &fragment_uses);
            let mut list = positions::collect(scope);
            if let ScopeKind::Body { parent, owner } = &scope.kind {
                let owner_ptr = scopes[*parent].node_ptr(owner);
                for block in ["loop", "map"] {
                    if scope.ptr.ends_with(&format!("/{block}/body"))
                        && let Some(b) = scopes[*parent].node(owner).and_then(|n| n.field(block))
                    {
                        list.extend(positions::body_positions(&owner_ptr, block, b));
                    }
                }
            }
            // Pass 1: parse and resolve names; what resolved is typed in pass 2.
            let input = PassInput {
                doc: self.doc,
                text: self.text,
                scopes,
                si,
                names: &names,
                root,
                parse,
                stop: self.stop,
            };
            let FirstPass {
                mut diags,
                reads,
                typed: _,
                type_diags,
                exprs,
                unknown,
            } = first_pass(&input, list, self.parallel_from, self.threads);
            // "did you mean", in document order (see `Budget`).
            for (i, name) in unknown {
                if let Some((shown, wrong, right)) = self.suggest_for(scope, &names, &name) {
                    diags[i].help = Some(format!("did you mean `{shown}`?"));
                    diags[i].fix = Some(Box::new(crate::diag::Fix::Replace { wrong, right }));
                }
            }
            self.diags.extend(diags);
            self.diags.extend(type_diags);
            // Kept for lowering, which then parses nothing again.
            self.exprs.extend(exprs);
            self.reads.extend(
                reads
                    .iter()
                    .map(|(_, r)| (si as u32, r.target.as_str().into(), r.span)),
            );
            if self.stopped() {
                return;
            }
            // AG904 reads only the document: from `parallel_from` positions on, its nodes
            // are cut into parts that threads take while this one answers AG201 first (a
            // tenth of a second each for 100k nodes). Either way the findings keep their
            // order: AG201's, then AG904's.
            let doc = self.doc;
            let unread = Unread::new(scopes, si, &reads);
            let nodes: Vec<(&Str, &Map)> = scope.nodes().collect();
            let threads = if reads.len() >= self.parallel_from {
                self.threads
            } else {
                1
            };
            let size = crate::beside::part_size(nodes.len(), threads, 1);
            let (unread, ()) = crate::beside::parts(
                "agc-unread",
                nodes.chunks(size).collect(),
                threads,
                || Walker::new(doc),
                |walker, part| unread.outputs(scope, part, walker),
                || self.predecessor_rule(scope, &reads),
            );
            let unread: Vec<Diagnostic> = unread.into_iter().flatten().collect();
            self.diags.extend(unread);
            self.hyphenated_ids(scope, &reads);
        }
    }
}

/// Pass 1 over a scope's positions: each parsed and its names resolved. Positions are
/// independent of one another, so from `parallel_from` on they are cut into consecutive
/// parts that the threads take in turn ([`crate::beside::parts`]), each part typed in its own
/// environment, and the parts' findings joined in order: the same diagnostics, reads and
/// expressions, in the same order, as one thread (tested).
fn first_pass(
    input: &PassInput<'_, '_>,
    list: Vec<Position>,
    parallel_from: usize,
    threads: usize,
) -> FirstPass {
    if threads < 2 || list.len() < parallel_from.max(2) {
        let mut out = FirstPass::default();
        let mut walker = Walker::new(input.doc);
        for pos in list {
            if input.stopped() {
                break;
            }
            position(input, &mut walker, pos, &mut out);
        }
        second_pass(input, &mut out);
        return out;
    }
    // Parts taken by whichever thread is free (positions differ in cost: a graph output
    // reading many nodes, a template with many reads), several per thread.
    let size = crate::beside::part_size(list.len(), threads, parallel_from / 4);
    let (found, ()) = crate::beside::parts(
        "agc-exprs",
        crate::beside::cut(list, size),
        threads,
        || Walker::new(input.doc),
        |walker, part| {
            let mut out = FirstPass::default();
            for pos in part {
                if input.stopped() {
                    break;
                }
                position(input, walker, pos, &mut out);
            }
            second_pass(input, &mut out);
            out
        },
        || (),
    );
    let mut out = FirstPass::default();
    for f in found {
        let base = out.diags.len();
        out.unknown
            .extend(f.unknown.into_iter().map(|(i, name)| (base + i, name)));
        out.diags.extend(f.diags);
        out.reads.extend(f.reads);
        out.type_diags.extend(f.type_diags);
        out.exprs.extend(f.exprs);
    }
    out
}

/// Pass 2 over the expressions pass 1 resolved (in one run of positions): typed in an
/// environment holding the types of the nodes they name (not of every node: a 100k-node
/// scope would type them all). A node's type is the same in every run's environment, so runs
/// find what one environment for the whole scope finds.
fn second_pass(input: &PassInput<'_, '_>, out: &mut FirstPass) {
    let typed = std::mem::take(&mut out.typed);
    if typed.is_empty() {
        return;
    }
    let scope = &input.scopes[input.si];
    let mut env = types::scope_env(
        input.root,
        scope,
        &input.names.bare,
        input
            .names
            .in_loop
            .then_some(input.names.previous.as_slice()),
        named_nodes(&typed).as_ref(),
    );
    out.exprs.reserve_exact(typed.len());
    // Positions come node by node: `self` is typed once per node, not per position, and only
    // for expressions that read it.
    let mut self_of: Option<Option<Str>> = None;
    for t in typed {
        if input.stopped() {
            return;
        }
        if t.reads_self && self_of.as_ref() != Some(&t.pos.access.self_node) {
            let me = t
                .pos
                .access
                .self_node
                .as_deref()
                .and_then(|n| scope.node(n));
            env.insert("self", me.map_or(Type::Dyn, types::self_type));
            self_of = Some(t.pos.access.self_node.clone());
        }
        type_check(&t.pos, &t.expr, &t.spans, &env, &mut out.type_diags);
        out.exprs.push((t.key, t.expr));
    }
}

/// One position: parsed, its names resolved; resolved ones are kept for typing.
/// `walker` resolves the position's pointer: positions come node by node, so it walks only the
/// field's own tokens from the node.
fn position(
    input: &PassInput<'_, '_>,
    walker: &mut Walker<'_>,
    pos: Position,
    out: &mut FirstPass,
) {
    // One walk gives the text and its spans.
    let Some(at) = walker.at(&pos.ptr) else {
        return;
    };
    let (Some(text), node) = (at.value.as_str(), at.node) else {
        return;
    };
    let map = ScalarMap::for_scalar(input.text, node, text);
    if !pos.template
        && let Some(at) = text.find("${{")
    {
        let d = Diagnostic::new("AG211", "`${{ }}` in an expression field")
            .at(map.span(at, at + 3))
            .with_pointer(pos.ptr.clone())
            .with_help("this field is an AGX expression already: write it without `${{ }}`");
        out.diags.push(d);
        return;
    }
    let (expr, spans) = match (input.parse)(text, &map, pos.template) {
        Ok(x) => x,
        Err(errs) => {
            for e in errs {
                out.diags.push(e.with_pointer(pos.ptr.clone()));
            }
            return;
        }
    };
    let mut found = Vec::new();
    let before = out.diags.len();
    names::check(
        input.scopes,
        input.si,
        input.names,
        input.root,
        &pos.access,
        &expr,
        &spans,
        &pos.ptr,
        &mut out.diags,
        &mut found,
        &mut out.unknown,
    );
    out.reads
        .extend(found.into_iter().map(|r| (pos.access.anchor.clone(), r)));
    if out.diags.len() == before {
        let reads_self = names::chains(&expr).iter().any(|c| c.root == "self");
        let key = (node.span.file, node.span.start, pos.template);
        out.typed.push(Typed {
            pos,
            expr,
            spans,
            key,
            reads_self,
        });
    }
}

/// AG204 for what static types rule out: unknown functions, wrong arity, operands that cannot
/// work (ordering an `integer` output against a string), and conditions that are certainly not
/// booleans. Unknown names are AG203/AG206 already (names.rs).
fn type_check(
    pos: &Position,
    expr: &Expr,
    spans: &[Span],
    env: &TypeEnv,
    out: &mut Vec<Diagnostic>,
) {
    let lang = agc_runtime::expr::Lang::Agx;
    let (ty, errors) = crate::expr::check::check(expr, lang, env);
    for e in errors {
        if matches!(
            e.kind,
            TypeErrorKind::UnknownRoot | TypeErrorKind::UnknownField
        ) {
            continue;
        }
        let span = spans.get(e.node as usize).copied().unwrap_or_default();
        out.push(
            Diagnostic::new("AG204", e.message)
                .at(span)
                .with_pointer(pos.ptr.clone()),
        );
    }
    // `map.over` must be an array (SPEC §7.5): one whose declared type is not fails every
    // run (RT025), so it is refused here.
    if pos.ptr.ends_with("/map/over")
        && !ty.is_dyn()
        && !ty.kinds().contains(agc_runtime::value::Kind::List)
    {
        let span = spans.first().copied().unwrap_or_default();
        out.push(
            Diagnostic::new(
                "AG204",
                format!("`map.over` is {}, not an array", ty.describe(lang)),
            )
            .at(span)
            .with_pointer(pos.ptr.clone())
            .with_help(
                "a map runs its body once per element of an array; read an output declared \
`type: array` (or `file_set`), or split the text first, e.g. `split(x, \"\\n\")`",
            ),
        );
    }
    let condition = ["/when", "/condition", "/expr"]
        .iter()
        .any(|s| pos.ptr.ends_with(s));
    if condition && !pos.template && !matches!(ty, Type::Bool | Type::Dyn) {
        let span = spans.first().copied().unwrap_or_default();
        out.push(
            Diagnostic::new(
                "AG204",
                format!("this condition is {}, not a boolean", ty.describe(lang)),
            )
            .at(span)
            .with_pointer(pos.ptr.clone())
            .with_help("AGX has no truthiness: compare explicitly, e.g. `len(x) > 0`"),
        );
    }
}

/// AG904: a declared output that nothing in its scope reads. Reads are `nodes.X.outputs.Y`
/// and `self.outputs.Y` anywhere in the scope (inputs, guards, edges, criteria, graph outputs,
/// the owner's `collect`), a criterion's `output:` field (but `artifact_present`'s, a check
/// that the output is there), and a loop's `carry` source names.
/// Reads only the document, so it can run beside the checks that push to the checker. This
/// holds what it needs of a scope: the outputs read and the names carried.
struct Unread<'s> {
    read: crate::hash::HashSet<(&'s str, &'s str)>,
    carried: Vec<&'s str>,
}

impl<'s> Unread<'s> {
    fn new<'a: 's>(scopes: &[Scope<'a>], si: usize, reads: &'s [(Option<Str>, NodeRead)]) -> Self {
        let scope = &scopes[si];
        let mut read: crate::hash::HashSet<(&str, &str)> = reads
            .iter()
            .filter_map(|(_, r)| Some((r.target.as_str(), r.output.as_deref()?)))
            .collect();
        let mut carried: Vec<&str> = Vec::new();
        if let ScopeKind::Body { parent, owner } = &scope.kind
            && let Some(carry) = scopes[*parent]
                .node(owner)
                .and_then(|n| n.field("loop"))
                .and_then(|l| l.field("carry"))
                .and_then(Value::as_object)
        {
            carried.extend(carry.keys().map(Str::as_str));
        }
        for (id, node) in scope.nodes() {
            for c in node
                .field("success")
                .and_then(|s| s.field("criteria"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                // `artifact_present` only checks that the output is there: like the AGS
                // reference validators, agc does not count it as a read (AG904 stays).
                let presence = c.field("kind").and_then(Value::as_str) == Some("artifact_present");
                if let Some(o) = c.field("output").and_then(Value::as_str)
                    && !presence
                {
                    read.insert((id.as_str(), o));
                }
            }
        }
        Unread { read, carried }
    }

    /// AG904 on the outputs of `nodes` (of `scope`) that nothing reads, in order. Findings
    /// come node by node: each key's span is walked from its node's cursor rather than from
    /// the root (a 100k-node graph has 92k of them).
    fn outputs(
        &self,
        scope: &Scope<'_>,
        nodes: &[(&Str, &Map)],
        walker: &mut Walker<'_>,
    ) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for &(id, node) in nodes {
            for (name, _) in node
                .field("outputs")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if self.read.contains(&(id.as_str(), name.as_str()))
                    || self.carried.contains(&name.as_str())
                {
                    continue;
                }
                let ptr = format!(
                    "{}/outputs/{}",
                    scope.node_ptr(id),
                    crate::source::tree::escape_token(name)
                );
                let d =
                    Diagnostic::new("AG904", format!("output `{name}` of `{id}` is never read"))
                        .at(walker.key_span(&ptr))
                        .with_pointer(ptr)
                        .with_help(
                            "read it (an input `from`, a condition, a graph output) or remove it",
                        );
                out.push(d);
            }
        }
        out
    }
}

impl Checker<'_> {
    /// AGC110: a node id holding `-` that an expression of its scope reads (by a path, which
    /// AGX reads as a subtraction, or by `output("id", …)`), once per node, at its key.
    fn hyphenated_ids(&mut self, scope: &Scope<'_>, reads: &[(Option<Str>, NodeRead)]) {
        let mut seen: HashSet<&str> = HashSet::default();
        for (_, r) in reads {
            let id = r.target.as_str();
            if !id.contains('-') || !seen.insert(id) {
                continue;
            }
            let ptr = scope.node_ptr(id);
            let d = Diagnostic::new(
                "AGC110",
                format!("node id `{id}` holds `-`, which AGX reads as minus"),
            )
            .at(self.doc.key_span(&ptr))
            .with_pointer(ptr)
            .with_label(r.span, "read here")
            .with_help(format!(
                "rename it `{}` so that expressions can write `nodes.{}…`",
                id.replace('-', "_"),
                id.replace('-', "_")
            ));
            self.push(d);
        }
    }

    /// AG201 for every read of another node whose anchor is known.
    fn predecessor_rule(&mut self, scope: &Scope<'_>, reads: &[(Option<Str>, NodeRead)]) {
        let index = &scope.graph().index;
        let mut edges: Vec<(u32, u32)> = scope
            .graph()
            .edges
            .iter()
            .map(|e| (index[e.from] as u32, index[e.to] as u32))
            .collect();
        // A compensation runs after the node it undoes succeeded, in that node's scope: it
        // may read the node and everything before it.
        edges.extend(
            scope
                .compensations()
                .filter_map(|(n, c)| Some((*index.get(n)? as u32, *index.get(c)? as u32))),
        );
        let mut queries = Vec::new();
        let mut which = Vec::new();
        for (i, (anchor, read)) in reads.iter().enumerate() {
            let (Some(anchor), Some(&t)) = (anchor, index.get(read.target.as_str())) else {
                continue;
            };
            let Some(&a) = index.get(anchor.as_str()) else {
                continue;
            };
            if a == t {
                // A node may read itself where its outputs exist; elsewhere it has not run.
                if !read.own_ok {
                    self.own_read(scope, anchor, read);
                }
                continue;
            }
            queries.push((NodeId(a as u32), NodeId(t as u32)));
            which.push(i);
        }
        if queries.is_empty() {
            return;
        }
        // A cyclic scope is AG111 already; the rule is undefined there.
        let Some(answers) = are_predecessors_in(index.len(), &edges, &queries) else {
            return;
        };
        // For each failed read: does the reader come before the node it reads? Then a
        // dependency on it would close a cycle, and the help says so instead of proposing it.
        let failed: Vec<usize> = (0..answers.len()).filter(|&k| !answers[k]).collect();
        let reversed: Vec<(NodeId, NodeId)> = failed
            .iter()
            .map(|&k| (queries[k].1, queries[k].0))
            .collect();
        let against = are_predecessors_in(index.len(), &edges, &reversed)
            .unwrap_or_else(|| vec![false; reversed.len()]);
        for (&k, &against) in failed.iter().zip(&against) {
            let (anchor, read) = &reads[which[k]];
            let anchor = anchor.as_deref().unwrap_or_default();
            let what = match &read.output {
                Some(o) => format!("`nodes.{}.outputs.{o}`", read.target),
                None => format!("`nodes.{}`", read.target),
            };
            let d = Diagnostic::new(
                "AG201",
                format!(
                    "{what} is read by `{anchor}`, but `{}` is not guaranteed to run before it",
                    read.target
                ),
            )
            .at(read.span)
            .with_label(
                self.doc.key_span(&scope.node_ptr(&read.target)),
                "declared here",
            )
            .with_help(if against {
                format!(
                    "`{t}` runs after `{anchor}` (a path leads from `{anchor}` to `{t}`), so \
this read goes against the order, and a dependency on `{t}` would make a cycle: read the value \
in a node that runs after `{t}`",
                    t = read.target
                )
            } else {
                format!(
                    "add `depends_on: [{}]` to `{anchor}` (or an edge between them)",
                    read.target
                )
            });
            let fix = (!against)
                .then(|| {
                    let ptr = scope.node_ptr(anchor);
                    super::fixes::add_dependency(self.doc, self.text, &ptr, &read.target)
                })
                .flatten();
            let d = match fix {
                Some(f) => d.with_fix(f),
                None => d,
            };
            self.push(d);
        }
    }

    /// AG201 for a node reading itself (`nodes.<own id>`) where it has not run yet: its
    /// guard, inputs, prompts, `map.over`, `subgraph.params`.
    fn own_read(&mut self, scope: &Scope<'_>, id: &str, read: &NodeRead) {
        let what = match &read.output {
            Some(o) => format!("`nodes.{id}.outputs.{o}`"),
            None => format!("`nodes.{id}`"),
        };
        let d = Diagnostic::new(
            "AG201",
            format!("{what} is read by `{id}` itself, before `{id}` has run"),
        )
        .at(read.span)
        .with_label(self.doc.key_span(&scope.node_ptr(id)), "declared here")
        .with_help(
            "a node's own outputs and status exist once it ran: read them (as `self.outputs.<name>`) \
in success criteria, checkpoints after outputs or the failure ladder",
        );
        self.push(d);
    }
}

/// How a fragment is used: the `as`/`index_as` names of maps that use it, whether a loop
/// does, and the `collect` keys every such loop has (what `loop.previous` holds).
#[derive(Default)]
struct FragmentUse {
    map_vars: Vec<String>,
    in_loop: bool,
    previous: Option<Vec<String>>,
}

/// The `collect` keys of a loop block, sorted.
fn collect_keys(lp: &Value) -> Vec<String> {
    let mut keys: Vec<String> = lp
        .field("collect")
        .and_then(Value::as_object)
        .map(|c| c.keys().map(|k| k.to_string()).collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

/// For each fragment, how maps and loops use it.
fn fragment_uses(scopes: &[Scope<'_>]) -> crate::hash::HashMap<String, FragmentUse> {
    let mut out: crate::hash::HashMap<String, FragmentUse> = Default::default();
    for s in scopes {
        for (_, node) in s.nodes() {
            if let Some(name) = node
                .field("map")
                .and_then(|m| m.field("use"))
                .and_then(Value::as_str)
            {
                let e = out.entry(name.to_string()).or_default();
                let vars = map_vars(node.field("map"));
                if !e
                    .map_vars
                    .windows(2)
                    .step_by(2)
                    .any(|w| w == vars.as_slice())
                {
                    e.map_vars.extend(vars);
                }
            }
            if let Some(lp) = node.field("loop")
                && let Some(name) = lp.field("use").and_then(Value::as_str)
            {
                let e = out.entry(name.to_string()).or_default();
                let keys = collect_keys(lp);
                // Used by several loops: only what each of them collects is always there.
                e.previous = Some(match e.previous.take() {
                    None => keys,
                    Some(had) => had.into_iter().filter(|k| keys.contains(k)).collect(),
                });
                e.in_loop = true;
            }
        }
    }
    out
}

fn map_vars(map: Option<&Value>) -> Vec<String> {
    let Some(m) = map else { return Vec::new() };
    vec![
        m.field("as")
            .and_then(Value::as_str)
            .unwrap_or("item")
            .to_string(),
        m.field("index_as")
            .and_then(Value::as_str)
            .unwrap_or("index")
            .to_string(),
    ]
}

/// Declarations visible in scope `si`: params (own, else the graph's), and the map variables
/// or `loop` of this scope only: of the body itself (a map body binds `as`/`index_as`, a loop
/// body `loop`), or of the maps and loops that use this fragment.
///
/// Bodies are sealed (SPEC §16.2): a loop body nested inside a map body does not see the map's
/// element, nor a map body inside a loop body the outer `loop`; the value is passed in through
/// the inner body's params. This is the reference validator's reading too (AG203).
fn scope_names<'a>(
    scopes: &[Scope<'a>],
    si: usize,
    root: &'a Map,
    uses: &crate::hash::HashMap<String, FragmentUse>,
) -> ScopeNames<'a> {
    let own = scopes[si].obj.field("params").and_then(Value::as_object);
    let params = own
        .or_else(|| root.field("params").and_then(Value::as_object))
        .map(|p| p.keys().map(Str::as_str).collect())
        .unwrap_or_default();
    let mut names = ScopeNames {
        params,
        bare: Vec::new(),
        in_loop: false,
        previous: Vec::new(),
    };
    match &scopes[si].kind {
        ScopeKind::Root => {}
        ScopeKind::Fragment(name) => {
            if let Some(u) = uses.get(name) {
                names.bare.extend(u.map_vars.iter().cloned());
                names.in_loop |= u.in_loop;
                names.previous = u.previous.clone().unwrap_or_default();
            }
        }
        ScopeKind::Body { parent, owner } => {
            let node = scopes[*parent].node(owner);
            if scopes[si].ptr.ends_with("/map/body") {
                names
                    .bare
                    .extend(map_vars(node.and_then(|n| n.field("map"))));
            }
            if scopes[si].ptr.ends_with("/loop/body") {
                names.in_loop = true;
                names.previous = node
                    .and_then(|n| n.field("loop"))
                    .map(collect_keys)
                    .unwrap_or_default();
            }
        }
    }
    names
}

/// The node ids the expressions read as `nodes.<id>`; `None` when one uses `nodes` other than
/// through a dotted id (`nodes["x"]`, `len(nodes)`), which needs every node's type.
fn named_nodes(typed: &[Typed]) -> Option<HashSet<&str>> {
    let mut ids = HashSet::default();
    for t in typed {
        for chain in names::chains(&t.expr) {
            if chain.root == "nodes" {
                ids.insert(*chain.path.first()?);
            }
        }
    }
    Some(ids)
}

#[cfg(test)]
#[path = "first_pass_tests.rs"]
mod tests;
