//! What the runtime evaluates itself after (or instead of) a handler call: AGS success
//! criteria of the kinds that need no outside world, and decisions with
//! `evaluator: expression`.
//!
//! - Criteria: `expression` (its `expr` must give `true`; an error or a non-boolean fails
//!   it), `regex` (the text of `target`, else of the output named by `output`, must match
//!   `pattern` with `flags`), `json_schema` (the output must fit the inline `schema`). They see
//!   `self.inputs` and `self.outputs` (the attempt's outputs). Kinds that need the world
//!   (`command`, `file_exists`, `artifact_present`, `llm_judge`, `human`, `external`, and
//!   `json_schema` with only a `schema_ref`) are the handler's: a handler that completes
//!   vouches for them, so they count as passed. `advisory` criteria never gate. `mode`
//!   (`all`, `any`, `n_of` with `count`) combines the required ones. When they do not hold, the
//!   attempt fails with class `criteria_failed` and goes down the failure ladder (retried when
//!   `retry_on` lists it, as it does by default).
//! - `evaluator: expression` decisions make no call: the first branch whose `when` holds
//!   (in declared order) is selected, else `default_branch`; with neither, the node fails
//!   (RT062). Branches without a `when` never match.

use super::RunId;
use super::State;
use super::check::check;
use super::env::Anchor;
use crate::plan::{CriteriaMode, CriterionKind, Declared};
use crate::run::record::{CriteriaResults, CriterionResult, NodeStatus};
use serde_json::{Map, Value};

impl State {
    /// The node's success criteria judged on `outputs` (`None` without a success block):
    /// every criterion's result with its evidence, and the failures of the required ones
    /// (`relaxed` criteria count as advisory).
    pub(super) fn evaluate_criteria(
        &mut self,
        r: RunId,
        outputs: &Map<String, Value>,
        relaxed: &[String],
    ) -> Option<(CriteriaResults, Vec<String>)> {
        let plan = std::sync::Arc::clone(&self.plan);
        let node = &plan.nodes[self.runs[r].node];
        let success = node.success.as_ref()?;
        let scope = self.runs[r].scope;
        // Evidence never shows a redacted value: criteria that may read one show none.
        let secret_output = |name: Option<&str>| {
            node.outputs
                .iter()
                .any(|o| o.decl.redact && name.is_none_or(|n| n == o.name))
        };
        let secrets = secret_output(None) || node.inputs.iter().any(|i| i.decl.redact);
        // The criteria see this attempt's outputs as `self.outputs`.
        let saved = self.runs[r].outputs.replace(outputs.clone());
        let mut passed = 0usize;
        let mut required = 0usize;
        let mut failures = Vec::new();
        let mut results = Vec::new();
        for c in &success.criteria {
            let id = c.id.as_str();
            let advisory = c.advisory || relaxed.iter().any(|x| x == id);
            let anchor = Anchor {
                run: Some(r),
                inputs: None,
            };
            // (passed, evidence, why it failed) or an error; `None`: the handler's kind.
            type Verdict = Result<(bool, String, String), String>;
            let verdict: Option<Verdict> = match c.kind {
                CriterionKind::Expression => {
                    c.expr
                        .as_ref()
                        .map(|e| match self.eval_bool(scope, e, &anchor) {
                            Ok(b) => Ok((
                                b,
                                format!("the expression is {b}"),
                                "its expression is false".to_string(),
                            )),
                            Err(err) => Err(err),
                        })
                }
                CriterionKind::Regex => c.pattern.as_deref().map(|pattern| {
                    let output = c.output.as_deref();
                    let target = c.target.as_ref();
                    let hide = match target {
                        Some(_) => secrets,
                        None => secret_output(output),
                    };
                    let text = match target {
                        Some(e) => self.eval(scope, e, &anchor),
                        None => output
                            .and_then(|o| outputs.get(o))
                            .cloned()
                            .ok_or_else(|| "the output it inspects is missing".to_string()),
                    };
                    match text {
                        Ok(Value::String(s)) => match regex_of(pattern, &c.flags) {
                            Ok(re) => {
                                let found = re.find(&s).map(|m| m.as_str().to_string());
                                let evidence = match (&found, hide) {
                                    (_, true) => super::record::REDACTED.to_string(),
                                    (Some(m), false) => format!("matched `{m}`"),
                                    (None, false) => format!("no match for `{pattern}`"),
                                };
                                let why = if c.negate {
                                    format!("the text matches `{pattern}`")
                                } else {
                                    format!("the text does not match `{pattern}`")
                                };
                                Ok((found.is_some() != c.negate, evidence, why))
                            }
                            Err(e) => Err(format!("`{pattern}` is not a valid pattern: {e}")),
                        },
                        Ok(other) => Err(format!(
                            "it needs a string, got {}",
                            super::check::kind_name(&other)
                        )),
                        Err(e) => Err(e),
                    }
                }),
                CriterionKind::JsonSchema => c.schema.as_ref().map(|schema| {
                    let decl = Declared {
                        schema: Some(schema.clone()),
                        ..Declared::default()
                    };
                    let output = c.output.as_deref();
                    match output.and_then(|o| outputs.get(o)) {
                        Some(v) => Ok(match check(v, "any", &decl) {
                            Ok(()) => (
                                true,
                                "the output fits the schema".to_string(),
                                String::new(),
                            ),
                            Err(_) if secret_output(output) => (
                                false,
                                super::record::REDACTED.to_string(),
                                "the output does not fit the schema".to_string(),
                            ),
                            Err(m) => (false, m.message.clone(), m.message),
                        }),
                        None => Err("the output it inspects is missing".to_string()),
                    }
                }),
                // The handler's kinds: completing vouches for them.
                _ => None,
            };
            let (ok, evidence, why, error, vouched) = match verdict {
                None => (
                    true,
                    "not evaluated by agc-runtime: the handler vouched for it by completing"
                        .to_string(),
                    String::new(),
                    None,
                    true,
                ),
                Some(Ok((ok, evidence, why))) => (ok, evidence, why, None, false),
                Some(Err(e)) => (false, String::new(), e.clone(), Some(e), false),
            };
            let (evidence, truncated) = truncate(evidence);
            results.push(CriterionResult {
                id: id.to_string(),
                kind: c.kind.as_str().to_string(),
                severity: if advisory { "advisory" } else { "required" }.into(),
                passed: ok,
                evidence: (!evidence.is_empty()).then_some(evidence),
                evidence_truncated: truncated,
                evaluated_at: Some(self.now.clone()),
                error,
                vouched,
            });
            if advisory {
                continue;
            }
            required += 1;
            if ok {
                passed += 1;
            } else {
                failures.push(format!("`{id}`: {why}"));
            }
        }
        self.runs[r].outputs = saved;
        let needed = match success.mode {
            CriteriaMode::Any => required.min(1),
            CriteriaMode::NOf => success
                .count
                .map_or(required, |n| (n as usize).min(required)),
            CriteriaMode::All => required,
        };
        let verdict = CriteriaResults {
            passed: passed >= needed,
            mode: success.mode.as_str().to_string(),
            results,
        };
        Some((verdict, failures))
    }

    /// An `evaluator: expression` decision: selects its branch without a call. Returns
    /// whether the node is such a decision (and so was handled).
    pub(super) fn decide_by_expression(&mut self, r: RunId) -> bool {
        let plan = std::sync::Arc::clone(&self.plan);
        let node = &plan.nodes[self.runs[r].node];
        let Some(decision) = node.decision.as_ref() else {
            return false;
        };
        if !node.decides_by_expression() {
            return false;
        }
        let scope = self.runs[r].scope;
        let mut chosen = None;
        for b in &decision.branches {
            let label = &b.label;
            let Some(e) = &b.when else {
                continue;
            };
            let anchor = Anchor {
                run: Some(r),
                inputs: None,
            };
            match self.eval_bool(scope, e, &anchor) {
                Ok(true) => {
                    chosen = Some(label.to_string());
                    break;
                }
                Ok(false) => {}
                Err(err) if super::env::is_limit(&err) => {
                    let msg = format!("branch `{label}`'s condition failed: {err}");
                    self.limit_failed(r, msg);
                    return true;
                }
                Err(err) => {
                    self.expression_failed(
                        Some(r),
                        &format!("branch `{label}`'s condition failed"),
                        "counts as false",
                        &err,
                    );
                }
            }
        }
        let chosen = chosen.or_else(|| decision.default_branch.clone());
        match chosen {
            Some(label) => {
                let mut outputs = Map::new();
                outputs.insert("decision".into(), Value::from(label.clone()));
                self.runs[r].decision = Some(label);
                self.runs[r].outputs = Some(outputs);
                self.terminate(r, NodeStatus::Succeeded);
            }
            None => {
                self.diag(
                    "RT062",
                    "error",
                    "no branch condition holds and the decision has no default_branch".into(),
                    Some(r),
                );
                self.terminate(r, NodeStatus::Failed);
            }
        }
        true
    }
}

/// Evidence is cut at this many characters (`evidence_truncated`).
const EVIDENCE_MAX: usize = 500;

fn truncate(s: String) -> (String, bool) {
    match s.char_indices().nth(EVIDENCE_MAX) {
        Some((i, _)) => (s[..i].to_string(), true),
        None => (s, false),
    }
}

/// `pattern` with AGS `flags` (`i`, `m`, `s`, `x`).
fn regex_of(pattern: &str, flags: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'))
        .ignore_whitespace(flags.contains('x'))
        .size_limit(1 << 20)
        .build()
}

#[cfg(test)]
#[path = "criteria_tests.rs"]
mod tests;
