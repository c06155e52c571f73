//! `AGC225`, read order: a node reads `nodes.<id>.output` of a node that is not upstream of it
//! (no edge path leads from the producer to the reader), so the output may not exist yet when
//! the reader runs. upstream does not check this.
//!
//! Every read is a question of reachability, and a Loop may hold 100k of them. Answered in
//! three ways, all exact on a graph without cycles:
//!
//! 1. Each node gets a topological rank (Kahn's order); every ancestor of a ranked node is
//!    ranked lower, so a producer ranked at or above its reader is not upstream, at once.
//! 2. Otherwise a direct edge settles it (a binary search), or a short backward search from
//!    the reader, which skips nodes ranked below the producer (none of them can lead back to
//!    it), settles the usual read of a node a layer or two up in a few steps. It gives up
//!    after looking at [`QUICK`] edges.
//! 3. The reads it gave up on are answered together: their producers, 64 at a time, each own a
//!    bit that one pass in topological order carries along every edge, from the lowest
//!    producer's rank to the highest reader's. A read is upstream when its bit reached the
//!    reader. Many nodes reading one early node (a chain of 100k all reading the first)
//!    cost one pass, not a search each.
//!
//! A reader on a cycle or downstream of one has no rank (the graph is an error then, `cycle`):
//! its read is a plain backward search looking at most at [`CAP`] edges, all such searches
//! together at most [`BUDGET`]; past either the read is taken as upstream, without a warning.

use super::lint::Linter;

/// Edges a ranked read's own search may look at before it joins the batched pass.
const QUICK: usize = 64;
/// Edges one search of an unranked read may look at.
const CAP: usize = 20_000;
/// Edges all searches of unranked reads may look at together.
const BUDGET: usize = 20_000_000;

/// One scope's graph: edges both ways, ranks, and the topological order.
struct Graph {
    out: Vec<Vec<usize>>,
    inc: Vec<Vec<usize>>,
    /// Each node's place in the topological order, `None` on or below a cycle.
    rank: Vec<Option<u32>>,
    /// The ranked nodes, by rank.
    order: Vec<usize>,
    /// The search that last visited each node (a per-search mark, no set to clear).
    mark: Vec<u32>,
    search: u32,
}

impl Graph {
    fn new(out: Vec<Vec<usize>>, mut inc: Vec<Vec<usize>>) -> Graph {
        let n = out.len();
        // Sorted for the direct-edge test of `search`.
        for list in &mut inc {
            list.sort_unstable();
        }
        let mut missing: Vec<usize> = inc.iter().map(Vec::len).collect();
        let mut rank = vec![None; n];
        let mut order = Vec::with_capacity(n);
        let mut queue: std::collections::VecDeque<usize> =
            (0..n).filter(|&v| missing[v] == 0).collect();
        while let Some(v) = queue.pop_front() {
            rank[v] = Some(order.len() as u32);
            order.push(v);
            for &w in &out[v] {
                missing[w] -= 1;
                if missing[w] == 0 {
                    queue.push_back(w);
                }
            }
        }
        Graph {
            out,
            inc,
            rank,
            order,
            mark: vec![0; n],
            search: 0,
        }
    }

    /// Whether `target` is upstream of `reader`: a direct edge (a binary search in the sorted
    /// incoming list), else a depth-first backward search skipping nodes ranked below `floor`;
    /// `None` when it would look at more than `limit` edges. Adds the edges looked at to
    /// `spent`. The search reads each incoming list in place, as far as it gets: a node of
    /// 100k incoming edges read 100k times costs neither a copy of its list per read nor a
    /// pass over it.
    fn search(
        &mut self,
        reader: usize,
        target: usize,
        floor: Option<u32>,
        limit: usize,
        spent: &mut usize,
    ) -> Option<bool> {
        if self.inc[reader].binary_search(&target).is_ok() {
            return Some(true);
        }
        self.search += 1;
        self.mark[reader] = self.search;
        // Each entry: a node and how much of its incoming list has been read.
        let mut stack: Vec<(usize, usize)> = vec![(reader, 0)];
        let mut steps = 0usize;
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            let Some(&w) = self.inc[v].get(i) else {
                stack.pop();
                continue;
            };
            top.1 += 1;
            if w == target {
                return Some(true);
            }
            if steps >= limit {
                return None;
            }
            steps += 1;
            *spent += 1;
            if self.mark[w] == self.search {
                continue;
            }
            if let (Some(f), Some(r)) = (floor, self.rank[w])
                && r < f
            {
                continue;
            }
            self.mark[w] = self.search;
            stack.push((w, 0));
        }
        Some(false)
    }

    /// Answers ranked reads `(reader, target)` together (see the module docs, 3).
    fn batch(&self, reads: &[(usize, usize)]) -> Vec<bool> {
        let mut answers = vec![false; reads.len()];
        // The reads grouped by producer, so that 64 producers' reads lie side by side.
        let mut by_target: Vec<usize> = (0..reads.len()).collect();
        by_target.sort_unstable_by_key(|&k| reads[k].1);
        let groups: Vec<&[usize]> = by_target
            .chunk_by(|&a, &b| reads[a].1 == reads[b].1)
            .collect();
        let rank = |v: usize| self.rank[v].map_or(0, |r| r as usize);
        let mut mask = vec![0u64; self.out.len()];
        for chunk in groups.chunks(64) {
            let lo = chunk.iter().map(|g| rank(reads[g[0]].1)).min().unwrap_or(0);
            let hi = chunk
                .iter()
                .flat_map(|g| g.iter().map(|&k| rank(reads[k].0)))
                .max()
                .unwrap_or(0)
                .min(self.order.len().saturating_sub(1));
            for (bit, g) in chunk.iter().enumerate() {
                mask[reads[g[0]].1] |= 1 << bit;
            }
            let span = self.order.get(lo..=hi).unwrap_or(&[]);
            for &v in span {
                let m = mask[v];
                if m != 0 {
                    for &w in &self.out[v] {
                        mask[w] |= m;
                    }
                }
            }
            for (bit, g) in chunk.iter().enumerate() {
                for &k in g.iter() {
                    answers[k] = mask[reads[k].0] & (1 << bit) != 0;
                }
            }
            // Clear what this pass touched: the span and its edges' ends.
            for &v in span {
                mask[v] = 0;
                for &w in &self.out[v] {
                    mask[w] = 0;
                }
            }
        }
        answers
    }
}

impl Linter<'_> {
    /// Warns `AGC225` on every read whose producer is not upstream of its reader (each
    /// field and producer once).
    pub fn read_order(&mut self) {
        let reads = std::mem::take(&mut self.reads);
        let mut graphs: Vec<Option<Graph>> = (0..self.scopes.len()).map(|_| None).collect();
        let mut upstream = vec![true; reads.len()];
        // Per scope, the ranked reads left to the batch: (read, reader, target).
        let mut pending: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); self.scopes.len()];
        let mut spent = 0usize;
        for (k, (si, ni, _, target)) in reads.iter().enumerate() {
            let scope = &self.scopes[*si];
            let Some(&ti) = scope.index.get(target.as_str()) else {
                continue;
            };
            let g = graphs[*si].get_or_insert_with(|| {
                let (out, inc) = scope.adjacency();
                Graph::new(out, inc)
            });
            upstream[k] = match (g.rank[*ni], g.rank[ti]) {
                (Some(r), Some(t)) if t >= r => false,
                (Some(_), Some(t)) => match g.search(*ni, ti, Some(t), QUICK, &mut 0) {
                    Some(found) => found,
                    None => {
                        pending[*si].push((k, *ni, ti));
                        continue;
                    }
                },
                _ => {
                    let limit = CAP.min(BUDGET.saturating_sub(spent));
                    g.search(*ni, ti, None, limit, &mut spent).unwrap_or(true)
                }
            };
        }
        for (si, list) in pending.iter().enumerate() {
            if let (Some(g), false) = (&graphs[si], list.is_empty()) {
                let pairs: Vec<(usize, usize)> = list.iter().map(|&(_, r, t)| (r, t)).collect();
                for (&(k, _, _), found) in list.iter().zip(g.batch(&pairs)) {
                    upstream[k] = found;
                }
            }
        }
        let mut warned = std::collections::HashSet::new();
        for (k, (si, ni, ptr, target)) in reads.iter().enumerate() {
            if upstream[k] || !warned.insert((ptr.clone(), target.clone())) {
                continue;
            }
            let reader = self.scopes[*si].nodes[*ni].id;
            self.warn(
                "AGC225",
                ptr,
                format!(
                    "`{reader}` reads the output of `{target}`, which is not upstream of it: \
the output may not exist yet when `{reader}` runs"
                ),
            )
            .help = Some(format!("add an edge path from `{target}` to `{reader}`"));
        }
        self.reads = reads;
    }
}

#[cfg(test)]
mod tests {
    use crate::check::check_test_text;

    /// The AGC225 warnings of a Loop of run-agent nodes `(id, nodes it reads)` and edges, as
    /// `reader<-producer` pairs.
    fn unordered_reads(nodes: &[(&str, &[&str])], edges: &[(&str, &str)]) -> Vec<String> {
        let mut text = String::from(
            "apiVersion: agh.loop/v1\nkind: Loop\nmeta: { name: t }\ninputs:\n  plan: { type: string, required: true }\n\
             contract: { goal: g, terminal_states: [done, failed] }\ngraph:\n  nodes:\n",
        );
        for (id, reads) in nodes {
            let prompt: Vec<String> = reads
                .iter()
                .map(|r| format!("{{{{ .nodes.{r}.output.status }}}}"))
                .collect();
            text += &format!(
                "    - id: {id}\n      class: action\n      kind: run-agent\n      params:\n        agent: a\n        prompt: \"Go {} {{{{ .inputs.plan }}}}\"\n        output_schema: {{ type: object, properties: {{ status: {{ type: string }} }} }}\n",
                prompt.join(" ")
            );
        }
        text += "  edges:\n";
        for (from, to) in edges {
            text += &format!("    - {{ from: {from}, to: {to} }}\n");
        }
        let diags = check_test_text("t.loop.yaml", text);
        diags
            .iter()
            .filter(|d| d.code == "AGC225")
            .map(|d| {
                let q: Vec<&str> = d.message.split('`').collect();
                format!("{}<-{}", q[1], q[3])
            })
            .collect()
    }

    /// Producers two layers up are found past the pruning by rank; siblings, downstream nodes
    /// and the reader itself are not upstream.
    #[test]
    fn reads_of_upstream_nodes_pass_and_others_warn() {
        let nodes: &[(&str, &[&str])] = &[
            ("start", &[]),
            ("a", &[]),
            ("b", &["a"]),
            ("c", &["a", "b", "e"]),
            ("d", &["a", "b", "c", "start"]),
            ("e", &["c", "e"]),
        ];
        let edges = [
            ("start", "a"),
            ("start", "b"),
            ("a", "c"),
            ("b", "c"),
            ("c", "d"),
            ("start", "e"),
        ];
        assert_eq!(
            unordered_reads(nodes, &edges),
            ["b<-a", "c<-e", "e<-c", "e<-e"]
        );
    }

    /// Reads too far up for the quick search go to the batched pass: a chain of 300 where
    /// node `i` reads node `i - 100` (200 producers, four batches of 64 bits) and every node
    /// reads the first, all upstream; a side node off the start is upstream of nothing.
    #[test]
    fn far_reads_are_answered_by_the_batched_pass() {
        let ids: Vec<String> = (0..300).map(|i| format!("n{i}")).collect();
        let mut reads: Vec<Vec<&str>> = vec![Vec::new(); 301];
        for i in 1..300 {
            reads[i].push("n0");
            if i >= 100 {
                reads[i].push(&ids[i - 100]);
            }
        }
        reads[299].push("side");
        reads[300].push("n150");
        let mut nodes: Vec<(&str, &[&str])> = ids
            .iter()
            .zip(&reads)
            .map(|(id, r)| (id.as_str(), r.as_slice()))
            .collect();
        nodes.push(("side", &reads[300]));
        let mut edges: Vec<(&str, &str)> = (1..300)
            .map(|i| (ids[i - 1].as_str(), ids[i].as_str()))
            .collect();
        edges.push(("n0", "side"));
        assert_eq!(
            unordered_reads(&nodes, &edges),
            ["n299<-side", "side<-n150"]
        );
    }

    /// A node fed by 300 others reads each of them (direct edges), the start two layers up
    /// (past the quick search's edges, so the batched pass decides), and a side node that is
    /// not upstream; the side node reads the wide one.
    #[test]
    fn a_wide_reader_reads_its_producers_exactly() {
        let ids: Vec<String> = (0..300).map(|i| format!("a{i}")).collect();
        let mut sink_reads: Vec<&str> = ids.iter().map(String::as_str).collect();
        sink_reads.extend(["start", "side"]);
        let mut nodes: Vec<(&str, &[&str])> = vec![("start", &[]), ("side", &["sink"])];
        nodes.extend(ids.iter().map(|id| (id.as_str(), &[] as &[&str])));
        nodes.push(("sink", &sink_reads));
        let mut edges: Vec<(&str, &str)> = vec![("start", "side")];
        for id in &ids {
            edges.push(("start", id.as_str()));
            edges.push((id.as_str(), "sink"));
        }
        assert_eq!(
            unordered_reads(&nodes, &edges),
            ["side<-sink", "sink<-side"]
        );
    }

    /// On a cycle there are no ranks: the plain search decides.
    #[test]
    fn reads_on_a_cycle_are_searched() {
        let nodes: &[(&str, &[&str])] = &[("x", &["y"]), ("y", &["x"]), ("z", &["x"])];
        let edges = [("x", "y"), ("y", "x")];
        assert_eq!(unordered_reads(nodes, &edges), ["z<-x"]);
    }
}
