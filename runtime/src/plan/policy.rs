//! Graph policies and declarations the runtime acts on, as the plan carries them
//! (`agc.plan/v5`), decided at lowering so that the scheduler reads no attribute JSON: what a
//! node's failure does to the run ([`OnNodeFailure`], the plan's `on_node_failure`), the
//! attachments expressions read ([`Attachment`], its `attachments`), and whether a node may
//! have side effects ([`may_have_side_effects`], a node's `side_effects`).
//!
//! A plan written before them kept the first two in `attrs.policy.on_node_failure` and
//! `attrs.attachments` (AGS `policy`, `attachments`), and left the third to the node's
//! `attributes.requirements`; the reader moves them ([`OnNodeFailure::from_policy`],
//! [`Attachment::list_from`]) and decides the third.

use super::decl::extension_keys;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a node's failure that nothing absorbs does to the run (AGS
/// `policy.on_node_failure`; `isolate` when left out).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnNodeFailure {
    /// The run stops.
    Halt,
    /// Only the failed node's dependents are skipped.
    #[default]
    Isolate,
    /// Dependents whose join permits it are attempted too.
    Continue,
}

impl OnNodeFailure {
    /// Whether this is the default (`isolate`; a plan leaves it out).
    pub fn is_default(&self) -> bool {
        *self == OnNodeFailure::Isolate
    }

    /// The policy a `policy` block names (`isolate` when it names none, or one this
    /// runtime does not know, as the runtime read it).
    pub fn from_policy(policy: &Value) -> OnNodeFailure {
        policy
            .get("on_node_failure")
            .cloned()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()
    }
}

/// A declared attachment (AGS `attachments`): reference material a node's expressions read
/// as `attachments.<name>`, which is its `path`, else its `uri` (the handler resolves it;
/// the runtime reads no files), else `null`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Workspace-relative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Literal content, for small attachments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline: Option<String>,
    /// Its extension keys (`x-…`), as written.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

impl Attachment {
    /// What `attachments.<name>` reads: the path, else the URI, else `null`.
    pub fn reference(&self) -> Value {
        self.path
            .as_ref()
            .or(self.uri.as_ref())
            .map_or(Value::Null, |s| Value::String(s.clone()))
    }

    /// The attachments of an `attachments` list as written (an item without a name is left
    /// out, as the runtime left it; a field of the wrong type reads as absent).
    pub fn list_from(list: &Value) -> Vec<Attachment> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| {
                let text = |k: &str| a.get(k).and_then(Value::as_str).map(str::to_string);
                Some(Attachment {
                    name: text("name")?,
                    description: text("description"),
                    path: text("path"),
                    uri: text("uri"),
                    media_type: text("media_type"),
                    inline: text("inline"),
                    extensions: a.as_object().map(extension_keys).unwrap_or_default(),
                })
            })
            .collect()
    }
}

/// Whether a node whose requirements are `requirements` may have side effects: no
/// requirements (nothing says it cannot), a `read_write` workspace, or a permission that
/// writes ([`has_side_effects`]: AG902's list). A `before_side_effects`
/// checkpoint is asked only of such a node.
pub fn may_have_side_effects(requirements: Option<&Value>) -> bool {
    let Some(req) = requirements else {
        return true;
    };
    req.get("workspace").and_then(Value::as_str) == Some("read_write")
        || super::decl::strings(req.get("permissions"))
            .iter()
            .any(|p| has_side_effects(p))
}

/// Permissions whose grant means a call has side effects (AGS AG902's list: `fs:write`,
/// `fs:delete`, `git:commit`, `git:push`, `shell:exec`, each also as a prefix such as
/// `git:push:origin`). The compiler warns on them (AG902) and decides from them whether a
/// node may have side effects ([`may_have_side_effects`]), before which the ladder
/// checkpoints; both read this one list.
pub const SIDE_EFFECT_PERMISSIONS: [&str; 5] = [
    "fs:write",
    "fs:delete",
    "git:commit",
    "git:push",
    "shell:exec",
];

/// True when `permission` is (or starts with) one of [`SIDE_EFFECT_PERMISSIONS`].
pub fn has_side_effects(permission: &str) -> bool {
    SIDE_EFFECT_PERMISSIONS
        .iter()
        .any(|w| permission.starts_with(w))
}
