//! `agc agent-graph bundle PROVIDER -o DIR`: upstream's `agent-graph build [output]` (a
//! deterministic, relocatable bundle; see [`crate::front::agent_graph::build`]). The Provider
//! is checked first and refused with its loader errors; `--format json` prints the bundle
//! manifest, `human` upstream's two lines.

use super::{AgFormat, fail, load};
use crate::front::agent_graph::build;
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
    /// The bundle folder (replaced if it exists; upstream's default is `dist/provider`).
    #[arg(short, long, value_name = "DIR", default_value = "dist/provider")]
    output: PathBuf,
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
