//! `--eval-stack`, `--eval-depth`, `--eval-memory`, `--eval-timeout`: the bounds of one
//! expression evaluation, shared by `agc eval` and `agc run` (issue 47: an expression can
//! never kill the process). What each bounds and how is in `agc_runtime::jq::meter`; an
//! exceeded bound is AGC043, and these flags raise it. `agc build` takes them too and writes
//! them into the plan (`eval_limits`); `agc run` starts from the plan's, and its own flags
//! replace those.

use agc_runtime::jq::Limits;

#[derive(clap::Args, Debug, Clone)]
pub(crate) struct EvalLimitArgs {
    /// jq: MiB of stack recursion may use (the recursion depth); default 64.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=4096))]
    eval_stack: Option<u32>,
    /// jq: how deeply a value built may nest; default 10000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    eval_depth: Option<u32>,
    /// jq: MiB of memory one evaluation may hold; default 1024.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    eval_memory: Option<u32>,
    /// jq: seconds one evaluation may run.
    #[arg(long, visible_alias = "timeout", value_name = "SECS", value_parser = positive_seconds)]
    eval_timeout: Option<f64>,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 86_400.0 => Ok(x),
        _ => Err(format!("`{s}` is not a number of seconds in (0, 86400]")),
    }
}

impl EvalLimitArgs {
    /// The limits given, as a plan carries them (`agc build --eval-…`).
    pub(crate) fn plan_limits(&self) -> agc_runtime::plan::EvalLimits {
        agc_runtime::plan::EvalLimits {
            stack_mib: self.eval_stack,
            depth: self.eval_depth,
            memory_mib: self.eval_memory,
            timeout_seconds: self.eval_timeout,
        }
    }

    /// The limits: each flag given replaces its part of `base`.
    pub(crate) fn limits(&self, base: Limits) -> Limits {
        self.plan_limits().apply(base)
    }
}

/// The flag that raises the limit `e` names.
pub(crate) fn flag_for(e: &agc_runtime::jq::Exceeded) -> &'static str {
    use agc_runtime::jq::Exceeded;
    match e {
        Exceeded::Recursion(_) => "--eval-stack MIB",
        Exceeded::Depth(_) => "--eval-depth N",
        Exceeded::Memory(_) => "--eval-memory MIB",
        Exceeded::Time(_) => "--eval-timeout SECS",
    }
}
