//! Wording: values and lists for messages, and "did you mean" suggestions.

use crate::canon::jcs::{Json, View};
use serde_json::Value;

/// A value (a schema's or a document's) as it appears in a message: strings in backticks,
/// others as compact JSON, long values shortened.
pub fn show<V: Json>(v: &V) -> String {
    let text = match v.view() {
        View::String(s) => s.to_string(),
        _ => v.to_json().to_string(),
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
    values
        .iter()
        .map(show::<Value>)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a JSON value is, for "expected X, found Y".
pub fn describe<V: Json>(v: &V) -> &'static str {
    match v.view() {
        View::Null => "null",
        View::Bool(_) => "a boolean",
        View::Number(n) if n.is_f64() => "a number",
        View::Number(_) => "an integer",
        View::String(_) => "a string",
        View::Array(_) => "a list",
        View::Object(_) => "a mapping",
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shows_values_briefly() {
        assert_eq!(show(&json!("task")), "`task`");
        assert_eq!(show(&json!(3)), "`3`");
        assert_eq!(list(&[json!("a"), json!(null)]), "`a`, `null`");
        let long = "x".repeat(100);
        assert!(show(&json!(long)).ends_with("…`"));
    }
}
