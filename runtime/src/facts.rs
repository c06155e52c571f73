//! Agent Graph fact checks: `{ path, exists }` / `{ path, equals }` against a facts object.
//!
//! Semantics follow the reference evaluator (`@c4a/agent-graph` 0.2.6, `getFact` in
//! `src/io.ts`), with one deliberate difference:
//! - The path is split on `.`; there is no quoting or escaping, so a key containing `.` cannot
//!   be addressed (the schema allows only `[A-Za-z0-9_.-]` in paths anyway).
//! - At an array, a segment must be a canonical index (`0` or `[1-9][0-9]*`), otherwise the
//!   fact is missing; `01`, `-1` and `+1` never index. At an object, the segment is a key
//!   (also when it is numeric). At a scalar or `null`, the fact is missing.
//! - **Difference:** only the object's own keys are looked up. Upstream indexes JavaScript
//!   objects directly, so `constructor` or `__proto__` "exist" on every object there.
//! - `exists: true` holds when the value is present, including `null`; `exists: false` when it
//!   is missing.
//! - `equals: v` is JavaScript's `Object.is`: same type and value, so `"1"` never equals `1`,
//!   `1` equals `1.0` (both are the same JS number), a missing fact never equals anything (not
//!   even `null`), and arrays or objects never equal a scalar. `0` and `-0` differ, as in
//!   `Object.is`.

use serde_json::Value;

/// The value at a dotted fact `path`, or `None` when the fact is missing.
pub fn eval_fact<'v>(path: &str, facts: &'v Value) -> Option<&'v Value> {
    let mut cur = facts;
    for seg in path.split('.') {
        cur = match cur {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(array_index(seg)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// `seg` as an array index, if it is canonical: `0` or `[1-9][0-9]*` (and fits `usize`).
pub fn array_index(seg: &str) -> Option<usize> {
    let canonical = seg == "0"
        || (seg.starts_with(|c: char| ('1'..='9').contains(&c))
            && seg.bytes().all(|b| b.is_ascii_digit()));
    if canonical { seg.parse().ok() } else { None }
}

/// What a fact check asks.
#[derive(Clone, Debug, PartialEq)]
pub enum FactTest {
    /// `exists: true` / `exists: false`
    Exists(bool),
    /// `equals: <string | number | boolean | null>`
    Equals(Value),
}

/// The parts of a lowered fact check (`path exists`, `path missing`, `path == <json>`, joined
/// by `&&`, as the plan writes a `requiresFacts` list): each part's path and test, or what
/// is not a fact check. The one reading of that text: the scheduler evaluates it, the Rust
/// generator types the fact store from it.
pub fn parse_check(source: &str) -> Result<Vec<(&str, FactTest)>, String> {
    let mut parts = Vec::new();
    for part in source.split("&&").map(str::trim).filter(|p| !p.is_empty()) {
        let test = if let Some(path) = part.strip_suffix(" exists") {
            (path.trim(), FactTest::Exists(true))
        } else if let Some(path) = part.strip_suffix(" missing") {
            (path.trim(), FactTest::Exists(false))
        } else if let Some((path, want)) = part.split_once(" == ") {
            let want: Value = serde_json::from_str(want.trim())
                .map_err(|e| format!("fact check `{part}`: {e}"))?;
            (path.trim(), FactTest::Equals(want))
        } else {
            return Err(format!("`{part}` is not a fact check"));
        };
        parts.push(test);
    }
    Ok(parts)
}

/// Whether the fact check `{ path, test }` passes on `facts`.
pub fn check_fact(path: &str, test: &FactTest, facts: &Value) -> bool {
    let found = eval_fact(path, facts);
    match test {
        FactTest::Exists(want) => found.is_some() == *want,
        FactTest::Equals(v) => found.is_some_and(|f| object_is(f, v)),
    }
}

/// JavaScript `Object.is` on JSON values (scalars; containers are never equal).
fn object_is(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y && x.is_sign_negative() == y.is_sign_negative(),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walks_objects_and_arrays() {
        let f = json!({"a": {"b": [10, {"c": "x"}]}, "n": null, "7": "seven"});
        assert_eq!(eval_fact("a.b.0", &f), Some(&json!(10)));
        assert_eq!(eval_fact("a.b.1.c", &f), Some(&json!("x")));
        assert_eq!(eval_fact("7", &f), Some(&json!("seven")));
        assert_eq!(eval_fact("a.b.2", &f), None);
        assert_eq!(eval_fact("a.b.01", &f), None);
        assert_eq!(eval_fact("a.b.-1", &f), None);
        assert_eq!(eval_fact("a.b.x", &f), None);
        assert_eq!(eval_fact("n.x", &f), None);
        assert_eq!(eval_fact("a.constructor", &f), None);
        assert_eq!(eval_fact("", &f), None);
    }

    #[test]
    fn exists_counts_null_as_present() {
        let f = json!({"n": null});
        assert!(check_fact("n", &FactTest::Exists(true), &f));
        assert!(check_fact("m", &FactTest::Exists(false), &f));
        assert!(!check_fact("m", &FactTest::Exists(true), &f));
    }

    #[test]
    fn equals_is_strict() {
        let f = json!({"s": "1", "i": 1, "x": 1.0, "o": {"k": 1}, "n": null, "z": -0.0});
        assert!(!check_fact("s", &FactTest::Equals(json!(1)), &f));
        assert!(check_fact("i", &FactTest::Equals(json!(1.0)), &f));
        assert!(check_fact("x", &FactTest::Equals(json!(1)), &f));
        assert!(!check_fact("o", &FactTest::Equals(json!(1)), &f));
        assert!(check_fact("n", &FactTest::Equals(json!(null)), &f));
        assert!(!check_fact("missing", &FactTest::Equals(json!(null)), &f));
        assert!(!check_fact("z", &FactTest::Equals(json!(0)), &f));
    }
}
