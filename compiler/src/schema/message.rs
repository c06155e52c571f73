//! Wording: values and lists for messages, and "did you mean" suggestions.

use serde_json::Value;

/// A value as it appears in a message: strings in backticks, others as compact JSON, long
/// values shortened.
pub fn show(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        format!("`{short}…`")
    } else {
        format!("`{short}`")
    }
}

/// `a, b, c` with each value shown by [`show`].
pub fn list(values: &[Value]) -> String {
    values.iter().map(show).collect::<Vec<_>>().join(", ")
}

/// What a JSON value is, for "expected X, found Y".
pub fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// A JSON Schema type name as a noun.
pub fn type_noun(name: &str) -> String {
    match name {
        "object" => "a mapping".to_string(),
        "array" => "a list".to_string(),
        "string" => "a string".to_string(),
        "integer" => "an integer".to_string(),
        "number" => "a number".to_string(),
        "boolean" => "a boolean".to_string(),
        "null" => "null".to_string(),
        other => other.to_string(),
    }
}

/// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo
/// (at most a third of the word's length, and at least one edit allowed).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// Edit distance (optimal string alignment: insert, delete, substitute, swap neighbours) over
/// chars, case-insensitive. Words are field names; long inputs are cut to 64 chars so a huge key
/// cannot cost quadratic time.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().take(64).flat_map(char::to_lowercase).collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 0..a.len() {
        cur[0] = i + 1;
        for j in 0..b.len() {
            let mut d = (prev[j] + usize::from(a[i] != b[j]))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn suggests_near_names_only() {
        let names = ["depends_on", "description", "type"];
        assert_eq!(closest("depend_on", names), Some("depends_on"));
        assert_eq!(closest("tpye", names), Some("type"));
        assert_eq!(closest("colour", names), None);
    }

    #[test]
    fn shows_values_briefly() {
        assert_eq!(show(&json!("task")), "`task`");
        assert_eq!(show(&json!(3)), "`3`");
        assert_eq!(list(&[json!("a"), json!(null)]), "`a`, `null`");
        let long = "x".repeat(100);
        assert!(show(&json!(long)).ends_with("…`"));
    }
}
