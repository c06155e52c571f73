//! The split load checked against the one-stream load on any text, whatever its size: the
//! hook of the `split` fuzz target and of the split's own tests. [`plan`](super::split::plan) only
//! cuts files of a MiB or more, which no fuzzer input reaches; here every cut it could choose
//! is tried on small inputs too.

use super::loader::{Cut, Loaded, load_with};
use super::split::{Lines, cut_at, load, target};
use crate::source::{FileId, Limits, SourceFile};

/// Every cut of the collection the split would cut in `text` (its body from `offset`), at most
/// `most` of them spread evenly, loaded split: `Ok((tried, held))` when every split load that
/// held gives what one stream gives (document, span arena, diagnostics); `Err` names the first
/// cut that differs and where. A split that does not hold is no error: the caller loads in one
/// stream then.
#[doc(hidden)]
pub fn split_agrees(
    text: &str,
    offset: usize,
    limits: Limits,
    most: usize,
) -> Result<(usize, usize), String> {
    if offset > text.len() || !text.is_char_boundary(offset) {
        return Ok((0, 0));
    }
    let file = SourceFile::new("t.yaml", text);
    let lines = Lines {
        b: text.as_bytes(),
        starts: file.line_starts(),
        offset,
    };
    let Some(t) = target(&lines) else {
        return Ok((0, 0));
    };
    let cuts: Vec<Cut> = (t.lo + 1..t.hi)
        .filter_map(|i| cut_at(&lines, &t, i))
        .collect();
    let step = cuts.len().div_ceil(most.max(1)).max(1);
    let one = printed(load_with(FileId(0), text, offset, limits, false));
    let (mut tried, mut held) = (0, 0);
    for cut in cuts.iter().step_by(step) {
        tried += 1;
        let Some(l) = load(FileId(0), text, offset, limits, *cut) else {
            continue;
        };
        held += 1;
        let two = printed(l);
        if two != one {
            let at = one.lines().zip(two.lines()).position(|(a, b)| a != b);
            let line = |s: &str| {
                at.and_then(|i| s.lines().nth(i))
                    .map(|l| l.chars().take(300).collect::<String>())
            };
            let middle = text.get(cut.split..cut.end.min(cut.split + 60));
            return Err(format!(
                "cut {cut:?} (middle {middle:?}) differs at line {at:?}:\n  one stream: {:?}\n  split:      {:?}",
                line(&one),
                line(&two),
            ));
        }
    }
    Ok((tried, held))
}

/// A load's result printed in full: diagnostics, value, every span node (depth first). (The
/// key tables' hashes are per process, so they are compared through lookups, by the other
/// loader tests, not printed.)
pub(in crate::source::yaml) fn printed(l: Loaded) -> String {
    let mut out = format!("{:?}\n", l.diags);
    if let Some(doc) = &l.doc {
        out.push_str(&format!("Some(Document) {:?}\n", doc.value));
        let mut stack = vec![doc.spans];
        while let Some(node) = stack.pop() {
            out.push_str(&format!("{node:?}\n"));
            stack.extend(doc.children(&node).rev());
        }
    } else {
        out.push_str("doc: None");
    }
    out
}
