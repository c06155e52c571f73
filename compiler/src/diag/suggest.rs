//! "Did you mean …?": the known name nearest a misspelt one, for every front end's help.
//!
//! One measure everywhere: the optimal-string-alignment distance (insert, delete, substitute,
//! swap two neighbours: `plna` is one edit from `plan`) from `strsim`, ignoring case, over at
//! most [`MAX_CHARS`] characters of each name so that a huge key costs bounded work.

/// Characters of each name that are compared.
pub const MAX_CHARS: usize = 64;

/// The edit distance between two names (see the module docs).
pub fn distance(a: &str, b: &str) -> usize {
    let cut = |s: &str| -> String {
        s.chars()
            .take(MAX_CHARS)
            .flat_map(char::to_lowercase)
            .collect()
    };
    strsim::osa_distance(&cut(a), &cut(b))
}

/// The candidate nearest `word` if it is likely a typo of it: at most a third of the word's
/// length away, one edit at least. Ties go to the name that sorts first, so the answer does
/// not depend on the candidates' order.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = word.chars().count();
    let limit = (len / 3).max(1);
    candidates
        .into_iter()
        // A length difference is a lower bound of the distance: most names stop here.
        .filter(|c| c.chars().count().abs_diff(len) <= limit)
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// Names compared for one document's suggestions among its own names (node ids, params,
/// outputs, inputs, fragments), at most.
///
/// A document whose every reference misses (node ids renamed, references not) asks for a
/// suggestion per reference among all its ids: quadratic, 20k nodes took three minutes. Past
/// this many comparisons (about a second) the remaining unknown ids get no suggestion. The
/// suggestions are made in document order, so which get one does not depend on threads.
pub const ID_BUDGET: usize = 4_000_000;

/// A budget of comparisons for [`closest`] over a document's own names, one per document
/// (the schema's and jq's fixed vocabularies need none).
#[derive(Debug)]
pub struct Budget {
    left: std::cell::Cell<usize>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(ID_BUDGET)
    }
}

impl Budget {
    pub fn new(comparisons: usize) -> Budget {
        Budget {
            left: std::cell::Cell::new(comparisons),
        }
    }

    /// [`closest`], counting each candidate against the budget; `None` once it is spent
    /// (also for a search it would not finish).
    pub fn closest<'a>(
        &self,
        word: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Option<&'a str> {
        let mut spent = false;
        let counted = candidates.into_iter().take_while(|_| {
            let left = self.left.get();
            spent = left == 0;
            self.left.set(left.saturating_sub(1));
            !spent
        });
        let found = closest(word, counted);
        if spent { None } else { found }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_names_only() {
        let names = ["depends_on", "description", "type"];
        assert_eq!(closest("depend_on", names), Some("depends_on"));
        assert_eq!(closest("tpye", names), Some("type"));
        assert_eq!(closest("colour", names), None);
    }

    #[test]
    fn a_swap_of_neighbours_is_one_edit_and_case_is_ignored() {
        assert_eq!(distance("plna", "plan"), 1);
        assert_eq!(distance("fecth", "fetch"), 1);
        assert_eq!(distance("Fetch", "fetch"), 0);
        assert_eq!(closest("plna", ["plan", "plot"]), Some("plan"));
        // Short names get one edit, not more.
        assert_eq!(closest("ab", ["xy"]), None);
    }

    #[test]
    fn ties_do_not_depend_on_the_order() {
        assert_eq!(closest("cat", ["bat", "hat"]), Some("bat"));
        assert_eq!(closest("cat", ["hat", "bat"]), Some("bat"));
    }

    #[test]
    fn a_spent_budget_suggests_nothing_more() {
        let ids: Vec<String> = (0..10).map(|i| format!("node{i}")).collect();
        let budget = Budget::new(25);
        let ask = |w: &str| budget.closest(w, ids.iter().map(String::as_str));
        assert_eq!(ask("nod3"), Some("node3")); // 10 compared
        assert_eq!(ask("ndoe4"), Some("node4")); // 20
        assert_eq!(ask("node55"), None); // runs out within the search: no half answer
        assert_eq!(ask("nod1"), None);
    }

    #[test]
    fn huge_names_are_compared_on_their_first_characters() {
        let a = "x".repeat(10_000);
        let b = format!("{}y", "x".repeat(9_999));
        assert_eq!(distance(&a, &b), 0);
    }
}
