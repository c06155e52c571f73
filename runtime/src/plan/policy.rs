//! Graph policies and declarations the runtime acts on, as the plan carries them
//! (`agc.plan/v5`), decided at lowering so that the scheduler reads no attribute JSON: what a
//! node's failure does to the run ([`OnNodeFailure`], the plan's `on_node_failure`) and the
//! attachments expressions read ([`Attachment`], its `attachments`).
//!
//! A plan written before them kept them in `attrs.policy.on_node_failure` and
//! `attrs.attachments` (AGS `policy`, `attachments`); the reader moves them
//! ([`OnNodeFailure::from_policy`], [`Attachment::list_from`]).

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
