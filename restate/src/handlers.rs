//! Which [`Handler`] serves a call: one fixed handler for every run (a generated runner's
//! typed handlers, any `Arc<dyn Handler>`), or the scripted handler of `agc run --script`,
//! one per run so that each run's script counters and invocation log stay its own.

use crate::wire::TaskSpec;
use agc_runtime::run::Handler;
use agc_runtime::run::script::{Script, ScriptHandler};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Chooses the handler for one call.
pub trait Handlers: Send + Sync + 'static {
    fn handler(&self, spec: &TaskSpec) -> Result<Arc<dyn Handler>, String>;
}

/// The same handler for every run.
pub struct Fixed(pub Arc<dyn Handler>);

impl Handlers for Fixed {
    fn handler(&self, _spec: &TaskSpec) -> Result<Arc<dyn Handler>, String> {
        Ok(Arc::clone(&self.0))
    }
}

/// How many runs' scripted handlers stay in memory (the oldest is dropped first; its log
/// file keeps its counters, so a later call of that run reloads them).
const KEPT_RUNS: usize = 256;

/// `agc run`'s scripted handler, one per run: the run's own script (sent with the run by
/// `agc run --engine restate --script S.yaml`) or the worker's default script. With a log
/// directory, each run's invocations go to `DIR/<run id>.jsonl` (read back after a restart,
/// so a call re-issued after a crash gets the result it got the first time).
pub struct Scripted {
    default: Script,
    log_dir: Option<PathBuf>,
    runs: Mutex<Runs>,
}

/// The runs' handlers, and the order they were made in (for eviction).
#[derive(Default)]
struct Runs {
    map: HashMap<String, Arc<ScriptHandler>>,
    order: VecDeque<String>,
}

impl Scripted {
    pub fn new(default: Script, log_dir: Option<PathBuf>) -> Scripted {
        Scripted {
            default,
            log_dir,
            runs: Mutex::new(Runs::default()),
        }
    }

    /// The invocation log file of `run_id` (under the log directory).
    pub fn log_path(dir: &std::path::Path, run_id: &str) -> PathBuf {
        let safe: String = run_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        dir.join(format!("{safe}.jsonl"))
    }
}

impl Handlers for Scripted {
    fn handler(&self, spec: &TaskSpec) -> Result<Arc<dyn Handler>, String> {
        let mut guard = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let Runs { map, order } = &mut *guard;
        if let Some(h) = map.get(&spec.run_id) {
            return Ok(Arc::clone(h) as Arc<dyn Handler>);
        }
        let script = match &spec.script {
            Some(v) => serde_json::from_value::<Script>(v.clone())
                .map_err(|e| format!("the run's script is not an agc.script/v1 script: {e}"))?,
            None => self.default.clone(),
        };
        let handler = ScriptHandler::new(script);
        let handler = match &self.log_dir {
            Some(dir) => handler
                .with_log(&Self::log_path(dir, &spec.run_id))
                .map_err(|e| format!("cannot open the invocation log: {e}"))?,
            None => handler,
        };
        let handler = Arc::new(handler);
        map.insert(spec.run_id.clone(), Arc::clone(&handler));
        order.push_back(spec.run_id.clone());
        while order.len() > KEPT_RUNS {
            if let Some(old) = order.pop_front() {
                map.remove(&old);
            }
        }
        Ok(handler)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_runtime::plan::NodeKind;

    fn spec(run_id: &str, script: Option<serde_json::Value>) -> TaskSpec {
        TaskSpec {
            run_id: run_id.into(),
            path: "n".into(),
            node: changelog_release_runner::plan().nodes[0].clone(),
            kind: NodeKind::Task,
            attempt: 1,
            inputs: Default::default(),
            item: None,
            iteration: None,
            resumed: false,
            timeout_seconds: None,
            script,
            checkpoint: None,
        }
    }

    #[test]
    fn log_files_are_one_per_run_with_safe_names() {
        let dir = std::path::Path::new("/logs");
        assert_eq!(
            Scripted::log_path(dir, "run-1"),
            std::path::PathBuf::from("/logs/run-1.jsonl")
        );
        assert_eq!(
            Scripted::log_path(dir, "../x/y"),
            std::path::PathBuf::from("/logs/.._x_y.jsonl")
        );
    }

    #[test]
    fn each_run_gets_its_own_handler_and_a_bad_script_is_refused() {
        let s = Scripted::new(Script::default(), None);
        let a = s.handler(&spec("a", None)).unwrap();
        let a2 = s.handler(&spec("a", None)).unwrap();
        let b = s.handler(&spec("b", None)).unwrap();
        assert!(Arc::ptr_eq(&a, &a2));
        assert!(!Arc::ptr_eq(&a, &b));
        let bad = s.handler(&spec("c", Some(serde_json::json!({"nodes": 3}))));
        assert!(bad.err().unwrap().contains("agc.script/v1"));
    }
}
