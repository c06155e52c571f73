//! `agc restate register URL [--admin URL] [--force]`: registers an agc worker with a Restate
//! server, and the small blocking HTTP/1.1 client `agc run --engine restate` uses (plain
//! `http://` only; agc does not link Restate's SDK or a TLS stack).

use crate::diag::Diagnostic;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub(crate) struct RestateArgs {
    #[command(subcommand)]
    command: RestateCommand,
}

#[derive(clap::Subcommand, Debug)]
enum RestateCommand {
    /// Register a worker (`agc-restate-worker`, or a runner serving agc's services) with the
    /// server's admin API, so runs can be submitted with `agc run --engine restate`.
    Register {
        /// The worker's URL as the server reaches it (`http://127.0.0.1:9080`).
        url: String,
        /// The server's admin URL.
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:9070")]
        admin: String,
        /// Overwrite an existing deployment at the same URL (development only: runs in flight
        /// on it may break; deploy a new version at a new URL instead).
        #[arg(long)]
        force: bool,
    },
}

pub(crate) fn run(args: RestateArgs) -> i32 {
    match args.command {
        RestateCommand::Register { url, admin, force } => register(&url, &admin, force),
    }
}

fn register(url: &str, admin: &str, force: bool) -> i32 {
    let body = serde_json::json!({ "uri": url, "force": force }).to_string();
    match request(
        "POST",
        &format!("{}/deployments", admin.trim_end_matches('/')),
        Some(&body),
    ) {
        Ok(r) if r.ok() => {
            let services: Vec<String> = serde_json::from_str::<serde_json::Value>(&r.body)
                .ok()
                .and_then(|v| {
                    v["services"].as_array().map(|a| {
                        a.iter()
                            .filter_map(|s| s["name"].as_str().map(str::to_string))
                            .collect()
                    })
                })
                .unwrap_or_default();
            eprintln!("registered {url} with {admin}: {}", services.join(", "));
            0
        }
        Ok(r) => {
            report(Diagnostic::error(
                "AGC364",
                format!(
                    "Restate refused to register `{url}` (HTTP {}): {}",
                    r.status,
                    r.message()
                ),
            ));
            1
        }
        Err(d) => {
            report(d);
            1
        }
    }
}

fn report(d: Diagnostic) {
    let mut diags = vec![d];
    super::print_diagnostics(
        &mut diags,
        &crate::source::SourceMap::new(),
        super::FormatArg::Human,
        super::ColorArg::Auto,
        super::Stream::Stderr,
        false,
        false,
    );
}

/// An HTTP response.
pub(super) struct Response {
    pub(super) status: u16,
    pub(super) body: String,
}

impl Response {
    pub(super) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Restate's error message (`{"message": ...}`), or the body.
    pub(super) fn message(&self) -> String {
        serde_json::from_str::<serde_json::Value>(&self.body)
            .ok()
            .and_then(|v| v["message"].as_str().map(str::to_string))
            .unwrap_or_else(|| self.body.trim().to_string())
    }
}

/// How long one request may take (connect, send, and read the whole answer).
const TIMEOUT: Duration = Duration::from_secs(30);

/// One HTTP/1.1 request to an `http://host:port/path` URL; `Connection: close`, JSON body.
/// An unreachable server is AGC360.
pub(super) fn request(method: &str, url: &str, body: Option<&str>) -> Result<Response, Diagnostic> {
    let unreachable = |why: String| {
        Diagnostic::error("AGC360", format!("cannot reach Restate at `{url}`: {why}"))
    };
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| unreachable("only http:// URLs are supported".into()))?;
    let (hostport, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let addr = hostport
        .to_socket_addrs()
        .map_err(|e| unreachable(e.to_string()))?
        .next()
        .ok_or_else(|| unreachable("the host has no address".into()))?;
    let mut stream =
        TcpStream::connect_timeout(&addr, TIMEOUT).map_err(|e| unreachable(e.to_string()))?;
    let _ = stream.set_read_timeout(Some(TIMEOUT));
    let _ = stream.set_write_timeout(Some(TIMEOUT));
    let kind = if body.is_some() {
        "Content-Type: application/json\r\n"
    } else {
        ""
    };
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\nAccept: application/json\r\n{kind}Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .map_err(|e| unreachable(e.to_string()))?;
    read_response(BufReader::new(stream)).map_err(|e| unreachable(format!("bad answer: {e}")))
}

fn read_response(mut r: impl BufRead) -> std::io::Result<Response> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no HTTP status line"))?;
    let mut length: Option<usize> = None;
    let mut chunked = false;
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            break;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            if k == "content-length" {
                length = v.parse().ok();
            } else if k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| bad("bad chunk size"))?;
            if size == 0 {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            r.read_exact(&mut body[start..])?;
            line.clear();
            r.read_line(&mut line)?;
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    } else {
        r.read_to_end(&mut body)?;
    }
    Ok(Response {
        status,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_length_and_chunked_bodies() {
        let plain = "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello";
        let r = read_response(plain.as_bytes()).unwrap();
        assert_eq!((r.status, r.body.as_str()), (200, "hello"));
        let chunked = "HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"me\r\nd\r\nssage\":\"no\"}\r\n0\r\n\r\n";
        let r = read_response(chunked.as_bytes()).unwrap();
        assert_eq!(r.status, 409);
        assert_eq!(r.message(), "no");
    }

    #[test]
    fn an_unreachable_server_is_agc360() {
        // A port that was just free: the connection is refused.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let e = request("GET", &format!("http://127.0.0.1:{port}/health"), None)
            .err()
            .expect("refused");
        assert_eq!(e.code, "AGC360");
        let e = request("GET", "https://example.invalid/", None)
            .err()
            .unwrap();
        assert_eq!(e.code, "AGC360");
    }
}
