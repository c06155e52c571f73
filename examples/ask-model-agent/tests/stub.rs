//! The ask-model graph end to end through its generated async runner, against a stub
//! chat-completions server started in the test (loopback only, no internet): a 429 is a
//! `transient` failure the graph's retry policy retries, the 200 after it gives the output and
//! the tokens in the run record; a 400 is a `model_error`, not retried; a service that cannot
//! be reached is `transient` until the attempts run out.

use ask_model_agent::ChatModel;
use ask_model_runner::agc_runtime::run::{FixedClock, FixedIds};
use ask_model_runner::{MemoryJournal, Params, RunOptions, RunRecord, RunStatus, Usage};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request the stub received: its head (request line and headers) and its JSON body.
#[derive(Debug)]
struct Seen {
    head: String,
    body: Value,
}

/// A chat-completions stub on 127.0.0.1: answers each request with the next `(status, body)`
/// of its script (the last one again once the script is spent) and keeps what it was sent.
struct Stub {
    base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Stub {
    async fn start(script: Vec<(u16, Value)>) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base_url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            let mut n = 0;
            while let Ok((stream, _)) = listener.accept().await {
                let (status, body) = script[n.min(script.len() - 1)].clone();
                n += 1;
                answer(stream, status, &body, &log).await;
            }
        });
        Stub { base_url, seen }
    }

    fn requests(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

/// Reads one HTTP/1.1 request from `stream`, keeps it in `log`, and answers `status` with
/// `body`, closing the connection. The request is kept before the answer is written: once the
/// client has its answer, a test that counts the requests sees this one.
async fn answer(
    mut stream: TcpStream,
    status: u16,
    body: &Value,
    log: &Mutex<Vec<Seen>>,
) -> Option<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let request = Seen {
        head,
        body: serde_json::from_slice(&buf[head_end..head_end + length]).ok()?,
    };
    log.lock().unwrap().push(request);
    let text = body.to_string();
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        429 => "Too Many Requests",
        _ => "Status",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
    stream.write_all(response.as_bytes()).await.ok()?;
    stream.shutdown().await.ok()
}

/// An answer as the chat-completions API gives it.
fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "stub-model-2026-01-01",
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": content },
            "finish_reason": "stop"
        }],
        "usage": { "prompt_tokens": 21, "completion_tokens": 7, "total_tokens": 28 }
    })
}

fn api_error(message: &str, kind: &str) -> Value {
    json!({ "error": { "message": message, "type": kind, "param": null, "code": null } })
}

/// Runs the graph on `base_url` with a virtual clock (a retry's backoff is not waited).
async fn ask(base_url: &str) -> RunRecord {
    let model = ChatModel::new(base_url, "test-key", "stub-model").expect("client");
    let params = Params {
        question: "What is the capital of France?".into(),
        system: None,
    };
    let opts = RunOptions {
        clock: Arc::new(FixedClock::new()),
        ids: Arc::new(FixedIds::new("run")),
        ..RunOptions::default()
    };
    let mut journal = MemoryJournal::default();
    ask_model_runner::run(&params, model, &mut journal, &opts)
        .await
        .expect("the run runs")
}

/// The attempts of the `ask` node run: each one's error and usage.
fn node_attempts(record: &RunRecord) -> Vec<(Option<String>, Usage)> {
    let node = record
        .nodes
        .iter()
        .find(|n| n.node_id == "ask")
        .expect("ask ran");
    node.attempts
        .iter()
        .map(|a| (a.error.clone(), a.usage.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_is_retried_and_the_answer_and_its_tokens_are_recorded() {
    let stub = Stub::start(vec![
        (
            429,
            api_error("Rate limit reached for requests", "requests"),
        ),
        (200, completion("Paris.")),
    ])
    .await;
    let record = ask(&stub.base_url).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:#?}");

    let outputs = ask_model_runner::outputs(&record).expect("outputs");
    assert_eq!(outputs.answer, "Paris.");
    assert_eq!(outputs.model, "stub-model-2026-01-01");

    let attempts = node_attempts(&record);
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    let first = attempts[0].0.as_deref().unwrap_or_default();
    assert!(first.contains("transient"), "{first}");
    assert!(first.contains("429"), "{first}");
    assert!(first.contains("Rate limit reached"), "{first}");
    let tokens = Usage {
        input_tokens: Some(21),
        output_tokens: Some(7),
        total_tokens: Some(28),
        ..Usage::default()
    };
    assert_eq!(attempts[1].1, tokens);
    assert_eq!(record.usage.input_tokens, Some(21));
    assert_eq!(record.usage.output_tokens, Some(7));
    assert_eq!(record.usage.total_tokens, Some(28));

    let seen = stub.seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    for request in seen.iter() {
        assert!(
            request.head.starts_with("POST /v1/chat/completions "),
            "{}",
            request.head
        );
        assert!(
            request
                .head
                .to_ascii_lowercase()
                .contains("authorization: bearer test-key\r\n"),
            "{}",
            request.head
        );
        assert_eq!(request.body["model"], "stub-model");
        assert_eq!(request.body["messages"][0]["role"], "system");
        assert_eq!(
            request.body["messages"][0]["content"],
            "Answer briefly and precisely."
        );
        assert_eq!(request.body["messages"][1]["role"], "user");
        assert_eq!(
            request.body["messages"][1]["content"],
            "What is the capital of France?"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_is_a_model_error_and_is_not_retried() {
    let stub = Stub::start(vec![(
        400,
        api_error("Unsupported value: 'messages'", "invalid_request_error"),
    )])
    .await;
    let record = ask(&stub.base_url).await;
    assert_eq!(record.status, RunStatus::Failed, "{record:#?}");
    let attempts = node_attempts(&record);
    assert_eq!(attempts.len(), 1, "{attempts:#?}");
    let error = attempts[0].0.as_deref().unwrap_or_default();
    assert!(error.contains("model_error"), "{error}");
    assert!(error.contains("Unsupported value"), "{error}");
    assert_eq!(stub.requests(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_service_fails_the_run_once_the_attempts_run_out() {
    let stub = Stub::start(vec![(
        503,
        api_error("The server is overloaded", "server_error"),
    )])
    .await;
    let record = ask(&stub.base_url).await;
    assert_eq!(record.status, RunStatus::Failed, "{record:#?}");
    let attempts = node_attempts(&record);
    assert_eq!(attempts.len(), 3, "max_attempts: 3");
    assert!(
        attempts
            .iter()
            .all(|a| a.0.as_deref().is_some_and(|e| e.contains("transient")))
    );
    assert_eq!(stub.requests(), 3);
    assert!(record.usage.input_tokens.is_none());
}

#[test]
fn statuses_map_to_failure_classes() {
    use ask_model_agent::failure_class;
    use ask_model_runner::FailureClass::{ModelError, Transient};
    for (status, class) in [
        (429, Transient),
        (500, Transient),
        (502, Transient),
        (503, Transient),
        (400, ModelError),
        (401, ModelError),
        (404, ModelError),
        (422, ModelError),
    ] {
        assert_eq!(failure_class(status), class, "HTTP {status}");
    }
}
