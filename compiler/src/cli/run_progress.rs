//! `agc run`'s progress on stderr (one line per event, or a bar redrawn in place on a
//! terminal) and, after a failed run, the summary of what failed and why.
//!
//! Neither ever shows a value, only scope paths, statuses and errors: an error is the
//! handler's failure class and message (or the runtime's own, such as an output that does not
//! fit its declaration, which names the type and not the value).

use agc_runtime::run::{NodeStatus, Observer, Progress, RunRecord};

/// What a timer waits for, in a progress line.
fn waiting_for(kind: agc_runtime::run::core::TimerKind) -> &'static str {
    use agc_runtime::run::core::TimerKind;
    match kind {
        TimerKind::Backoff => "retry backoff",
        TimerKind::Wait => "wait",
        TimerKind::HumanTimeout => "the human's timeout",
    }
}

/// Progress lines on stderr.
pub(super) struct Lines;

/// A call's result that leaves its node running (a retry follows, a checkpoint was
/// answered) is not news: progress shows terminal statuses and pauses only.
fn settled(p: &Progress) -> bool {
    match p {
        Progress::Finished { status, .. } => {
            status.is_terminal() || *status == agc_runtime::run::NodeStatus::AwaitingHuman
        }
        _ => true,
    }
}

impl Observer for Lines {
    fn report(&self, p: &Progress) {
        if !settled(p) {
            return;
        }
        match p {
            Progress::Started {
                path,
                attempt,
                resumed,
            } => {
                let again = if *resumed {
                    ", again after a resume"
                } else {
                    ""
                };
                if *attempt > 1 {
                    eprintln!("  started  {path} (attempt {attempt}{again})");
                } else {
                    eprintln!("  started  {path}{again}");
                }
            }
            Progress::Finished {
                path,
                status,
                error,
            } => match error {
                // A failed node says why (issue 47): its last attempt's class and message.
                Some(e) => eprintln!("  finished {path}: {} ({})", status.as_str(), one_line(e)),
                None => eprintln!("  finished {path}: {}", status.as_str()),
            },
            Progress::Waiting { path, until, kind } => {
                eprintln!("  waiting  {path} until {until} ({})", waiting_for(*kind));
            }
            Progress::Run { status } => eprintln!("run {}", status.as_str()),
        }
    }
}

/// A one-line progress bar on stderr, for terminals: node runs finished, calls running, and the
/// latest event, redrawn in place (values never appear, only scope paths and statuses).
#[derive(Default)]
pub(super) struct Bar {
    counts: std::sync::Mutex<BarCounts>,
}

#[derive(Default)]
struct BarCounts {
    started: u64,
    finished: u64,
    failed: u64,
}

impl Observer for Bar {
    fn report(&self, p: &Progress) {
        use std::io::Write;
        if !settled(p) {
            return;
        }
        let mut c = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let last = match p {
            Progress::Started { path, .. } => {
                c.started += 1;
                format!("started {path}")
            }
            Progress::Finished {
                path,
                status,
                error,
            } => {
                c.finished += 1;
                if status.as_str() == "failed" {
                    c.failed += 1;
                }
                match error {
                    Some(e) => format!("{path}: {} ({})", status.as_str(), one_line(e)),
                    None => format!("{path}: {}", status.as_str()),
                }
            }
            Progress::Waiting { path, until, kind } => {
                format!("{path} waits until {until} ({})", waiting_for(*kind))
            }
            Progress::Run { status } => {
                eprintln!(
                    "\r\x1b[2K{} node runs finished, {} failed: run {}",
                    c.finished,
                    c.failed,
                    status.as_str()
                );
                return;
            }
        };
        let line = bar_line(&c, &last);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
    }
}

/// The bar's line: a 20-cell bar (node runs finished out of calls started), the counts, the
/// latest event; at most 120 bytes.
fn bar_line(c: &BarCounts, last: &str) -> String {
    let running = c.started.saturating_sub(c.finished);
    let width = 20usize;
    let done = (c.finished.min(c.started) * width as u64)
        .checked_div(c.started)
        .unwrap_or(0) as usize;
    let bar = format!("{}{}", "#".repeat(done), ".".repeat(width - done));
    let mut line = format!(
        "[{bar}] {} finished, {running} running, {} failed  {last}",
        c.finished, c.failed
    );
    line.truncate(line.floor_char_boundary(120));
    line
}

/// An error on one line, at most 300 characters (a handler's message may hold newlines).
fn one_line(e: &str) -> String {
    let mut s: String = e.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() > 300 {
        s.truncate(s.floor_char_boundary(299));
        s.push('…');
    }
    s
}

/// At most this many failed nodes are listed after a failed run; the rest are counted.
const SUMMARY_MAX: usize = 10;

/// The lines printed after a run that did not succeed, one per failed node run (in the
/// record's order) with why it failed: its last attempt's error, else the run's error
/// diagnostics about it, else its skip reason. Empty when no node run failed.
pub(super) fn failure_summary(record: &RunRecord) -> Vec<String> {
    let failed: Vec<_> = record
        .nodes
        .iter()
        .filter(|n| n.status == NodeStatus::Failed)
        .collect();
    if failed.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "{} node run{} failed:",
        failed.len(),
        if failed.len() == 1 { "" } else { "s" }
    )];
    for n in failed.iter().take(SUMMARY_MAX) {
        let why = n
            .attempts
            .iter()
            .rev()
            .find_map(|a| a.error.clone())
            .or_else(|| {
                let said: Vec<String> = record
                    .diagnostics
                    .iter()
                    .filter(|d| {
                        d.severity == "error"
                            && d.node_id
                                .as_deref()
                                .is_some_and(|id| id == n.scope_path || id == n.node_id)
                    })
                    .map(|d| format!("{}: {}", d.code, d.message))
                    .collect();
                (!said.is_empty()).then(|| said.join("; "))
            })
            .or_else(|| n.skip_reason.clone())
            .unwrap_or_else(|| "no error was recorded".into());
        lines.push(format!("  {}: {}", n.scope_path, one_line(&why)));
    }
    if failed.len() > SUMMARY_MAX {
        lines.push(format!("  ... and {} more", failed.len() - SUMMARY_MAX));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::{BarCounts, bar_line, failure_summary, one_line};

    #[test]
    fn the_bar_fills_with_finished_runs_and_stays_short() {
        let c = BarCounts {
            started: 4,
            finished: 1,
            failed: 0,
        };
        assert_eq!(
            bar_line(&c, "started b"),
            "[#####...............] 1 finished, 3 running, 0 failed  started b"
        );
        let empty = BarCounts::default();
        assert!(bar_line(&empty, "").starts_with("[....................] 0 finished"));
        let long = "é".repeat(200);
        assert!(bar_line(&c, &long).len() <= 120);
    }

    #[test]
    fn an_error_shows_on_one_short_line() {
        assert_eq!(one_line("tool_error: a\n  b\tc"), "tool_error: a b c");
        assert!(one_line(&"é".repeat(400)).len() <= 302);
    }

    /// Issue 47 item 8: after a failed run, each failed node run with why (its last
    /// attempt's error, else the run's error diagnostics about it), in record order.
    #[test]
    fn the_summary_lists_each_failed_node_with_its_error() {
        let record: agc_runtime::run::RunRecord = serde_json::from_value(serde_json::json!({
            "ags_version": "1.0", "kind": "AgenticGraphRun", "run_id": "run-1",
            "graph_id": "g", "graph_digest": "d", "status": "failed",
            "harness": { "name": "agc-runtime", "version": "0", "conformance_level": 3 },
            "started_at": "2026-01-01T00:00:00Z",
            "nodes": [
                { "node_id": "ok", "scope_path": "ok", "type": "task", "status": "succeeded" },
                { "node_id": "draft", "scope_path": "draft", "type": "task", "status": "failed",
                  "attempts": [
                    { "attempt": 1, "status": "failed", "started_at": "2026-01-01T00:00:00Z", "error": "transient: try again" },
                    { "attempt": 2, "status": "failed", "started_at": "2026-01-01T00:00:01Z", "error": "tool_error: rate limited" }
                  ] },
                { "node_id": "publish", "scope_path": "publish", "type": "task", "status": "failed" }
            ],
            "diagnostics": [
                { "code": "RT033", "severity": "error", "message": "input `url` does not resolve", "node_id": "publish" }
            ]
        }))
        .unwrap();
        assert_eq!(
            failure_summary(&record),
            vec![
                "2 node runs failed:",
                "  draft: tool_error: rate limited",
                "  publish: RT033: input `url` does not resolve",
            ]
        );
    }
}
