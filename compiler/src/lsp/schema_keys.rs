//! The keys a dialect's JSON Schema allows at a place of a YAML document being typed, for
//! completion.
//!
//! The place is read from the lines above the cursor by indentation (block style: each less
//! indented `key:` line is a parent, each `- ` an array item), so it works on a half-written
//! buffer that does not load. The schema (the one the session validates with,
//! [`crate::schema::embedded`]) is walked along that path through `properties`,
//! `patternProperties`, `additionalProperties` and `items`, following local `$ref`s and
//! every branch of `allOf`/`anyOf`/`oneOf`/`then`/`else`; the keys are those of every
//! `properties` reached, each with its description.

use crate::dialect::Dialect;
use serde_json::Value;

/// One step of the path to the cursor.
#[derive(Debug, PartialEq, Eq)]
enum Seg {
    Key(String),
    Item,
}

/// `(key, description)` allowed at the key being typed after `head` (its line so far: spaces
/// and maybe `- `), below the text `above`.
pub fn keys(dialect: Dialect, above: &str, head: &str) -> Vec<(String, Option<String>)> {
    let Ok(compiled) = crate::schema::embedded::compiled(dialect) else {
        return Vec::new();
    };
    let root = &compiled.schema;
    let mut here = expand(root, root);
    for seg in path(above, head) {
        let mut next = Vec::new();
        for s in &here {
            match &seg {
                Seg::Key(k) => {
                    if let Some(p) = s.get("properties").and_then(|p| p.get(k)) {
                        next.push(p);
                    } else {
                        if let Some(pp) = s.get("patternProperties").and_then(Value::as_object) {
                            next.extend(pp.values());
                        }
                        if let Some(a) = s.get("additionalProperties").filter(|a| a.is_object()) {
                            next.push(a);
                        }
                    }
                }
                Seg::Item => next.extend(s.get("items").filter(|i| i.is_object())),
            }
        }
        here = next.into_iter().flat_map(|s| expand(root, s)).collect();
        if here.is_empty() {
            return Vec::new();
        }
    }
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for s in here {
        for (k, v) in s
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if !out.iter().any(|(o, _)| o == k) {
                let desc = expand(root, v)
                    .iter()
                    .find_map(|d| d.get("description").and_then(Value::as_str))
                    .map(str::to_string);
                out.push((k.clone(), desc));
            }
        }
    }
    out.sort();
    out
}

/// `s` with its local `$ref`s followed and its `allOf`/`anyOf`/`oneOf`/`then`/`else`
/// branches added (each schema once; a bounded walk, whatever the schema).
fn expand<'a>(root: &'a Value, s: &'a Value) -> Vec<&'a Value> {
    let mut out: Vec<&Value> = Vec::new();
    let mut todo = vec![s];
    while let Some(s) = todo.pop() {
        if out.len() > 256 || out.iter().any(|o| std::ptr::eq(*o, s)) {
            continue;
        }
        out.push(s);
        if let Some(r) = s.get("$ref").and_then(Value::as_str)
            && let Some(ptr) = r.strip_prefix('#')
            && let Some(t) = root.pointer(ptr)
        {
            todo.push(t);
        }
        for k in ["allOf", "anyOf", "oneOf"] {
            todo.extend(s.get(k).and_then(Value::as_array).into_iter().flatten());
        }
        todo.extend(["then", "else"].iter().filter_map(|k| s.get(*k)));
    }
    out
}

/// The path from the document's root to the key being typed, from the indentation of the
/// lines above.
fn path(above: &str, head: &str) -> Vec<Seg> {
    let mut rev = Vec::new();
    let t = head.trim_start();
    let mut col = head.len();
    if t.starts_with('-') {
        rev.push(Seg::Item);
        col = head.len() - t.len();
    }
    for line in above.lines().rev() {
        if col == 0 {
            break;
        }
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let ind = line.len() - body.len();
        if ind >= col {
            continue;
        }
        if let Some(rest) = body
            .strip_prefix("- ")
            .or(body.strip_prefix('-').filter(|r| r.is_empty()))
        {
            if col > ind + 2
                && let Some(k) = key_of(rest)
            {
                rev.push(Seg::Key(k));
            }
            rev.push(Seg::Item);
        } else if let Some(k) = key_of(body) {
            rev.push(Seg::Key(k));
        }
        col = ind;
    }
    rev.reverse();
    rev
}

/// The key a `key: …` line starts with (quotes removed).
fn key_of(body: &str) -> Option<String> {
    let (k, _) = body.split_once(':')?;
    let k = k.trim().trim_matches(['"', '\'']);
    (!k.is_empty() && !k.contains(' ')).then(|| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_follows_indentation_and_items() {
        let above = "nodes:\n  a:\n    outputs:\n      x: {type: string}\n    failure:\n";
        assert_eq!(
            path(above, "      "),
            [
                Seg::Key("nodes".into()),
                Seg::Key("a".into()),
                Seg::Key("failure".into())
            ]
        );
        let above = "graph:\n  nodes:\n    - id: a\n";
        assert_eq!(
            path(above, "      "),
            [
                Seg::Key("graph".into()),
                Seg::Key("nodes".into()),
                Seg::Item
            ]
        );
        assert_eq!(
            path("graph:\n  nodes:\n", "    - "),
            [
                Seg::Key("graph".into()),
                Seg::Key("nodes".into()),
                Seg::Item
            ]
        );
    }

    #[test]
    fn ags_node_keys_come_from_the_schema() {
        let found: Vec<String> = keys(Dialect::Ags, "nodes:\n  a:\n", "    ")
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        for k in ["depends_on", "title", "outputs"] {
            assert!(found.iter().any(|x| x == k), "{k}: {found:?}");
        }
        let top: Vec<String> = keys(Dialect::Ags, "", "")
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert!(top.iter().any(|x| x == "entrypoints"), "{top:?}");
    }
}
