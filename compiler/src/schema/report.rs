//! jsonschema errors → flat [`Finding`]s: one per failing place, with `oneOf`/`anyOf` failures
//! reduced to the most useful branch (see the module docs of [`super`]).

use jsonschema::error::{TypeKind, ValidationError, ValidationErrorKind};
use serde_json::Value;

/// One failing place, independent of the dialect.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// Instance pointer of the value the finding is about (for unknown and missing fields: the
    /// object that holds them).
    pub pointer: String,
    /// Canonical location of the failing keyword in the schema document.
    pub schema_path: String,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A field the object does not allow.
    Unknown { field: String },
    /// A value outside an enum (or a const, a one-value enum).
    Enum { options: Vec<Value> },
    /// A required field that is missing.
    Required { field: String },
    /// A value of the wrong type; `expected` holds schema type names.
    Type { expected: Vec<String> },
    /// The value matches a schema it must not match.
    Not { schema: Value },
    /// More than one `oneOf` branch matches.
    Ambiguous,
    /// A `oneOf` whose branches each require one field: `present` of `fields` are set (none, or
    /// more than one).
    ExactlyOne {
        fields: Vec<String>,
        present: Vec<String>,
    },
    /// Any other rule: the keyword and jsonschema's own description.
    Other { keyword: String, text: String },
}

/// Deepest `oneOf`/`anyOf` nesting followed; beyond it the failure is reported as it is.
const MAX_NESTING: usize = 32;

/// The findings of one jsonschema error; `schema` is the schema document it comes from.
pub fn flatten(
    schema: &Value,
    instance: &crate::source::Value,
    error: &ValidationError<'_>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    push(schema, instance, error, 0, &mut out);
    out
}

fn push(
    schema: &Value,
    instance: &crate::source::Value,
    error: &ValidationError<'_>,
    depth: usize,
    out: &mut Vec<Finding>,
) {
    let pointer = error.instance_path().as_str().to_string();
    let schema_path = error.schema_path().as_str().to_string();
    if let Some(fields) = required_alternatives(schema, &schema_path)
        && matches!(
            error.kind(),
            ValidationErrorKind::OneOfNotValid { .. }
                | ValidationErrorKind::OneOfMultipleValid { .. }
        )
    {
        let object = instance.pointer(&pointer);
        let present = fields
            .iter()
            .filter(|f| object.and_then(|o| o.get(f.as_str())).is_some())
            .cloned()
            .collect();
        out.push(Finding {
            pointer,
            schema_path,
            kind: Kind::ExactlyOne { fields, present },
        });
        return;
    }
    let kind = match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for field in unexpected {
                out.push(Finding {
                    pointer: pointer.clone(),
                    schema_path: schema_path.clone(),
                    kind: Kind::Unknown {
                        field: field.clone(),
                    },
                });
            }
            return;
        }
        ValidationErrorKind::FalseSchema => match pointer.rfind('/') {
            Some(i) if !pointer.is_empty() => {
                let field = crate::source::tree::unescape_token(&pointer[i + 1..]);
                out.push(Finding {
                    pointer: pointer[..i].to_string(),
                    schema_path,
                    kind: Kind::Unknown { field },
                });
                return;
            }
            _ => Kind::Other {
                keyword: "false".into(),
                text: "no value is allowed here".into(),
            },
        },
        ValidationErrorKind::Enum { options } => Kind::Enum {
            options: options.as_array().cloned().unwrap_or_default(),
        },
        ValidationErrorKind::Constant { expected_value } => Kind::Enum {
            options: vec![(**expected_value).clone()],
        },
        ValidationErrorKind::Required { property } => Kind::Required {
            field: property.as_str().unwrap_or_default().to_string(),
        },
        ValidationErrorKind::Type { kind } => Kind::Type {
            expected: type_names(kind),
        },
        ValidationErrorKind::Not { schema } => Kind::Not {
            schema: schema.clone(),
        },
        ValidationErrorKind::OneOfMultipleValid { .. } => Kind::Ambiguous,
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context }
            if depth < MAX_NESTING && !context.is_empty() =>
        {
            match pick(&pointer, context) {
                Pick::Branch(errors) => {
                    for e in errors {
                        push(schema, instance, e, depth + 1, out);
                    }
                }
                Pick::Merged(e) => out.push(merged(e, context, &pointer)),
            }
            return;
        }
        // Counted from the document: the error's instance is a placeholder (`DocJson`).
        ValidationErrorKind::AdditionalItems { limit } => {
            let items = instance.pointer(&pointer).and_then(|v| v.as_array());
            let extra = items.map_or(0, |a| a.len().saturating_sub(*limit));
            Kind::Other {
                keyword: "additionalItems".into(),
                text: format!(
                    "Additional items are not allowed ({extra} item{})",
                    if extra == 1 { "" } else { "s" }
                ),
            }
        }
        other => Kind::Other {
            keyword: other.keyword().to_string(),
            text: error.masked().to_string(),
        },
    };
    out.push(Finding {
        pointer,
        schema_path,
        kind,
    });
}

/// For a `oneOf` whose every branch is exactly `{"required": [one field]}`, those fields.
fn required_alternatives(schema: &Value, schema_path: &str) -> Option<Vec<String>> {
    let branches = schema.pointer(schema_path)?.as_array()?;
    branches
        .iter()
        .map(|b| {
            let obj = b.as_object().filter(|o| o.len() == 1)?;
            match obj.get("required")?.as_array()?.as_slice() {
                [Value::String(f)] => Some(f.clone()),
                _ => None,
            }
        })
        .collect()
}

fn type_names(kind: &TypeKind) -> Vec<String> {
    match kind {
        TypeKind::Single(t) => vec![t.to_string()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
    }
}

enum Pick<'e> {
    /// Report these errors (one branch's) as they are.
    Branch(Vec<&'e ValidationError<'static>>),
    /// Every branch fails on the same discriminator: report this one error, widened to all
    /// branches' allowed values.
    Merged(&'e ValidationError<'static>),
}

/// What to report for a failed `oneOf`/`anyOf` at `at`.
///
/// A branch "misses" when it fails on a discriminator: a `const`/`enum` at the value or at one
/// of its direct fields, or a `type` at the value itself. If some branches do not miss, the one
/// with the fewest errors is reported. If all miss at the same place, the discriminator errors
/// are merged into one (all allowed values, or all allowed types).
fn pick<'e>(at: &str, branches: &'e [Vec<ValidationError<'static>>]) -> Pick<'e> {
    let misses: Vec<Option<&ValidationError<'static>>> = branches
        .iter()
        .map(|b| b.iter().find(|e| is_discriminator(at, e)))
        .collect();
    let best = branches
        .iter()
        .zip(&misses)
        .filter(|(_, miss)| miss.is_none())
        .min_by_key(|(b, _)| b.len());
    if let Some((branch, _)) = best {
        return Pick::Branch(branch.iter().collect());
    }
    let Some(first) = misses.first().copied().flatten() else {
        return Pick::Branch(Vec::new());
    };
    let same_place = misses.iter().flatten().all(|e| {
        e.instance_path().as_str() == first.instance_path().as_str()
            && same_family(e.kind(), first.kind())
    });
    if same_place {
        Pick::Merged(first)
    } else {
        Pick::Branch(
            branches
                .iter()
                .min_by_key(|b| b.len())
                .map(|b| b.iter().collect())
                .unwrap_or_default(),
        )
    }
}

fn same_family(a: &ValidationErrorKind, b: &ValidationErrorKind) -> bool {
    let is_type = |k: &ValidationErrorKind| matches!(k, ValidationErrorKind::Type { .. });
    is_type(a) == is_type(b)
}

/// One finding for a discriminator that every branch rejects, allowing every branch's values.
fn merged(
    first: &ValidationError<'_>,
    branches: &[Vec<ValidationError<'static>>],
    at: &str,
) -> Finding {
    let mut values: Vec<Value> = Vec::new();
    for e in branches
        .iter()
        .filter_map(|b| b.iter().find(|e| is_discriminator(at, e)))
    {
        for v in kind_values(e) {
            if !values.contains(&v) {
                values.push(v);
            }
        }
    }
    let kind = match first.kind() {
        ValidationErrorKind::Type { .. } => Kind::Type {
            expected: values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        },
        _ => Kind::Enum { options: values },
    };
    Finding {
        pointer: first.instance_path().as_str().to_string(),
        schema_path: first.schema_path().as_str().to_string(),
        kind,
    }
}

fn is_discriminator(at: &str, e: &ValidationError<'_>) -> bool {
    let p = e.instance_path().as_str();
    let direct_child = p
        .strip_prefix(at)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| !rest.contains('/'));
    match e.kind() {
        ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. } => {
            p == at || direct_child
        }
        ValidationErrorKind::Type { .. } => p == at,
        _ => false,
    }
}

/// The values a discriminator error allows: enum options, the const, or type names.
fn kind_values(e: &ValidationError<'_>) -> Vec<Value> {
    match e.kind() {
        ValidationErrorKind::Enum { options } => options.as_array().cloned().unwrap_or_default(),
        ValidationErrorKind::Constant { expected_value } => vec![(**expected_value).clone()],
        ValidationErrorKind::Type { kind } => {
            type_names(kind).into_iter().map(Value::String).collect()
        }
        _ => Vec::new(),
    }
}
