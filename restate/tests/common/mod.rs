//! A Restate server from the npm package on free loopback ports with a temp data dir, the
//! worker binary, and the helpers the tests share. Every wait is bounded; the server and
//! workers are stopped by PID when dropped.
//!
//! Without the server binary the tests print a notice and skip; under `CI=true` a missing
//! server is a failure (`.ci/run` installs it with `npm ci --ignore-scripts`).

#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The server binary: `AGC_RESTATE_SERVER`, else the npm package under `restate/server`.
pub fn server_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("AGC_RESTATE_SERVER") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("server/node_modules/@restatedev/restate-server-linux-x64/bin/restate-server");
    p.is_file().then_some(p)
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A new empty folder `<system temp dir>/agc-restate-<name>-<random>`, removed with everything
/// in it when dropped: at the end of the test, pass or fail. Declare it before the workers and
/// servers that write into it, so that they are stopped first. It derefs to its path.
pub fn temp_dir(name: &str) -> TempDir {
    TempDir(
        tempfile::Builder::new()
            .prefix(&format!("agc-restate-{name}-"))
            .tempdir()
            .expect("a temporary folder"),
    )
}

pub struct TempDir(tempfile::TempDir);

impl Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A running single-node server.
pub struct Server {
    child: Child,
    /// Its data and log, removed after `drop` has stopped it.
    pub dir: TempDir,
    pub ingress: String,
    pub admin: String,
}

impl Server {
    /// Starts a server, or returns `None` (with a notice) when the binary is absent outside CI.
    pub fn start(name: &str) -> Option<Server> {
        let Some(bin) = server_binary() else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but the Restate server is not installed (npm ci --ignore-scripts --prefix restate/server)"
            );
            println!(
                "note: the Restate server is not installed (npm ci --ignore-scripts --prefix restate/server); {name} skipped"
            );
            return None;
        };
        let dir = temp_dir(name);
        let (ingress, admin, fabric) = (free_port(), free_port(), free_port());
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        let child = Command::new(bin)
            .arg("--base-dir")
            .arg(dir.join("data"))
            .args([
                "--bind-ip",
                "127.0.0.1",
                "--listen-mode",
                "tcp",
                "--no-logo",
            ])
            .args(["--log-format", "compact", "--default-num-partitions", "2"])
            .args(["--bind-port", &fabric.to_string()])
            .env("DO_NOT_TRACK", "1")
            .env("RESTATE_ADMIN__BIND_PORT", admin.to_string())
            .env("RESTATE_INGRESS__BIND_PORT", ingress.to_string())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("the Restate server starts");
        let server = Server {
            child,
            dir,
            ingress: format!("http://127.0.0.1:{ingress}"),
            admin: format!("http://127.0.0.1:{admin}"),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let up = http("GET", &format!("{}/health", server.admin), None)
                .is_ok_and(|r| r.0 == 200)
                && http("GET", &format!("{}/restate/health", server.ingress), None)
                    .is_ok_and(|r| r.0 == 200);
            if up {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the Restate server did not become healthy in 60 s; see {}",
                server.dir.join("server.log").display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(server)
    }

    /// Registers the worker at `url` through `agc restate register`.
    /// `agc run GRAPH --script SCRIPT --engine restate --ingress <this server> -q --record
    /// RECORD`: the run most tests submit.
    pub fn run_args<'a>(
        &'a self,
        graph: &'a str,
        script: &'a str,
        record: &'a str,
    ) -> [&'a str; 11] {
        [
            "run",
            graph,
            "--script",
            script,
            "--engine",
            "restate",
            "--ingress",
            &self.ingress,
            "-q",
            "--record",
            record,
        ]
    }

    pub fn register(&self, url: &str) {
        let code = agc(&["restate", "register", url, "--admin", &self.admin]);
        assert_eq!(code, 0, "agc restate register {url}");
    }

    /// The number of journal entries of the workflow run `run_id`.
    pub fn journal_len(&self, run_id: &str) -> u64 {
        let q = format!(
            "select count(*) as n from sys_journal where id in (select id from sys_invocation where target_service_key = '{run_id}' and target_handler_name = 'run')"
        );
        let body = serde_json::json!({ "query": q }).to_string();
        let (_, text) = http_accept_json("POST", &format!("{}/query", self.admin), Some(&body))
            .unwrap_or_default();
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        v["rows"][0]["n"].as_u64().unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running `agc-restate-worker`.
pub struct Worker {
    child: Child,
    pub port: u16,
}

impl Worker {
    /// Starts the worker on `port` (0: a free one) with per-run invocation logs in `log_dir`.
    pub fn start(port: u16, log_dir: &Path) -> Worker {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agc-restate-worker"))
            .args(["--listen", &format!("127.0.0.1:{port}"), "--log-dir"])
            .arg(log_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the worker starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the worker reports its address within 30 s");
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected worker output `{line}`"));
        let port = addr.rsplit(':').next().unwrap().parse().unwrap();
        Worker { child, port }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `kill -9` (SIGKILL by PID).
    pub fn kill9(mut self) {
        self.kill9_here();
    }

    fn kill9_here(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What most tests set up: a server, one worker registered with it (its invocation logs in
/// `logs`), and `out` for the record (`record`) and the test's own inputs. The fields drop in
/// their order: the worker first, then the folders, the server last.
pub struct Live {
    pub worker: Worker,
    pub logs: TempDir,
    pub out: TempDir,
    /// `out/record.json`.
    pub record: String,
    pub server: Server,
}

impl Live {
    /// Starts it all, or `None` (with a notice) where [`Server::start`] skips.
    pub fn start(name: &str) -> Option<Live> {
        let server = Server::start(name)?;
        let logs = temp_dir(&format!("{name}-logs"));
        let worker = Worker::start(0, &logs);
        server.register(&worker.url());
        let out = temp_dir(&format!("{name}-out"));
        let record = out.join("record.json").display().to_string();
        Some(Live {
            worker,
            logs,
            out,
            record,
            server,
        })
    }

    /// `kill -9` of the worker, then a new one on the same port with the same logs.
    pub fn restart_worker(&mut self) {
        let port = self.worker.port;
        self.worker.kill9_here();
        self.worker = Worker::start(port, &self.logs);
    }

    /// `agc run GRAPH --script SCRIPT ... --record <record>` on this server, and `extra`.
    pub fn run_args<'a>(
        &'a self,
        graph: &'a str,
        script: &'a str,
        extra: &[&'a str],
    ) -> Vec<&'a str> {
        let mut args = self.server.run_args(graph, script, &self.record).to_vec();
        args.extend(extra);
        args
    }

    /// `agc run --resume RUN_ID [extra] --engine restate ... --record <record>`: its exit code.
    pub fn resume(&self, run_id: &str, extra: &[&str]) -> i32 {
        let mut args = vec!["run", "--resume", run_id];
        args.extend(extra);
        args.extend([
            "--engine",
            "restate",
            "--ingress",
            &self.server.ingress,
            "-q",
            "--record",
            &self.record,
        ]);
        agc(&args)
    }

    /// The record `agc` last wrote, as written.
    pub fn record(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(&self.record).unwrap()).unwrap()
    }

    /// The run id of the record `agc` last wrote.
    pub fn run_id(&self) -> String {
        self.record()["run_id"].as_str().unwrap().to_string()
    }

    /// `POST .../AgcRun/RUN_ID/decide` with `body`: (status, body).
    pub fn decide(&self, run_id: &str, body: &Value) -> (u16, String) {
        let url = format!(
            "{}/restate/call/AgcRun/{run_id}/decide",
            self.server.ingress
        );
        http("POST", &url, Some(&body.to_string())).unwrap()
    }

    /// `POST .../AgcRun/RUN_ID/status`: the run's view, or an empty string when unreachable.
    pub fn status(&self, run_id: &str) -> String {
        let url = format!(
            "{}/restate/call/AgcRun/{run_id}/status",
            self.server.ingress
        );
        http("POST", &url, None).map(|(_, t)| t).unwrap_or_default()
    }

    /// Waits (bounded) until the run no longer awaits a human.
    pub fn wait_left_human(&self, run_id: &str, what: &str) {
        wait_until(what, 120, || {
            let s = self.status(run_id);
            !s.is_empty() && !s.contains("awaiting_human")
        });
    }

    /// Waits (bounded) until the run's status is `succeeded`.
    pub fn wait_succeeded(&self, run_id: &str, what: &str) {
        wait_until(what, 60, || {
            serde_json::from_str::<Value>(&self.status(run_id))
                .is_ok_and(|v| v["status"] == "succeeded")
        });
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `agc ARGS` in-process, bounded to 5 minutes.
pub fn agc(args: &[&str]) -> i32 {
    agc_async(args).wait()
}

/// `agc ARGS` on a thread; join with [`Pending::wait`].
pub struct Pending(mpsc::Receiver<i32>, String);

pub fn agc_async(args: &[&str]) -> Pending {
    let mut all = vec!["agc".to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    let what = format!("{args:?}");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(agc::cli::run(all));
    });
    Pending(rx, what)
}

impl Pending {
    pub fn wait(self) -> i32 {
        self.0
            .recv_timeout(Duration::from_secs(300))
            .unwrap_or_else(|_| panic!("agc {} did not finish within 5 minutes", self.1))
    }
}

/// A minimal HTTP/1.1 request (loopback only): (status, body).
pub fn http(method: &str, url: &str, body: Option<&str>) -> std::io::Result<(u16, String)> {
    request(method, url, body, false)
}

fn http_accept_json(method: &str, url: &str, body: Option<&str>) -> std::io::Result<(u16, String)> {
    request(method, url, body, true)
}

fn request(
    method: &str,
    url: &str,
    body: Option<&str>,
    accept_json: bool,
) -> std::io::Result<(u16, String)> {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut s = TcpStream::connect(host)?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    let kind = if body.is_some() {
        "Content-Type: application/json\r\n"
    } else {
        ""
    };
    let accept = if accept_json {
        "Accept: application/json\r\n"
    } else {
        ""
    };
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{kind}{accept}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    Ok((status, body))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// Invocation log lines of every run logged in `dir`.
pub fn invocations(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if let Ok(text) = std::fs::read_to_string(e.path()) {
            out.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
        }
    }
    out
}

/// Waits (bounded) until `pred` holds.
pub fn wait_until(what: &str, secs: u64, mut pred: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !pred() {
        assert!(
            Instant::now() < deadline,
            "timed out after {secs} s waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A record with run ids and timestamps blanked, for comparing runs of two engines.
pub fn normalized(text: &str) -> Value {
    let mut v: Value = serde_json::from_str(text).expect("a JSON record");
    let run_id = v["run_id"].as_str().unwrap_or_default().to_string();
    blank(&mut v, &run_id);
    v
}

fn blank(v: &mut Value, run_id: &str) {
    match v {
        Value::String(s) => {
            let b = s.as_bytes();
            let stamp = b.len() >= 20
                && b[4] == b'-'
                && b[7] == b'-'
                && b[10] == b'T'
                && b[..4].iter().all(u8::is_ascii_digit);
            if stamp {
                *s = "<time>".into();
            } else if !run_id.is_empty() && s.contains(run_id) {
                *s = s.replace(run_id, "<run>");
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| blank(x, run_id)),
        Value::Object(m) => m.values_mut().for_each(|x| blank(x, run_id)),
        _ => {}
    }
}
