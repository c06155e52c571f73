//! Mechanical fixes the AGS checks' help names ([`crate::diag::Fix`]): here, the entry a
//! missing `depends_on` needs, written in the style the node already uses (a flow list, a
//! block list, or a new `depends_on: [x]` line).

use crate::diag::Fix;
use crate::source::{Document, Span};

/// The insertion that adds `target` to the `depends_on` of the node at `node_ptr`.
pub fn add_dependency(doc: &Document, text: &str, node_ptr: &str, target: &str) -> Option<Fix> {
    let file = doc.file;
    let title = format!("add `{target}` to `depends_on`");
    let insert = |at: usize, t: String| Fix::Insert {
        at: Span::new(file, at, at),
        text: t,
        title: title.clone(),
    };
    let byte = |i: u32| text.as_bytes().get(i as usize).copied();
    if let Some(deps) = doc.node(&format!("{node_ptr}/depends_on")) {
        let flow = byte(deps.span.start) == Some(b'[');
        return match (doc.children(&deps).last(), flow) {
            (Some(last), true) => Some(insert(last.span.end as usize, format!(", {target}"))),
            (None, true) => Some(insert(deps.span.start as usize + 1, target.to_string())),
            (Some(last), false) => {
                let line = text[..last.span.start as usize]
                    .rfind('\n')
                    .map_or(0, |i| i + 1);
                let lead = &text[line..last.span.start as usize];
                let indent: String = lead
                    .chars()
                    .map(|c| if c == '-' { '-' } else { ' ' })
                    .collect();
                Some(insert(
                    last.span.end as usize,
                    format!("\n{indent}{target}"),
                ))
            }
            (None, false) => None,
        };
    }
    let node = doc.node(node_ptr)?;
    let first = doc.children(&node).next();
    if byte(node.span.start) == Some(b'{') {
        return Some(match first.and_then(|f| f.key()) {
            Some(k) => insert(k.start as usize, format!("depends_on: [{target}], ")),
            None => insert(
                node.span.start as usize + 1,
                format!("depends_on: [{target}]"),
            ),
        });
    }
    let key = first?.key()?;
    let line = text[..key.start as usize].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line..key.start as usize];
    if !indent.chars().all(|c| c == ' ') {
        return None;
    }
    Some(insert(
        key.start as usize,
        format!("depends_on: [{target}]\n{indent}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Limits};

    fn fixed(text: &str, ptr: &str) -> String {
        let doc = crate::source::yaml::load(FileId(0), text, 0, Limits::default())
            .doc
            .unwrap();
        let Some(Fix::Insert { at, text: t, .. }) = add_dependency(&doc, text, ptr, "b") else {
            panic!("no fix");
        };
        let mut out = text.to_string();
        out.insert_str(at.start as usize, &t);
        out
    }

    #[test]
    fn the_dependency_goes_where_the_node_lists_them() {
        assert_eq!(
            fixed("nodes:\n  a:\n    depends_on: [c]\n", "/nodes/a"),
            "nodes:\n  a:\n    depends_on: [c, b]\n"
        );
        assert_eq!(
            fixed("nodes:\n  a:\n    depends_on:\n      - c\n", "/nodes/a"),
            "nodes:\n  a:\n    depends_on:\n      - c\n      - b\n"
        );
        assert_eq!(
            fixed("nodes:\n  a:\n    title: A\n", "/nodes/a"),
            "nodes:\n  a:\n    depends_on: [b]\n    title: A\n"
        );
        assert_eq!(
            fixed("nodes:\n  a: {title: A}\n", "/nodes/a"),
            "nodes:\n  a: {depends_on: [b], title: A}\n"
        );
    }
}
