//! A [`Finding`] → a [`Diagnostic`]: the code (native where the dialect has one), the span, and
//! the message. The AGS and agh rules that have codes of their own are recognised here by the
//! failing rule's schema path (the schema files are fixed, so the paths are too; the tests
//! exercise each one).

use super::message::{describe, list, show, type_noun};
use super::report::{Finding, Kind};
use crate::diag::Diagnostic;
use crate::diag::suggest::closest;
use crate::dialect::Dialect;
use crate::source::{Document, Span};
use serde_json::Value;

/// The code for a schema failure with no more specific code.
pub fn generic_code(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Ags => "AG001",
        Dialect::AgentGraph(_) => "schema-invalid",
        Dialect::Awp | Dialect::Agh => "AGC021",
    }
}

fn unknown_field_code(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Ags => "AG003",
        Dialect::AgentGraph(_) => "schema-invalid",
        Dialect::Awp | Dialect::Agh => "AGC022",
    }
}

fn enum_code(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Ags => "AG004",
        Dialect::AgentGraph(_) => "schema-invalid",
        Dialect::Awp | Dialect::Agh => "AGC023",
    }
}

/// AG002: `ags_version` must be exactly the string `"1.0"`.
pub fn ags_version(doc: &Document) -> Option<Diagnostic> {
    let v = doc.value.get("ags_version")?;
    if v.as_str() == Some("1.0") {
        return None;
    }
    let span = doc.span("/ags_version");
    let d = match v {
        crate::source::Value::String(s) => Diagnostic::error(
            "AG002",
            format!(
                "unsupported `ags_version` {}: agc implements AGS 1.0 only",
                show(v)
            ),
        )
        .with_help(
            if s.strip_prefix("1.").and_then(|m| m.parse::<u64>().ok()) == Some(0) {
                // `1.00`, `1.000`: the same version, spelt another way. (Not a newer minor.)
                "AGS versions are MAJOR.MINOR without leading zeros: write `ags_version: \"1.0\"`"
            } else if s.starts_with("1.") {
                "a newer minor version may use features agc does not know, so it is refused; \
write `ags_version: \"1.0\"` if the document uses only AGS 1.0"
            } else {
                "write `ags_version: \"1.0\"`"
            },
        ),
        other => Diagnostic::error(
            "AG002",
            format!(
                "`ags_version` must be the string \"1.0\", found {}",
                describe(other)
            ),
        )
        .with_help("quote the version: `ags_version: \"1.0\"` (YAML reads 1.0 as a number)"),
    };
    Some(d.at(span).with_pointer("/ags_version"))
}

/// The diagnostic for one finding.
pub fn diagnose(dialect: Dialect, schema: &Value, doc: &Document, f: &Finding) -> Diagnostic {
    let sp = f.schema_path.as_str();
    match &f.kind {
        Kind::Unknown { field } => unknown_field(dialect, schema, doc, f, field),
        Kind::Enum { options } => {
            let value = doc
                .value
                .pointer(&f.pointer)
                .unwrap_or(&crate::source::Value::Null);
            let name = field_name(&f.pointer);
            let mut code = agh_enum_code(dialect, f).unwrap_or(enum_code(dialect));
            if dialect == Dialect::Ags && f.pointer == "/kind" {
                // `kind` is a `const` of the schema, not an enum: the reference validators
                // report it as AG001 (an `ags_version` document of another `kind`).
                code = "AG001";
            }
            let message = match options.as_slice() {
                [only] => format!("`{name}` must be {}, found {}", show(only), show(value)),
                _ => format!("{} is not an allowed value for `{name}`", show(value)),
            };
            let mut d = Diagnostic::error(code, message)
                .at(doc.span(&f.pointer))
                .with_pointer(&f.pointer);
            if options.len() > 1 {
                let words: Vec<&str> = options.iter().filter_map(Value::as_str).collect();
                let guess = value.as_str().and_then(|v| closest(v, words));
                d = d.with_help(match guess {
                    Some(g) => format!("did you mean `{g}`? allowed: {}", list(options)),
                    None => format!("allowed: {}", list(options)),
                });
            }
            d
        }
        Kind::Required { field } => required(dialect, doc, f, field),
        Kind::Type { expected } => {
            let value = doc
                .value
                .pointer(&f.pointer)
                .unwrap_or(&crate::source::Value::Null);
            let nouns: Vec<String> = expected.iter().map(|t| type_noun(t)).collect();
            Diagnostic::error(
                generic_code(dialect),
                format!(
                    "`{}` must be {}, found {}",
                    field_name(&f.pointer),
                    nouns.join(" or "),
                    describe(value)
                ),
            )
            .at(doc.span(&f.pointer))
            .with_pointer(&f.pointer)
        }
        Kind::Not { schema: not } => forbidden(dialect, schema, doc, f, not),
        Kind::ExactlyOne { fields, present } => {
            let names = |v: &[String]| {
                v.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let whose = owner(doc, &f.pointer);
            let message = if present.is_empty() {
                format!("{whose} needs one of {}", names(fields))
            } else {
                format!(
                    "{whose} takes exactly one of {}; it sets {}",
                    names(fields),
                    names(present).replace(", ", " and ")
                )
            };
            let mut d = Diagnostic::error(generic_code(dialect), message)
                .at(object_anchor(doc, &f.pointer))
                .with_pointer(&f.pointer);
            for n in present {
                d = d.with_label(
                    doc.key_span(&Document::child_pointer(&f.pointer, n)),
                    format!("`{n}` is set here"),
                );
            }
            d
        }
        Kind::Ambiguous => Diagnostic::error(
            generic_code(dialect),
            format!(
                "`{}` matches more than one of the forms allowed here",
                field_name(&f.pointer)
            ),
        )
        .at(doc.span(&f.pointer))
        .with_pointer(&f.pointer),
        Kind::Other { keyword, text } => {
            let value = doc
                .value
                .pointer(&f.pointer)
                .unwrap_or(&crate::source::Value::Null);
            let name = field_name(&f.pointer);
            let code = if dialect == Dialect::Agh && is_node_id(&f.pointer) {
                "node_id_invalid"
            } else {
                generic_code(dialect)
            };
            let limit = || rule(schema, sp).map_or_else(String::new, Value::to_string);
            let message = match keyword.as_str() {
                "pattern" if code == "node_id_invalid" => format!(
                    "{} is not a valid node id: ids are snake_case, `^[a-z][a-z0-9_]*$`",
                    show(value)
                ),
                "pattern" => {
                    let pattern = rule(schema, sp).and_then(Value::as_str).unwrap_or("");
                    let what =
                        defs_name(sp).map_or_else(|| format!("`{name}`"), |d| d.replace('_', " "));
                    format!(
                        "{} is not a valid {what} (pattern `{pattern}`)",
                        show(value)
                    )
                }
                "minLength" if rule(schema, sp) == Some(&Value::from(1)) => {
                    format!("`{name}` must not be empty")
                }
                "minLength" => format!("`{name}` must be at least {} characters long", limit()),
                "maxLength" => format!("`{name}` must be at most {} characters long", limit()),
                "minItems" => format!("`{name}` needs at least {} item(s)", limit()),
                "maxItems" => format!("`{name}` takes at most {} item(s)", limit()),
                "minProperties" => format!("`{name}` needs at least {} entry(ies)", limit()),
                "maxProperties" => format!("`{name}` takes at most {} entry(ies)", limit()),
                "minimum" => format!(
                    "`{name}` must be at least {}, found {}",
                    limit(),
                    show(value)
                ),
                "maximum" => format!(
                    "`{name}` must be at most {}, found {}",
                    limit(),
                    show(value)
                ),
                "exclusiveMinimum" => {
                    format!(
                        "`{name}` must be greater than {}, found {}",
                        limit(),
                        show(value)
                    )
                }
                "exclusiveMaximum" => {
                    format!(
                        "`{name}` must be less than {}, found {}",
                        limit(),
                        show(value)
                    )
                }
                "uniqueItems" => format!("`{name}` lists the same value more than once"),
                "format" => format!(
                    "{} is not a valid {}",
                    show(value),
                    rule(schema, sp).and_then(Value::as_str).unwrap_or("value")
                ),
                _ => format!("`{name}`: {text}"),
            };
            Diagnostic::error(code, message)
                .at(doc.span(&f.pointer))
                .with_pointer(&f.pointer)
        }
    }
}

fn unknown_field(
    dialect: Dialect,
    schema: &Value,
    doc: &Document,
    f: &Finding,
    field: &str,
) -> Diagnostic {
    let pointer = Document::child_pointer(&f.pointer, field);
    let closed = f.schema_path.ends_with("additionalProperties")
        || f.schema_path.ends_with("unevaluatedProperties");
    let allowed = if closed {
        allowed_fields(schema, &f.schema_path)
    } else {
        Vec::new()
    };
    let message = if closed {
        format!("unknown field `{field}`")
    } else {
        format!("field `{field}` is not allowed here")
    };
    let mut d = Diagnostic::error(unknown_field_code(dialect), message)
        .at(doc.key_span(&pointer))
        .with_pointer(&pointer);
    if dialect == Dialect::Agh && !closed {
        // The version gates of agc's agh schema (`allOf/0`: agh.loop/v1, `allOf/1`: compozy).
        if f.schema_path.starts_with("/allOf/0/") {
            d = d.with_help(format!(
                "`{field}` belongs to compozy.loop/v1, the renamed successor; agh.loop/v1 \
uses `model_defaults`"
            ));
        } else if f.schema_path.starts_with("/allOf/1/") {
            d = d.with_help(
                "compozy.loop/v1 replaced `model_defaults` with `runtime_defaults` and \
`runtime_rules`",
            );
        }
    }
    if let Some(g) = closest(field, allowed.iter().map(String::as_str)) {
        d = d.with_help(format!("did you mean `{g}`?"));
    } else if !allowed.is_empty() {
        let mut help = format!("allowed fields here: {}", allowed.join(", "));
        if dialect == Dialect::Ags {
            help.push_str("; extension fields are named `x-…`");
        }
        d = d.with_help(help);
    }
    d
}

fn required(dialect: Dialect, doc: &Document, f: &Finding, field: &str) -> Diagnostic {
    let sp = f.schema_path.as_str();
    let mut code = generic_code(dialect);
    let mut message = format!(
        "{} is missing required field `{field}`",
        owner(doc, &f.pointer)
    );
    let parent_kind = doc
        .value
        .pointer(&f.pointer)
        .and_then(|o| o.get("type").or_else(|| o.get("kind")))
        .and_then(crate::source::Value::as_str)
        .unwrap_or("");
    match dialect {
        Dialect::Ags if sp.starts_with("/$defs/node/allOf/") && sp.ends_with("/then/required") => {
            if field == "join_count" {
                message = "`join: n_of` needs `join_count`".to_string();
            } else {
                code = "AG101";
                message = format!("a `{parent_kind}` node needs a `{field}:` block");
            }
        }
        Dialect::Ags if sp.starts_with("/$defs/edge/allOf/0/then") => {
            message = "a `conditional` edge needs a `when` guard".to_string();
        }
        Dialect::Agh if field == "parse" => {
            code = "file_import_parse_required";
            message = "`file-import` needs `parse: json` or `parse: text`".to_string();
        }
        Dialect::Agh if field == "kind" && f.pointer.ends_with("/watch") => {
            let node = f.pointer.strip_suffix("/watch").unwrap_or("");
            let kind = doc.value.pointer(&format!("{node}/kind"));
            if kind.and_then(crate::source::Value::as_str) == Some("watch-events") {
                // agh: `watch` on a watch-events source is a shape error, whatever it holds.
                code = "watch_events_shape_invalid";
                message = "watch-events nodes use `events`, not `watch`".to_string();
            } else {
                code = "watch_kind_required";
                message = "`watch` needs a `kind` naming the watched source".to_string();
            }
        }
        Dialect::Agh
            if field == "kind"
                && f.pointer
                    .rsplit_once('/')
                    .is_some_and(|(p, _)| p.ends_with("/events")) =>
        {
            code = "watch_events_kind_unknown";
            message =
                "a watch-events subscription needs a `kind` from the hook catalog".to_string();
        }
        Dialect::Agh if field == "pattern" && parent_kind == "file-import" => {
            code = "unresolvable_path";
            message = "file-import `pattern` is required".to_string();
        }
        Dialect::Agh if field == "body" && parent_kind == "sub-loop" => {
            code = "non_terminating_structure";
            message = "a sub-loop must declare a nested body with at least one node".to_string();
        }
        Dialect::Agh if field == "watch" && parent_kind == "watch-source" => {
            code = "watch_kind_required";
            message = "a `watch-source` node needs `watch` with a `kind`".to_string();
        }
        _ => {}
    }
    Diagnostic::error(code, message)
        .at(object_anchor(doc, &f.pointer))
        .with_pointer(&f.pointer)
}

/// A `not` rule failed: the object has a field (or a combination of fields) it must not have.
fn forbidden(
    dialect: Dialect,
    schema: &Value,
    doc: &Document,
    f: &Finding,
    not: &Value,
) -> Diagnostic {
    let sp = f.schema_path.as_str();
    let value = doc
        .value
        .pointer(&f.pointer)
        .unwrap_or(&crate::source::Value::Null);
    if dialect == Dialect::Agh && is_node_id(&f.pointer) {
        return Diagnostic::error(
            "node_id_invalid",
            "`budget` is reserved for the synthetic budget-approval gate".to_string(),
        )
        .at(doc.span(&f.pointer))
        .with_pointer(&f.pointer);
    }
    // The fields the rule names that the object has, in the rule's order.
    let mut present: Vec<String> = Vec::new();
    let groups: Vec<&Value> = match not.get("anyOf").and_then(Value::as_array) {
        Some(alts) => alts.iter().collect(),
        None => vec![not],
    };
    let mut matched_group: Vec<String> = Vec::new();
    for g in groups {
        let names: Vec<String> = g
            .get("required")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if !names.is_empty() && names.iter().all(|n| value.get(n).is_some()) {
            if matched_group.is_empty() {
                matched_group = names.clone();
            }
            for n in names {
                if !present.contains(&n) {
                    present.push(n);
                }
            }
        }
    }
    let field_ptr = |n: &str| Document::child_pointer(&f.pointer, n);
    let at = |n: &str| doc.key_span(&field_ptr(n));
    let kind_of = value
        .get("type")
        .or_else(|| value.get("kind"))
        .and_then(crate::source::Value::as_str)
        .unwrap_or("");
    let (code, message, target) = match dialect {
        Dialect::Ags if sp.starts_with("/$defs/input_spec/not") => (
            "AG104",
            format!(
                "an input binding takes its value from exactly one of `from`, `template`, `value`; \
this one sets {}",
                present
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            present.get(1).cloned(),
        ),
        Dialect::Ags if sp.starts_with("/$defs/edge/allOf/1/") => (
            "AG103",
            "a `sequence` edge cannot have a `when` guard".to_string(),
            Some("when".to_string()),
        ),
        Dialect::Ags if sp.starts_with("/$defs/node/allOf/6/") => (
            "AG102",
            "a gate takes no `intelligence`: it is decided by people or policy, not a model"
                .to_string(),
            Some("intelligence".to_string()),
        ),
        Dialect::Ags if sp.starts_with("/$defs/node/allOf/") && sp.contains("/else/") => {
            let block = matched_group.first().cloned().unwrap_or_default();
            (
                "AG101",
                format!(
                    "a `{kind_of}` node cannot have a `{block}:` block; only `type: {block}` nodes take it"
                ),
                Some(block),
            )
        }
        _ => {
            let field = present.first().cloned().unwrap_or_default();
            let mut message = match present.len() {
                0 => format!(
                    "`{}` has a form that is not allowed here",
                    field_name(&f.pointer)
                ),
                1 => format!("field `{field}` is not allowed here"),
                _ => format!(
                    "fields {} cannot be used together here",
                    present
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            if let Some((k, v)) = branch_discriminator(schema, sp) {
                message.push_str(&format!(" when `{k}` is {}", show(&v)));
            }
            (generic_code(dialect), message, present.first().cloned())
        }
    };
    let span = match &target {
        Some(n) if value.get(n).is_some() => at(n),
        _ => doc.span(&f.pointer),
    };
    let mut d = Diagnostic::error(code, message)
        .at(span)
        .with_pointer(target.map_or(f.pointer.clone(), |n| field_ptr(&n)));
    for n in &present {
        let s = at(n);
        if Some(s) != d.span {
            d = d.with_label(s, format!("`{n}` is set here"));
        }
    }
    d
}

/// `(field, value)` of the `const` that selects the `oneOf`/`anyOf` branch a schema path runs
/// through, e.g. `runner: command` for `/oneOf/0/not`.
fn branch_discriminator(schema: &Value, sp: &str) -> Option<(String, Value)> {
    let i = sp.rfind("/oneOf/").or_else(|| sp.rfind("/anyOf/"))?;
    let rest = &sp[i + 7..];
    let end = rest.find('/').map_or(sp.len(), |j| i + 7 + j);
    let branch = schema.pointer(&sp[..end])?;
    branch
        .get("properties")?
        .as_object()?
        .iter()
        .find_map(|(k, v)| v.get("const").map(|c| (k.clone(), c.clone())))
}

/// The `$defs` name a keyword belongs to, for `/$defs/<name>/<keyword>` paths.
fn defs_name(sp: &str) -> Option<&str> {
    let rest = sp.strip_prefix("/$defs/")?;
    let (name, keyword) = rest.split_once('/')?;
    (!keyword.contains('/')).then_some(name)
}

/// The value of the failing keyword in the schema (the pattern, the limit, the format).
fn rule<'s>(schema: &'s Value, sp: &str) -> Option<&'s Value> {
    schema.pointer(sp)
}

/// The property names an object schema declares, given the path of its
/// `additionalProperties`/`unevaluatedProperties` keyword.
fn allowed_fields(schema: &Value, sp: &str) -> Vec<String> {
    let Some(i) = sp.rfind('/') else {
        return Vec::new();
    };
    schema
        .pointer(&sp[..i])
        .and_then(|o| o.get("properties"))
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// The agh linter's own code for an enum rule, where the rule is exactly one of its rules.
fn agh_enum_code(dialect: Dialect, f: &Finding) -> Option<&'static str> {
    if dialect != Dialect::Agh {
        return None;
    }
    let sp = f.schema_path.as_str();
    let parent = f.pointer.rsplit_once('/').map_or("", |(p, _)| p);
    if parent.ends_with("/terminal_states") {
        Some("unknown_terminal_state")
    } else if f.pointer.ends_with("/kind") && sp.contains("/node/allOf/0/") {
        Some("unknown_control_kind")
    } else if f.pointer.ends_with("/kind") && sp.contains("/node/allOf/1/") {
        Some("unknown_source_kind")
    } else if f.pointer.ends_with("/parse") && sp.contains("/node/") {
        Some("file_import_parse_required")
    } else if f.pointer.ends_with("/class") && sp.contains("/node/") {
        // agh: "node class %q is not supported" is a reference error.
        Some("unknown_reference")
    } else if f.pointer.starts_with("/network_participation/") {
        Some("network_participation_invalid")
    } else {
        None
    }
}

/// Whether a pointer is an agh node's `id` (`.../nodes/<i>/id`).
fn is_node_id(pointer: &str) -> bool {
    let mut parts = pointer.rsplit('/');
    parts.next() == Some("id")
        && parts.next().is_some_and(|i| i.parse::<usize>().is_ok())
        && parts.next() == Some("nodes")
}

/// The field a pointer names, for messages: its last token, or for a list item the list's
/// name (`terminal_states` for `/contract/terminal_states/2`); `document` for the root.
fn field_name(pointer: &str) -> String {
    let mut p = pointer;
    while let Some((parent, last)) = p.rsplit_once('/') {
        if last.parse::<usize>().is_err() {
            return crate::source::tree::unescape_token(last);
        }
        p = parent;
    }
    "document".to_string()
}

/// Who is missing a field: `the document`, `` `id: build` ``, `` `document` ``, `item 3 of `nodes``.
fn owner(doc: &Document, pointer: &str) -> String {
    if pointer.is_empty() {
        return "the document".to_string();
    }
    let value = doc.value.pointer(pointer);
    if let Some(id) = value
        .and_then(|v| v.get("id"))
        .and_then(crate::source::Value::as_str)
    {
        return format!("`{id}`");
    }
    let (_, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    match last.parse::<usize>() {
        Ok(i) => format!("item {} of `{}`", i + 1, field_name(pointer)),
        Err(_) => format!("`{}`", crate::source::tree::unescape_token(last)),
    }
}

/// Where a finding about an object lands: its key if it has one, else its first key (one line
/// rather than the whole object), else the object itself.
fn object_anchor(doc: &Document, pointer: &str) -> Span {
    let Some(node) = doc.node(pointer) else {
        return doc.span(pointer);
    };
    if let Some(key) = node.key() {
        return key;
    }
    doc.children(&node)
        .next()
        .and_then(|c| c.key())
        .unwrap_or(node.span)
}
