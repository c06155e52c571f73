//! A crate that generates its typed runner at build time, as prost-build and tonic-build do
//! for protobuf: `build.rs` asks `agc-build` to compile
//! `examples/ags/changelog-release.agraph.yaml` into `OUT_DIR`, and the line below includes
//! the module it wrote. Nothing generated is committed; editing the graph regenerates it at
//! the next build.
//!
//! [`Releaser`] is what a developer writes: the graph's work, typed.

agc_runtime::include_runner!("release");

use release::{
    Answer, ApproveDecision, ApproveInputs, ApproveOutputs, CollectChangesInputs,
    CollectChangesOutputs, CollectChangesOutputsEntriesItem as Entry,
    CollectChangesOutputsEntriesItemKind as Kind, Context, DraftNotesInputs, DraftNotesOutputs,
    Failure, Handlers, Hooks, TrimNotesInputs, TrimNotesOutputs,
};

/// Release notes from a fixed list of changes, approved at once.
pub struct Releaser {
    pub changes: Vec<(String, Kind)>,
}

impl Handlers for Releaser {
    async fn collect_changes(
        &self,
        _ctx: &Context,
        _inputs: CollectChangesInputs,
    ) -> Result<CollectChangesOutputs, Failure> {
        let entries: Vec<Entry> = self
            .changes
            .iter()
            .map(|(title, kind)| Entry {
                title: title.clone(),
                kind: *kind,
            })
            .collect();
        Ok(CollectChangesOutputs {
            entry_count: entries.len() as i64,
            entries,
        })
    }

    async fn draft_notes(
        &self,
        _ctx: &Context,
        inputs: DraftNotesInputs,
    ) -> Result<DraftNotesOutputs, Failure> {
        let lines: Vec<String> = inputs
            .entries
            .iter()
            .filter_map(|e| e.get("title").and_then(|t| t.as_str()))
            .map(|t| format!("- {t}"))
            .collect();
        Ok(DraftNotesOutputs {
            notes: format!("# {}\n\n{}", inputs.heading, lines.join("\n")),
        })
    }

    async fn trim_notes(
        &self,
        _ctx: &Context,
        inputs: TrimNotesInputs,
    ) -> Result<TrimNotesOutputs, Failure> {
        let notes = inputs.notes.lines().take(12).collect::<Vec<_>>().join("\n");
        Ok(TrimNotesOutputs { notes })
    }

    async fn approve(
        &self,
        _ctx: &Context,
        _inputs: ApproveInputs,
    ) -> Result<Option<Answer<ApproveOutputs>>, Failure> {
        Ok(Some(Answer {
            outputs: ApproveOutputs {
                decision: ApproveDecision::Approved,
            },
            actor: Some("release-bot".into()),
            note: None,
        }))
    }
}

/// The hooks' defaults: human checkpoints wait for a decision.
impl Hooks for Releaser {}
