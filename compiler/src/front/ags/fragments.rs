//! Fragment use: AG132 (`use` naming no fragment) and AG131 (recursive use, direct or through
//! other fragments, via `loop.use`, `map.use` and `subgraph.use`, including uses inside bodies).

use super::checker::Checker;
use super::scope::{Scope, ScopeKind};
use crate::hash::HashMap;
use crate::source::Field;
use crate::source::Value;

/// One `use:` site.
struct Use {
    /// The fragment containing the site (None: root graph).
    from: Option<String>,
    to: String,
    ptr: String,
}

impl Checker<'_> {
    pub(super) fn check_fragments(&mut self, scopes: &[Scope<'_>]) {
        let fragments: Vec<&str> = scopes
            .iter()
            .filter_map(|s| match &s.kind {
                ScopeKind::Fragment(n) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        // The fragment each scope belongs to (bodies inherit their parent's).
        let mut owner: Vec<Option<String>> = Vec::with_capacity(scopes.len());
        for s in scopes {
            let o = match &s.kind {
                ScopeKind::Root => None,
                ScopeKind::Fragment(n) => Some(n.clone()),
                ScopeKind::Body { parent, .. } => owner[*parent].clone(),
            };
            owner.push(o);
        }
        let index: HashMap<&str, usize> =
            fragments.iter().enumerate().map(|(i, f)| (*f, i)).collect();
        let mut uses = Vec::new();
        for (si, s) in scopes.iter().enumerate() {
            for (id, node) in s.nodes() {
                for block in ["loop", "map", "subgraph"] {
                    if let Some(name) = node
                        .field(block)
                        .and_then(|b| b.field("use"))
                        .and_then(Value::as_str)
                    {
                        let ptr = format!("{}/{block}/use", s.node_ptr(id));
                        if index.contains_key(name) {
                            uses.push(Use {
                                from: owner[si].clone(),
                                to: name.to_string(),
                                ptr,
                            });
                        } else {
                            let help = self
                                .suggestions
                                .closest(name, fragments.iter().copied())
                                .map(|c| format!("did you mean `{c}`?"))
                                .or_else(|| Some("declare the fragment under `subgraphs`".into()));
                            self.error(
                                "AG132",
                                &ptr,
                                format!(
                                    "`use` names `{name}`, which is not a fragment in `subgraphs`"
                                ),
                                help,
                            );
                        }
                    }
                }
            }
        }
        // A use is recursive when it stays inside one cycle of the fragments' uses (a lone
        // fragment only through its use of itself). The uses are looked at once and each
        // cycle named once, so many fragments stay linear.
        let (sites, pairs): (Vec<&Use>, Vec<(usize, usize)>) = uses
            .iter()
            .filter_map(|u| {
                let from = u.from.as_deref()?;
                Some((u, (index[from], index[u.to.as_str()])))
            })
            .unzip();
        let (members, on_cycle) = crate::analysis::cycles::edges_on_cycles(fragments.len(), &pairs);
        let mut names_of: HashMap<usize, String> = HashMap::default();
        let mut reported = Vec::new();
        for (u, c) in sites.into_iter().zip(on_cycle) {
            let Some(c) = c else { continue };
            let names = names_of.entry(c).or_insert_with(|| {
                let mut names: Vec<&str> = members[c].iter().map(|i| fragments[*i]).collect();
                names.sort_unstable();
                names.join(", ")
            });
            reported.push((u.ptr.clone(), names.clone(), u.to.clone()));
        }
        reported.sort();
        for (ptr, names, to) in reported {
            let msg = if names == to {
                format!("fragment `{to}` uses itself")
            } else {
                format!("recursive fragment use: `{to}` is part of the cycle {{{names}}}")
            };
            self.error(
                "AG131",
                &ptr,
                msg,
                Some("subgraphs are expanded statically and must terminate".into()),
            );
        }
    }
}
