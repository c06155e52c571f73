//! `agc run`'s arguments (shared by the local engine, `cli/run.rs`, and Restate,
//! `cli/run_restate.rs`).

use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// The workflow document, or a plan written by `agc build` (`.json` with
    /// `format: agc.plan/v2`, or v1).
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub(super) file: Option<PathBuf>,
    /// Params as a JSON object.
    #[arg(long, value_name = "P.json")]
    pub(super) params: Option<PathBuf>,
    /// The scripted handler (YAML or JSON): what each node returns.
    #[arg(long, value_name = "S.yaml")]
    pub(super) script: Option<PathBuf>,
    /// Keep the plan, journal and record here, so the run can be resumed.
    #[arg(long, value_name = "DIR")]
    pub(super) run_dir: Option<PathBuf>,
    /// Write the run record here.
    #[arg(long, value_name = "R.json")]
    pub(super) record: Option<PathBuf>,
    /// A fixed clock and run id (`run-1`), for byte-identical records.
    #[arg(long)]
    pub(super) fixed_clock: bool,
    /// Threads of the async runtime that runs handler calls (how many poll at the same
    /// instant). How many calls are in flight is the graph's limits (`max_parallel_nodes`, a
    /// map's `max_parallel`), not this: calls that wait hold no thread.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub(super) threads: usize,
    /// Resume the run kept in this run directory.
    #[arg(long, value_name = "DIR")]
    pub(super) resume: Option<PathBuf>,
    /// On resume: decide a gate (`GATE=approved` or `GATE=rejected`) or a human checkpoint
    /// (`NODE.CHECKPOINT=approved`) that awaits a human.
    #[arg(long, value_name = "NAME=OUTCOME", requires = "resume")]
    pub(super) decide: Vec<String>,
    /// On resume: the outputs that go with the approval `--decide NAME=approved`: a JSON
    /// object inline (`NAME={"summary":"edited"}`) or read from a file (`NAME=@out.json`).
    /// A review's edits, an input checkpoint's values, a takeover's or an escalation's
    /// outputs, a gate's collected values, an AWP interrupt's resume payload. Checked as a
    /// handler's answer is: for a human checkpoint, values that do not fit are refused and the
    /// run stays paused; an interrupt's payload that does not fit its `resume_schema` fails
    /// the interrupt, as upstream (AGC326).
    #[arg(long, value_name = "NAME=JSON|NAME=@FILE", requires = "decide")]
    pub(super) outputs: Vec<String>,
    /// The journal in the run directory: `jsonl` (default) or `sqlite` (needs agc built with
    /// the `sqlite` feature).
    #[arg(long, value_name = "KIND", default_value = "jsonl")]
    pub(super) journal: String,
    /// Print no progress lines.
    #[arg(long, short)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) root: super::RootArg,
    /// Where the run executes: `local` (this process) or `restate` (a Restate server with
    /// a registered agc worker; see docs/restate.md). With `restate`, `--resume` takes the
    /// run id.
    #[arg(long, value_name = "ENGINE", default_value = "local")]
    pub(super) engine: String,
    /// The Restate ingress URL (`--engine restate`).
    #[arg(long, value_name = "URL")]
    pub(super) ingress: Option<String>,
    /// The Restate admin URL, to check that agc's services are registered.
    #[arg(long, value_name = "URL")]
    pub(super) admin: Option<String>,
    #[command(flatten)]
    pub(super) eval_limits: super::eval_limits::EvalLimitArgs,
}

impl RunArgs {
    /// The files the command reads, which `--record` must not be.
    pub(super) fn inputs(&self) -> Vec<&Path> {
        [&self.file, &self.params, &self.script]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
            .collect()
    }
}
