//! The file-level import graph of one crate, read with `syn`.
//!
//! A file `A` points at a file `B` when `A` names an item of `B`: a `use` of it, or a path in
//! code or types (`crate::x::Y`, `super::f()`, `child::g()`, or a name brought in by `use`
//! followed by `::`). A path resolves to the deepest module it walks through, so
//! `crate::front::ags::Unit` points at the file of `front::ags` (where `Unit` is defined or
//! re-exported). Declaring a child with `mod child;` is not a use of it. Paths inside macro
//! invocations are read where the macro's body parses as comma-separated expressions
//! (`format!`, `assert_eq!`, `vec!`, ...).
//!
//! This is an approximation of name resolution, good enough to draw the arrows a reader
//! follows: a `use` of a module that re-exports an item points at the re-exporting file, and
//! names that come from glob imports are not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::Visit;

/// A module path from the crate root, without `crate`.
type ModPath = Vec<String>;

/// One crate's modules and the arrows between its files.
pub struct Crate {
    /// Every file of the crate, relative to the source root.
    pub files: Vec<PathBuf>,
    /// `edges[a]` = the files `a` uses, each with one path that shows why.
    pub edges: BTreeMap<usize, BTreeMap<usize, String>>,
}

struct Module {
    /// The file that holds the module (an inline module's is its parent's).
    file: usize,
}

/// Reads the crate whose root file is `root/lib.rs`.
pub fn read_crate(root: &Path) -> Crate {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut modules: BTreeMap<ModPath, Module> = BTreeMap::new();
    let mut parsed: Vec<syn::File> = Vec::new();
    let mut file_module: Vec<ModPath> = Vec::new();
    // Breadth-first over `mod` declarations, iteratively.
    let mut queue: Vec<(ModPath, PathBuf, PathBuf)> =
        vec![(Vec::new(), root.join("lib.rs"), root.to_path_buf())];
    while let Some((path, file, child_dir)) = queue.pop() {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let ast =
            syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()));
        let index = files.len();
        files.push(file.strip_prefix(root).unwrap().to_path_buf());
        let file_dir = file.parent().unwrap().to_path_buf();
        modules.insert(path.clone(), Module { file: index });
        file_module.push(path.clone());
        let mut stack = vec![(path, child_dir, &ast.items)];
        while let Some((here, dir, items)) = stack.pop() {
            for item in items {
                let syn::Item::Mod(m) = item else { continue };
                let mut child = here.clone();
                child.push(name(&m.ident));
                let name = name(&m.ident);
                let explicit = path_attr(&m.attrs);
                match &m.content {
                    Some((_, inner)) => {
                        modules.insert(child.clone(), Module { file: index });
                        stack.push((child, dir.join(&name), inner));
                    }
                    None => {
                        let (child_file, child_dir) = match explicit {
                            Some(p) => {
                                let f = file_dir.join(p);
                                let d = f.parent().unwrap().join(&name);
                                (f, d)
                            }
                            None if dir.join(format!("{name}.rs")).exists() => {
                                (dir.join(format!("{name}.rs")), dir.join(&name))
                            }
                            None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
                        };
                        queue.push((child, child_file, child_dir));
                    }
                }
            }
        }
        parsed.push(ast);
    }
    // Pass 1: what each module brings in with `use` at module level (its re-exports among
    // them), so that pass 2 can follow `crate::m::X` to the file that defines `X`.
    let none = BTreeMap::new();
    let mut aliases = BTreeMap::new();
    for (index, ast) in parsed.iter().enumerate() {
        let mut reader = Reader::new(&modules, &none, file_module[index].clone());
        reader.visit_file(ast);
        aliases.extend(reader.module_uses);
    }
    let mut edges: BTreeMap<usize, BTreeMap<usize, String>> = BTreeMap::new();
    for (index, ast) in parsed.iter().enumerate() {
        let mut reader = Reader::new(&modules, &aliases, file_module[index].clone());
        reader.visit_file(ast);
        for (target, why) in reader.found {
            if target != index {
                edges.entry(index).or_default().entry(target).or_insert(why);
            }
        }
    }
    Crate { files, edges }
}

/// An identifier as written without `r#`.
fn name(ident: &syn::Ident) -> String {
    use syn::ext::IdentExt;
    ident.unraw().to_string()
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        if !a.path().is_ident("path") {
            return None;
        }
        let syn::Meta::NameValue(nv) = &a.meta else {
            return None;
        };
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}

/// Module -> (name -> the full path it stands for), from `use` items at module level.
type Aliases = BTreeMap<ModPath, BTreeMap<String, ModPath>>;

struct Reader<'a> {
    modules: &'a BTreeMap<ModPath, Module>,
    /// Pass 1's answer (empty during pass 1).
    aliases: &'a Aliases,
    /// Pass 1's question: this file's module-level uses.
    module_uses: Aliases,
    /// How many blocks (function bodies) we are inside: their `use`s are not re-exports.
    blocks: usize,
    here: ModPath,
    /// Names brought in by `use`, per open module scope: name -> full path.
    imports: Vec<BTreeMap<String, ModPath>>,
    found: BTreeMap<usize, String>,
}

impl<'a> Reader<'a> {
    fn new(modules: &'a BTreeMap<ModPath, Module>, aliases: &'a Aliases, here: ModPath) -> Self {
        Reader {
            modules,
            aliases,
            module_uses: BTreeMap::new(),
            blocks: 0,
            here,
            imports: vec![BTreeMap::new()],
            found: BTreeMap::new(),
        }
    }

    /// The full path of `segments` read in the current module, if it names something of this
    /// crate.
    fn absolute(&self, segments: &[String]) -> Option<ModPath> {
        let first = segments.first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.here.clone(),
            "super" => {
                let mut b = self.here.clone();
                b.pop();
                b
            }
            name => {
                let mut child = self.here.clone();
                child.push(name.to_string());
                if self.modules.contains_key(&child) {
                    child.pop();
                    let mut full = child;
                    full.extend(segments.iter().cloned());
                    return Some(full);
                }
                let imported = self.imports.iter().rev().find_map(|m| m.get(name))?;
                let mut full = imported.clone();
                full.extend(segments[1..].iter().cloned());
                return Some(full);
            }
        };
        let mut rest = &segments[1..];
        while rest.first().map(String::as_str) == Some("super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn record(&mut self, full: &[String]) {
        let mut full = full.to_vec();
        let mut depth = 0;
        // Follow re-exports (bounded: a `use` may name itself through a glob or a typo).
        for _ in 0..16 {
            depth = 0;
            while depth < full.len() && self.modules.contains_key(&full[..=depth].to_vec()) {
                depth += 1;
            }
            let alias = full.get(depth).and_then(|name| {
                self.aliases
                    .get(&full[..depth].to_vec())
                    .and_then(|uses| uses.get(name))
            });
            match alias {
                Some(target) if target[..] != full[..=depth] => {
                    let mut next = target.clone();
                    next.extend(full[depth + 1..].iter().cloned());
                    full = next;
                }
                _ => break,
            }
        }
        let target = &full[..depth];
        if let Some(m) = self.modules.get(&target.to_vec()) {
            let shown = if full.is_empty() {
                "crate".to_string()
            } else {
                format!("crate::{}", full.join("::"))
            };
            self.found.entry(m.file).or_insert(shown);
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(name(&p.ident));
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &name(&n.ident), None),
            syn::UseTree::Rename(r) => {
                self.use_leaf(prefix, &name(&r.ident), Some(name(&r.rename)))
            }
            syn::UseTree::Glob(_) => {
                if let Some(full) = self.absolute(prefix) {
                    self.record(&full);
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], name: &str, rename: Option<String>) {
        let mut segments = prefix.to_vec();
        if name != "self" {
            segments.push(name.to_string());
        }
        let Some(full) = self.absolute(&segments) else {
            return;
        };
        self.record(&full);
        let alias = rename.unwrap_or_else(|| segments.last().cloned().unwrap_or_default());
        if self.blocks == 0 {
            self.module_uses
                .entry(self.here.clone())
                .or_default()
                .insert(alias.clone(), full.clone());
        }
        self.imports.last_mut().unwrap().insert(alias, full);
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.here.push(name(&m.ident));
            self.imports.push(BTreeMap::new());
            syn::visit::visit_item_mod(self, m);
            self.imports.pop();
            self.here.pop();
        }
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.blocks += 1;
        syn::visit::visit_block(self, b);
        self.blocks -= 1;
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    /// `pub(in crate::x)` names an ancestor that may see an item: a visibility bound, not a
    /// use of that module.
    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {}

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments: Vec<String> = p.segments.iter().map(|s| name(&s.ident)).collect();
            if let Some(full) = self.absolute(&segments) {
                self.record(&full);
            }
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = mac.parse_body_with(parser) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// The import circles: strongly connected sets of more than one file, each sorted, in a stable
/// order.
pub fn circles(krate: &Crate) -> Vec<BTreeSet<PathBuf>> {
    let mut graph = petgraph::graph::DiGraph::<usize, ()>::new();
    let nodes: Vec<_> = (0..krate.files.len()).map(|i| graph.add_node(i)).collect();
    for (from, targets) in &krate.edges {
        for to in targets.keys() {
            graph.add_edge(nodes[*from], nodes[*to], ());
        }
    }
    let mut out: Vec<BTreeSet<PathBuf>> = petgraph::algo::tarjan_scc(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.iter().map(|n| krate.files[graph[*n]].clone()).collect())
        .collect();
    out.sort();
    out
}
