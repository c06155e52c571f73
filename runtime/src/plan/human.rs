//! A node's human checkpoints as the plan carries them (`agc.plan/v4`, a node's `human`):
//! where each is asked, how, its condition and prompt, what it collects and how long it
//! waits, typed and decided at lowering (AGS `human[]`, a scope's `defaults.human` replacing
//! the node's list whole), so that the scheduler reads no attribute JSON to ask them
//! (`run/core/human.rs`, `human_timeout.rs`, `ladder.rs`).
//!
//! Generic over the expression held (`when`, `prompt`) as [`super::Failure`] is, so the IR
//! carries these types (no default: this file stays below `model.rs`). [`HumanCheckpoint::list_from`] is the one reading of an AGS `human`
//! list: lowering calls it, and so does the reader of a v3 plan (whose list was
//! `attributes.human` and whose expressions were `exprs` `human.<i>.when` and
//! `human.<i>.prompt`). Extension keys (`x-…`) of a checkpoint are carried as written in its
//! `extensions` (`agc.plan/v5`; a v4 plan dropped them).

use super::decl::{Declared, Param, extensions, strings};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One human checkpoint (AGS `human_checkpoint`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HumanCheckpoint<X> {
    /// Its id; its stage's name when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default)]
    pub at: CheckpointStage,
    #[serde(default)]
    pub mode: HumanMode,
    /// Whether the node waits for an answer (`true` when left out).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// Evaluated when the stage is reached: false passes the checkpoint by.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub when: Option<X>,
    /// A template, rendered when the checkpoint is asked.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub prompt: Option<X>,
    /// `input`: the values to collect, declared as params are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collect: Vec<Param>,
    /// How long the checkpoint waits (the policy's default when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    /// What a timeout does (the policy's default when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_timeout: Option<OnTimeout>,
    /// Extension keys (`x-…`) as written (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn none<T>() -> Option<T> {
    None
}

/// Where in a node's execution a checkpoint is asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointStage {
    BeforeStart,
    BeforeSideEffects,
    AfterOutputs,
    OnCriteriaFailure,
    OnFailure,
    OnEscalation,
    /// None this runtime knows (a hand-written plan): never asked.
    #[default]
    #[serde(other)]
    Unknown,
}

impl CheckpointStage {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointStage::BeforeStart => "before_start",
            CheckpointStage::BeforeSideEffects => "before_side_effects",
            CheckpointStage::AfterOutputs => "after_outputs",
            CheckpointStage::OnCriteriaFailure => "on_criteria_failure",
            CheckpointStage::OnFailure => "on_failure",
            CheckpointStage::OnEscalation => "on_escalation",
            CheckpointStage::Unknown => "unknown",
        }
    }
}

/// How a human answers (AGS checkpoint and gate `mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HumanMode {
    /// Yes or no; blocks.
    #[default]
    Approve,
    /// Blocks; may edit the outputs.
    Review,
    /// Blocks; supplies values.
    Input,
    /// Never blocks.
    Notify,
}

impl HumanMode {
    pub fn as_str(self) -> &'static str {
        match self {
            HumanMode::Approve => "approve",
            HumanMode::Review => "review",
            HumanMode::Input => "input",
            HumanMode::Notify => "notify",
        }
    }
}

/// What a human timeout does (AGS `on_timeout` of gates and checkpoints,
/// `policy.on_human_timeout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    Fail,
    Hold,
    Escalate,
    Approve,
}

impl OnTimeout {
    pub fn parse(s: &str) -> Option<OnTimeout> {
        Some(match s {
            "fail" => OnTimeout::Fail,
            "hold" => OnTimeout::Hold,
            "escalate" => OnTimeout::Escalate,
            "approve" => OnTimeout::Approve,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OnTimeout::Fail => "fail",
            OnTimeout::Hold => "hold",
            OnTimeout::Escalate => "escalate",
            OnTimeout::Approve => "approve",
        }
    }
}

/// The graph's defaults for a human's time (AGS `policy.default_human_timeout_seconds` and
/// `policy.on_human_timeout`; `agc.plan/v5`, the plan's `human_timeouts`): what a gate or a
/// checkpoint that says nothing of its own uses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HumanTimeouts {
    /// How long a human may take (no bound when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// What a timeout does (`hold` when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_timeout: Option<OnTimeout>,
}

impl HumanTimeouts {
    /// The keys of an AGS `policy` these defaults hold.
    pub const HELD: [&str; 2] = ["default_human_timeout_seconds", "on_human_timeout"];

    /// The defaults of an AGS `policy` block (a value of the wrong shape reads as absent, as
    /// the runtime read it before).
    pub fn from_policy(policy: &Value) -> HumanTimeouts {
        HumanTimeouts {
            seconds: policy
                .get("default_human_timeout_seconds")
                .and_then(Value::as_f64),
            on_timeout: policy
                .get("on_human_timeout")
                .and_then(Value::as_str)
                .and_then(OnTimeout::parse),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.seconds.is_none() && self.on_timeout.is_none()
    }
}

impl<X> HumanCheckpoint<X> {
    /// The checkpoints of an AGS `human` list (defaults merged); `expr` gives the parsed
    /// `human.<i>.when` and `human.<i>.prompt`. `None` when `list` is not a list. A value of
    /// the wrong shape reads as absent, as the runtime read it before.
    pub fn list_from(list: &Value, mut expr: impl FnMut(&str) -> Option<X>) -> Option<Vec<Self>> {
        let list = list.as_array()?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let named = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
        Some(
            list.iter()
                .enumerate()
                .map(|(i, h)| HumanCheckpoint {
                    id: text(h.get("id")),
                    at: serde_json::from_value(named(h.get("at"))).unwrap_or_default(),
                    mode: serde_json::from_value(named(h.get("mode"))).unwrap_or_default(),
                    required: h.get("required").and_then(Value::as_bool).unwrap_or(true),
                    roles: strings(h.get("roles")),
                    when: expr(&format!("human.{i}.when")),
                    prompt: expr(&format!("human.{i}.prompt")),
                    collect: h
                        .get("collect")
                        .and_then(Value::as_object)
                        .map(|c| c.iter().map(|(name, spec)| collected(name, spec)).collect())
                        .unwrap_or_default(),
                    timeout_seconds: h.get("timeout_seconds").and_then(Value::as_f64),
                    on_timeout: h
                        .get("on_timeout")
                        .and_then(Value::as_str)
                        .and_then(OnTimeout::parse),
                    extensions: extensions(h),
                })
                .collect(),
        )
    }

    /// The checkpoint's id as written, else its stage's name (`checkpoint` for none known).
    pub fn written_id(&self) -> &str {
        match (&self.id, self.at) {
            (Some(id), _) => id,
            (None, CheckpointStage::Unknown) => "checkpoint",
            (None, at) => at.as_str(),
        }
    }

    /// The same checkpoint with each expression mapped by `f` (a back end's view of the
    /// IR's).
    pub fn map_exprs<'a, Y>(&'a self, mut f: impl FnMut(&'a X) -> Y) -> HumanCheckpoint<Y> {
        HumanCheckpoint {
            id: self.id.clone(),
            at: self.at,
            mode: self.mode,
            required: self.required,
            roles: self.roles.clone(),
            when: self.when.as_ref().map(&mut f),
            prompt: self.prompt.as_ref().map(&mut f),
            collect: self.collect.clone(),
            timeout_seconds: self.timeout_seconds,
            on_timeout: self.on_timeout,
            extensions: self.extensions.clone(),
        }
    }
}

/// A value an `input` checkpoint collects, from its AGS `param_spec`: its `type` (`any` when
/// none), `required` unless `false`, its `default`, and its declaration.
pub(super) fn collected(name: &str, spec: &Value) -> Param {
    Param {
        name: name.to_string(),
        ty: spec
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("any")
            .to_string(),
        required: spec.get("required").and_then(Value::as_bool) != Some(false),
        default: spec.get("default").cloned(),
        decl: serde_json::from_value::<Declared>(spec.clone()).unwrap_or_default(),
    }
}
