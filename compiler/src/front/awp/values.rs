//! Value rules: durations (the engine's `parseDurationMs` grammar), `wait.until` (ISO-8601),
//! reducers, `version_pin`, and the checkpointing policy.

use super::checker::Checker;
use super::model::Model;
use crate::source::Value;

/// Milliseconds of a duration string in the engine's grammar, `^\d+\s*(ms|s|m|h)?$`
/// (case-insensitive, after trimming); `None` when it does not parse or overflows.
pub fn duration_ms(s: &str) -> Option<u64> {
    let t = s.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = t[..digits].parse().ok()?;
    let unit = t[digits..].trim_start().to_ascii_lowercase();
    let factor = match unit.as_str() {
        "" | "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

/// Whether `s` is an ISO-8601 date or date-time in the forms ECMAScript's `Date.parse` is
/// specified to read: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, then optionally `THH:MM`, `:SS`,
/// `.sss` (one or more digits), and a zone `Z` or `±HH:MM` (or `±HHMM`); every field in range.
pub fn iso8601(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize, n: usize| -> Option<u32> {
        let part = b.get(*i..*i + n)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *i += n;
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let lit = |i: &mut usize, c: u8| -> bool {
        if b.get(*i) == Some(&c) {
            *i += 1;
            true
        } else {
            false
        }
    };
    let Some(year) = num(&mut i, 4) else {
        return false;
    };
    if lit(&mut i, b'-') {
        let Some(month @ 1..=12) = num(&mut i, 2) else {
            return false;
        };
        if lit(&mut i, b'-') && !num(&mut i, 2).is_some_and(|d| d >= 1 && d <= days_in(year, month))
        {
            return false;
        }
    }
    if i == b.len() {
        return true;
    }
    if !lit(&mut i, b'T') {
        return false;
    }
    if !matches!(num(&mut i, 2), Some(0..=24)) || !lit(&mut i, b':') {
        return false;
    }
    if !matches!(num(&mut i, 2), Some(0..=59)) {
        return false;
    }
    if lit(&mut i, b':') {
        if !matches!(num(&mut i, 2), Some(0..=59)) {
            return false;
        }
        if lit(&mut i, b'.') {
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
    }
    if i == b.len() || (lit(&mut i, b'Z') && i == b.len()) {
        return true;
    }
    if !(lit(&mut i, b'+') || lit(&mut i, b'-')) {
        return false;
    }
    // `±HH:MM`, or `±HHMM` (which V8's `Date.parse` also reads).
    if !matches!(num(&mut i, 2), Some(0..=23)) {
        return false;
    }
    lit(&mut i, b':');
    matches!(num(&mut i, 2), Some(0..=59)) && i == b.len()
}

/// Whether `v` is of JSON Schema type `t`.
fn json_type_is(v: &Value, t: &str) -> bool {
    match t {
        "integer" => {
            v.as_i64().is_some()
                || v.as_u64().is_some()
                || v.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => v.is_number(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The reducers the engine implements.
pub const REDUCERS: &[&str] = &["overwrite", "append", "merge"];

impl Checker<'_> {
    pub(super) fn check_values(&mut self, m: &Model<'_>) {
        for n in &m.nodes {
            let ptr = n.ptr();
            let mut durations = vec![format!("{ptr}/timeout")];
            durations.push(format!("{ptr}/retry/initial_interval"));
            durations.push(format!("{ptr}/retry/max_interval"));
            match n.ty {
                "wait" => durations.push(format!("{ptr}/config/duration")),
                "interrupt" | "parallel" => durations.push(format!("{ptr}/config/timeout")),
                _ => {}
            }
            for at in durations {
                if let Some(s) = self.doc.value.pointer(&at).and_then(Value::as_str)
                    && duration_ms(s).is_none()
                {
                    let d = self
                        .diag(
                            "duration-invalid",
                            &at,
                            format!("`{s}` is not a duration the engine can parse"),
                        )
                        .with_help(
                            "write a whole number with an optional unit `ms`, `s`, `m` or `h` \
(`30s`, `500ms`, `2h`); ISO-8601 (`PT30S`), decimals and days are not accepted",
                        );
                    self.diags.push(d);
                }
            }
            if n.ty == "wait"
                && let Some(s) = n.config_str("until")
                && !iso8601(s)
            {
                let at = format!("{ptr}/config/until");
                let d = self
                    .diag(
                        "until-invalid",
                        &at,
                        format!("`{s}` is not an ISO-8601 date or date-time"),
                    )
                    .with_help("write e.g. `2026-12-01T09:00:00Z`");
                self.diags.push(d);
            }
            if n.ty == "subworkflow"
                && let Some(pin) = n.config_str("version_pin")
                && !(pin.len() == 64 && pin.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
            {
                let at = format!("{ptr}/config/version_pin");
                let d = self
                    .diag(
                        "version-pin-invalid",
                        &at,
                        format!("`{pin}` is not a SHA-256 digest (64 lowercase hex digits)"),
                    )
                    .with_help(
                        "the pin is the SHA-256 of the child definition's canonical JSON, not a \
version number",
                    );
                self.diags.push(d);
            }
        }
        self.check_reducers();
        self.check_checkpointing();
        self.check_assignments(m);
    }

    /// AGC249: a `set_state` assignment the state schema refuses after the node (the engine
    /// re-validates the state after every change): a key an object with
    /// `additionalProperties: false` does not declare, or an `overwrite` literal whose JSON
    /// type is not among the property's `type`s.
    fn check_assignments(&mut self, m: &Model<'_>) {
        let schema = self.doc.value.get("state_schema");
        let props = schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        let closed =
            schema.and_then(|s| s.get("additionalProperties")) == Some(&Value::Bool(false));
        for n in m.nodes.iter().filter(|n| n.ty == "set_state") {
            let Some(assignments) = n
                .config()
                .and_then(|c| c.get("assignments"))
                .and_then(Value::as_object)
            else {
                continue;
            };
            let base = format!("{}/config/assignments", n.ptr());
            for (k, v) in assignments {
                let at = crate::source::Document::child_pointer(&base, k);
                let Some(prop) = props.and_then(|p| p.get(k)) else {
                    if closed {
                        let d = crate::diag::Diagnostic::new(
                            "AGC249",
                            format!(
                                "`{k}` is not a state property, and the state allows no others"
                            ),
                        )
                        .at(self.doc.key_span(&at))
                        .with_pointer(at);
                        self.diags.push(d);
                    }
                    continue;
                };
                let reducer = prop
                    .get("reducer")
                    .and_then(Value::as_str)
                    .unwrap_or("overwrite");
                let (Some(lit), Some(types), "overwrite") =
                    (v.get("literal"), super::state::types(prop), reducer)
                else {
                    continue;
                };
                if !types.iter().any(|t| json_type_is(lit, t)) {
                    let at = format!("{at}/literal");
                    let d = self.diag(
                        "AGC249",
                        &at,
                        format!(
                            "state property `{k}` is {}, but this literal is {}",
                            types.join(" or "),
                            json_type(lit)
                        ),
                    );
                    self.diags.push(d);
                }
            }
        }
    }

    fn check_reducers(&mut self) {
        let Some(props) = self
            .doc
            .value
            .pointer("/state_schema/properties")
            .and_then(Value::as_object)
        else {
            return;
        };
        for (k, p) in props {
            let Some(r) = p.get("reducer") else {
                continue;
            };
            if r.as_str().is_some_and(|r| REDUCERS.contains(&r)) {
                continue;
            }
            let at = format!(
                "{}/reducer",
                crate::source::Document::child_pointer("/state_schema/properties", k)
            );
            let shown = match r {
                Value::String(s) => format!("`{s}`"),
                other => other.to_string(),
            };
            let d = self
                .diag(
                    "reducer-unsupported",
                    &at,
                    format!("reducer {shown} of state property `{k}` is not supported"),
                )
                .with_help("use `overwrite` (the default), `append` or `merge`");
            self.diags.push(d);
        }
    }

    fn check_checkpointing(&mut self) {
        let Some(cp) = self
            .doc
            .value
            .get("checkpointing")
            .and_then(Value::as_object)
        else {
            return;
        };
        let (key, strategy) = match (cp.get("strategy"), cp.get("policy")) {
            (Some(s), _) => ("strategy", s.as_str()),
            (None, Some(p)) => ("policy", p.as_str()),
            (None, None) => return,
        };
        let at = format!("/checkpointing/{key}");
        match strategy {
            Some("after_each_node" | "disabled" | "off" | "none") => {}
            Some("every_n_nodes" | "interval") => {
                let n = cp.get("n").or_else(|| cp.get("interval"));
                if n.and_then(Value::as_u64).is_none_or(|n| n < 1) {
                    let d = self.diag(
                        "AGC248",
                        &at,
                        "`every_n_nodes` needs an integer `n` of at least 1".into(),
                    );
                    self.diags.push(d);
                }
            }
            other => {
                let d = self
                    .diag(
                        "AGC248",
                        &at,
                        format!(
                            "unknown checkpointing strategy `{}`",
                            other.unwrap_or_default()
                        ),
                    )
                    .with_help("use `after_each_node`, `every_n_nodes` (with `n`) or `disabled`");
                self.diags.push(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_follow_the_engine_grammar() {
        assert_eq!(duration_ms("30s"), Some(30_000));
        assert_eq!(duration_ms(" 500 MS "), Some(500));
        assert_eq!(duration_ms("250"), Some(250));
        assert_eq!(duration_ms("2h"), Some(7_200_000));
        assert_eq!(duration_ms("5m"), Some(300_000));
        for bad in [
            "PT30S",
            "1.5s",
            "2d",
            "1h30m",
            "-5s",
            "s",
            "",
            "99999999999999999999",
        ] {
            assert_eq!(duration_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn until_is_iso8601() {
        for ok in [
            "2026-12-01",
            "2026",
            "2026-02",
            "2026-12-01T09:00Z",
            "2026-12-01T09:00:00Z",
            "2026-12-01T09:00:00.123+02:00",
            "2024-02-29T00:00:00",
            "2026-12-01T09:00:00+0100",
        ] {
            assert!(iso8601(ok), "{ok}");
        }
        for bad in [
            "tomorrow",
            "2026-13-01",
            "2026-02-30",
            "2025-02-29",
            "2026-12-01 09:00",
            "2026-12-01T25:00Z",
            "2026-12-01T09:00:00.Z",
            "2026-12-01T09:00+2",
            "Nov 30 2026",
        ] {
            assert!(!iso8601(bad), "{bad}");
        }
    }
}
