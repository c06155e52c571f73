//! What a gate and a wait node wait for, as the plan carries it (`agc.plan/v5`, a node's
//! `gate` and `wait`): typed and decided at lowering (AGS `gate`, AWP `wait`'s `config`), so
//! that the scheduler reads no attribute JSON to ask a gate, bound it in time, act on its
//! answer or arm a wait's timer (`run/core/launch.rs`, `timers.rs`), and the Rust generator
//! types an input gate's values from the same list (`compiler/src/back/rust`).
//!
//! [`Gate::from_block`] and [`Wait::from_block`] are the one reading of the dialects'
//! blocks into them: lowering calls them, and so does the reader of a v4 plan (whose blocks
//! were `attributes.gate` and `attributes.wait`). A gate's `prompt` and `present` are kept
//! as written: only a handler shows them.

use super::decl::{Param, extension_keys, strings};
use super::human::{HumanMode, OnTimeout, collected};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A gate's human interaction (AGS `gate`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    pub mode: HumanMode,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// The question, as written (a template only a handler renders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Material to show the approver, as written (expressions only a handler evaluates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub present: Vec<String>,
    /// `input`: the values to collect, declared as params are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collect: Vec<Param>,
    /// How long the gate waits (the policy's default when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    /// What a timeout does (the policy's default when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_timeout: Option<OnTimeout>,
    #[serde(default, skip_serializing_if = "OnReject::is_fail")]
    pub on_reject: OnReject,
    /// Extension keys (`x-…`) as written.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

/// What a human's rejection of a gate does (AGS `gate.on_reject`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnReject {
    /// The gate fails.
    #[default]
    Fail,
    /// The gate is skipped, and so are the nodes that depend on it.
    SkipDependents,
    /// The gate succeeds; its outgoing conditional edges decide on `gate.decision`.
    Route,
}

impl OnReject {
    fn is_fail(&self) -> bool {
        *self == OnReject::Fail
    }
}

impl Gate {
    /// The gate of an AGS `gate` block. `None` when `block` is not an object. A value of the
    /// wrong shape reads as absent (a mode as `approve`, an `on_reject` as `fail`), as the
    /// runtime read it before.
    pub fn from_block(block: &Value) -> Option<Gate> {
        let block = block.as_object()?;
        let text = |k: &str| block.get(k).and_then(Value::as_str).map(str::to_string);
        let texts = |k: &str| strings(block.get(k));
        let named = |k: &str| block.get(k).cloned().unwrap_or(Value::Null);
        Some(Gate {
            mode: serde_json::from_value(named("mode")).unwrap_or_default(),
            roles: texts("roles"),
            prompt: text("prompt"),
            present: texts("present"),
            collect: block
                .get("collect")
                .and_then(Value::as_object)
                .map(|c| c.iter().map(|(name, spec)| collected(name, spec)).collect())
                .unwrap_or_default(),
            timeout_seconds: block.get("timeout_seconds").and_then(Value::as_f64),
            on_timeout: text("on_timeout").as_deref().and_then(OnTimeout::parse),
            on_reject: serde_json::from_value(named("on_reject")).unwrap_or_default(),
            extensions: extension_keys(block),
        })
    }
}

/// What a wait node waits for (AWP `wait`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Wait {
    /// A duration in milliseconds (none given: it ends at once).
    Duration {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ms: Option<u64>,
    },
    /// A time (RFC 3339; one that does not read: it ends at once).
    Until {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
    /// A signal, which the handler is asked for.
    Signal {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<String>,
    },
}

impl Wait {
    /// The wait of a block with a `kind` (`duration` with its `ms`, `until`, `signal`), as
    /// AWP's lowering writes it and a v4 plan's `attributes.wait` held it. `None` for any
    /// other kind (a wait that ends at once, as the runtime read it before).
    pub fn from_block(block: &Value) -> Option<Wait> {
        let text = |k: &str| block.get(k).and_then(Value::as_str).map(str::to_string);
        Some(match block.get("kind").and_then(Value::as_str)? {
            "duration" => Wait::Duration {
                ms: block.get("ms").and_then(Value::as_u64),
            },
            "until" => Wait::Until {
                until: text("until"),
            },
            "signal" => Wait::Signal {
                signal: text("signal"),
            },
            _ => return None,
        })
    }
}
