//! Serving the endpoint over HTTP/2 cleartext with our own accept loop.
//!
//! Why not the SDK's `HttpServer`: with h2 0.4.16 and later, a connection that receives many
//! small DATA frames exhausts a budget of half the connection window and is closed with
//! `GOAWAY ENHANCE_YOUR_CALM`. Restate streams a replay as many small frames, so replaying a
//! journal of about 3,000 entries or more fails and the invocation backs off forever. A
//! 16 MiB connection window raises that budget far past any journal we replay (tested with
//! tens of thousands of entries; see `restate/tests/restate.rs`, the long-loop test).

use restate_sdk::endpoint::Endpoint;
use restate_sdk::hyper::HyperEndpoint;
use std::net::SocketAddr;
use tokio::net::TcpListener;

/// The HTTP/2 connection window the worker advertises (and the stream window).
pub const CONNECTION_WINDOW: u32 = 16 << 20;

/// The window in force: [`CONNECTION_WINDOW`], or `AGC_RESTATE_H2_WINDOW` (bytes) when set,
/// which exists to reproduce the trap (`AGC_RESTATE_H2_WINDOW=65535` is h2's default).
pub fn connection_window() -> u32 {
    std::env::var("AGC_RESTATE_H2_WINDOW")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&w: &u32| w >= 65_535)
        .unwrap_or(CONNECTION_WINDOW)
}

/// Serves `endpoint` on `listener` until the process ends.
pub async fn serve(listener: TcpListener, endpoint: Endpoint) -> std::io::Result<()> {
    let service = HyperEndpoint::new(endpoint);
    let window = connection_window();
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let conn =
                hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                    .initial_connection_window_size(window)
                    .initial_stream_window_size(window)
                    .serve_connection(io, service);
            // A connection that fails (Restate went away) only ends that connection.
            let _ = conn.await;
        });
    }
}

/// Binds `addr` (port 0 picks a free port) and returns the listener and its address.
pub async fn bind(addr: SocketAddr) -> std::io::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    Ok((listener, local))
}
