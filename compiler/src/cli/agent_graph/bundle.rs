//! `agc agent-graph bundle PROVIDER -o DIR`: upstream's `agent-graph build [output]` (a
//! deterministic, relocatable bundle; see [`crate::front::agent_graph::build`]). The Provider
//! is checked first and refused with its loader errors; `--format json` prints the bundle
//! manifest, `human` upstream's two lines.

use super::{AgFormat, fail, load};
use crate::front::agent_graph::build;
use crate::fsio::folder::NotOwned;
use agc_runtime::agent_graph::Error;
use serde_json::Value;
use std::path::PathBuf;

/// Agent Graph Provider tools.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum AgentGraphCommand {
    /// Build a bundle (`manifest.json`, `agent-graph.bundle.v1`) of a Provider into a folder.
    Bundle(BundleArgs),
}

#[derive(clap::Args, Debug)]
pub(crate) struct BundleArgs {
    /// The Provider: its `provider.yaml`, or the folder holding it.
    provider: PathBuf,
    /// The bundle folder (upstream's default is `dist/provider`): created, or replaced when it
    /// is empty or a bundle agc wrote; any other folder is refused unless `--force`.
    #[arg(short, long, value_name = "DIR", default_value = "dist/provider")]
    output: PathBuf,
    /// Replace the output folder even when it holds files agc did not write (they are lost).
    #[arg(long)]
    force: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AgFormat::Human)]
    format: AgFormat,
}

/// Runs an `agc agent-graph` subcommand.
pub(crate) fn tools(cmd: AgentGraphCommand) -> i32 {
    match cmd {
        AgentGraphCommand::Bundle(a) => bundle(a),
    }
}

fn bundle(a: BundleArgs) -> i32 {
    let (_, inventory) = match load(&a.provider, a.format) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // Upstream's overlap refusal first; then a folder holding anything but a bundle agc wrote
    // (a user's files, a `.git`) is not replaced: refused before anything is built (exit 2,
    // as for an unusable output).
    if let Err(e) = build::overlap(&inventory, &a.output) {
        return fail(a.format, &e, Vec::new());
    }
    let shown = a.output.to_string_lossy().into_owned();
    match crate::fsio::folder::may_write(&a.output, a.force, build::is_own_bundle) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            super::fail(
                a.format,
                &Error::new(NotOwned::CODE, e.message(&shown, "a bundle")),
                Vec::new(),
            );
            return 2;
        }
        Err(e) => {
            // An operating-system failure is upstream's `unexpected-error` (exit 1).
            let e = Error::new("unexpected-error", format!("Cannot read {shown}: {e}"));
            return fail(a.format, &e, Vec::new());
        }
    }
    match build::build(&inventory, &a.output) {
        Ok(manifest) => {
            let shown = |k: &str| {
                manifest
                    .pointer(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            super::output(
                a.format,
                &manifest,
                vec![
                    format!(
                        "Built {}@{} at {}",
                        shown("/provider/id"),
                        shown("/provider/version"),
                        crate::front::agent_graph::absolute(&a.output).display()
                    ),
                    format!("Bundle digest: {}", shown("/digest")),
                ],
            );
            0
        }
        Err(e) => fail(a.format, &e, Vec::new()),
    }
}
