//! `ask-model-agent QUESTION...`: asks the model named by the environment (`OPENAI_API_KEY`,
//! `OPENAI_BASE_URL`, `OPENAI_MODEL`) through the ask-model graph, and prints the run record.
//! Exits 0 when the run succeeded, 1 when it failed, 2 on a usage or setup error.

use ask_model_agent::ChatModel;
use ask_model_runner::{MemoryJournal, Params, RunOptions, RunStatus};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let question = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    if question.trim().is_empty() {
        eprintln!("usage: ask-model-agent QUESTION...");
        return ExitCode::from(2);
    }
    let model = match ChatModel::from_env() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("ask-model-agent: {e}");
            return ExitCode::from(2);
        }
    };
    let params = Params {
        question,
        system: None,
    };
    let mut journal = MemoryJournal::default();
    match ask_model_runner::run(&params, model, &mut journal, &RunOptions::default()).await {
        Ok(record) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&record).unwrap_or_default()
            );
            if record.status == RunStatus::Succeeded {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("ask-model-agent: {e}");
            ExitCode::from(2)
        }
    }
}
