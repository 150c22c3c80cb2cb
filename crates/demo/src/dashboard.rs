//! The demo's local web server: the live metrics dashboard that `open_dashboard` points an iframe
//! at (000 §3), and the page `link_account` sends the user to by URL elicitation.
//!
//! It starts once, lazily, on `127.0.0.1` with a port the OS picks, and serves only requests that
//! carry a capability token (`?token=`) it issued itself: random, 128 bits, valid for [`TOKEN_TTL`].
//! No token → 401; an unknown, expired or wrong-kind token → 403. Nothing uses cookies or storage,
//! so the page works in an iframe sandboxed with `allow-scripts` only (an opaque origin): the JSON
//! endpoint answers with `Access-Control-Allow-Origin: *`, which is safe because the token, not the
//! origin, is what authorizes.
//!
//! Routes:
//! - `GET /dashboard?token=T` — the page: a few numbers and a sparkline, refreshed every second.
//! - `GET /dashboard/metrics?token=T` — the JSON the page polls.
//! - `GET /link?token=T` — the account-linking page; its button posts to
//! - `POST /link/confirm?token=T` — marks the linking done and wakes the waiting tool call.

use std::{
    collections::HashMap,
    convert::Infallible,
    fmt::Write as _,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex, MutexGuard,
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{
    body::Incoming,
    header::{self, HeaderValue},
    Method, Request, Response, StatusCode,
};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::sync::{watch, OnceCell};

/// How long a token issued by this server stays valid.
pub const TOKEN_TTL: Duration = Duration::from_secs(10 * 60);

/// Entries in the demo's "cache": bumped by every dashboard poll and every download, emptied by
/// `purge_cache`. It holds nothing; it exists so a destructive tool has something harmless to do.
pub static CACHE_ENTRIES: AtomicU64 = AtomicU64::new(0);

static SERVER: OnceCell<DashboardServer> = OnceCell::const_new();

/// The running server. Obtain it with [`DashboardServer::get`].
pub struct DashboardServer {
    port: u16,
    state: Arc<State>,
}

struct State {
    port: u16,
    started: Instant,
    grants: Mutex<HashMap<String, Grant>>,
    polls: AtomicU64,
}

struct Grant {
    expires: Instant,
    kind: GrantKind,
}

enum GrantKind {
    Dashboard { title: String },
    Link { linked: watch::Sender<bool> },
}

/// A dashboard view issued by [`DashboardServer::open_dashboard`].
pub struct IssuedDashboard {
    pub token: String,
    pub url: String,
}

/// An account-linking page issued by [`DashboardServer::open_link`].
pub struct IssuedLink {
    pub token: String,
    pub url: String,
    /// Becomes `true` when the user confirms on the page.
    pub linked: watch::Receiver<bool>,
}

impl DashboardServer {
    /// The server, started on first use. Fails only if no loopback port can be bound.
    pub(crate) async fn get() -> Result<&'static DashboardServer, String> {
        SERVER
            .get_or_try_init(|| async {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                    .await
                    .map_err(|e| format!("could not start the dashboard server on 127.0.0.1: {e}"))?;
                let port = listener
                    .local_addr()
                    .map_err(|e| format!("could not read the dashboard server's port: {e}"))?
                    .port();
                let state = Arc::new(State {
                    port,
                    started: Instant::now(),
                    grants: Mutex::new(HashMap::new()),
                    polls: AtomicU64::new(0),
                });
                tokio::spawn(accept_loop(listener, state.clone()));
                eprintln!("mcp-canvas-demo: dashboard server on http://127.0.0.1:{port}");
                Ok(DashboardServer { port, state })
            })
            .await
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Issues a token for one dashboard view titled `title`.
    pub(crate) fn open_dashboard(&self, title: &str) -> Result<IssuedDashboard, String> {
        let token = random_hex(16)?;
        self.state.insert(&token, GrantKind::Dashboard { title: title.to_owned() });
        let url = format!("http://127.0.0.1:{}/dashboard?token={token}", self.port);
        Ok(IssuedDashboard { token, url })
    }

    /// Issues a token for one account-linking page.
    pub(crate) fn open_link(&self) -> Result<IssuedLink, String> {
        let token = random_hex(16)?;
        let (linked_tx, linked_rx) = watch::channel(false);
        self.state.insert(&token, GrantKind::Link { linked: linked_tx });
        let url = self.link_url(&token);
        Ok(IssuedLink { token, url, linked: linked_rx })
    }

    /// The link page's URL for `token`.
    pub fn link_url(&self, token: &str) -> String {
        format!("http://127.0.0.1:{}/link?token={token}", self.port)
    }

    /// Whether the link page of a still-valid `token` was confirmed, as a watch.
    pub fn watch_link(&self, token: &str) -> Option<watch::Receiver<bool>> {
        let now = Instant::now();
        match self.state.lock().get(token) {
            Some(Grant { expires, kind: GrantKind::Link { linked } }) if *expires > now => Some(linked.subscribe()),
            _ => None,
        }
    }

    /// Forgets a token before it expires (a finished link).
    pub fn revoke(&self, token: &str) {
        self.state.lock().remove(token);
    }
}

impl State {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Grant>> {
        // A panic while holding the lock cannot leave the map inconsistent; keep serving.
        self.grants.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn insert(&self, token: &str, kind: GrantKind) {
        let now = Instant::now();
        let mut grants = self.lock();
        grants.retain(|_, grant| grant.expires > now);
        grants.insert(token.to_owned(), Grant { expires: now + TOKEN_TTL, kind });
    }
}

/// `n` random bytes from the OS, hex-encoded.
pub(crate) fn random_hex(n: usize) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| format!("the OS random number generator failed: {e}"))?;
    Ok(hex(&bytes))
}

pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

async fn accept_loop(listener: tokio::net::TcpListener, state: Arc<State>) {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("mcp-canvas-demo: dashboard server accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(route(&state, request)) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

type Reply = Response<Full<Bytes>>;

fn route(state: &State, request: Request<Incoming>) -> Reply {
    // Only our own authority: a page on another host name that resolves to 127.0.0.1 (DNS
    // rebinding) must not reach the dashboard with the user's browser.
    let host_ok = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).is_some_and(|host| {
        host == format!("127.0.0.1:{}", state.port) || host == format!("localhost:{}", state.port)
    });
    if !host_ok {
        return plain(StatusCode::FORBIDDEN, "unexpected Host header\n");
    }
    let path = request.uri().path();
    let token = request.uri().query().and_then(|query| {
        query.split('&').find_map(|pair| pair.strip_prefix("token=")).filter(|t| !t.is_empty())
    });
    let method = request.method();
    match (method, path) {
        (&Method::GET, "/dashboard") | (&Method::GET, "/dashboard/metrics") | (&Method::GET, "/link") => {}
        (&Method::POST, "/link/confirm") => {}
        (_, "/dashboard" | "/dashboard/metrics" | "/link" | "/link/confirm") => {
            return plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        }
        _ => return plain(StatusCode::NOT_FOUND, "not found\n"),
    }
    let Some(token) = token else {
        return plain(StatusCode::UNAUTHORIZED, "a capability token is required (?token=...)\n");
    };
    let now = Instant::now();
    let mut grants = state.lock();
    let Some(grant) = grants.get(token) else {
        return plain(StatusCode::FORBIDDEN, "unknown or expired token\n");
    };
    if grant.expires <= now {
        grants.remove(token);
        return plain(StatusCode::FORBIDDEN, "unknown or expired token\n");
    }
    match (&grant.kind, path) {
        (GrantKind::Dashboard { title }, "/dashboard") => {
            let page = dashboard_page(state.port, token, title);
            html(page.0, &page.1, state.port)
        }
        (GrantKind::Dashboard { .. }, "/dashboard/metrics") => {
            drop(grants);
            let mut response = Response::new(Full::new(Bytes::from(metrics(state).to_string())));
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
            common_headers(&mut response);
            response
        }
        (GrantKind::Link { .. }, "/link") => {
            let page = link_page(token);
            html(page.0, &page.1, state.port)
        }
        (GrantKind::Link { linked }, "/link/confirm") => {
            linked.send_replace(true);
            let page = link_done_page();
            html(page.0, &page.1, state.port)
        }
        _ => plain(StatusCode::FORBIDDEN, "this token is not valid for this page\n"),
    }
}

fn common_headers(response: &mut Reply) {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // The token is in the URL: never send it on in a Referer.
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
}

fn plain(status: StatusCode, text: &'static str) -> Reply {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    common_headers(&mut response);
    response
}

/// An HTML page whose only script is the inline one carrying `nonce`.
fn html(nonce: String, body: &str, port: u16) -> Reply {
    let csp = format!(
        "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; \
         connect-src 'self' http://127.0.0.1:{port} http://localhost:{port}; \
         form-action 'self' http://127.0.0.1:{port} http://localhost:{port}; base-uri 'none'"
    );
    let mut response = Response::new(Full::new(Bytes::from(body.to_owned())));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    if let Ok(csp) = HeaderValue::from_str(&csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    common_headers(&mut response);
    response
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The numbers the dashboard shows: smooth functions of time plus a little noise, so that two
/// polls a second apart always differ.
fn metrics(state: &State) -> serde_json::Value {
    let polls = state.polls.fetch_add(1, Ordering::Relaxed) + 1;
    let cache = CACHE_ENTRIES.fetch_add(1, Ordering::Relaxed) + 1;
    let t = state.started.elapsed().as_secs_f64();
    let mut noise = [0u8; 2];
    let _ = getrandom::fill(&mut noise);
    let jitter = |b: u8| (f64::from(b) / 255.0 - 0.5) * 4.0;
    let round = |x: f64| (x * 10.0).round() / 10.0;
    let requests_per_s = round(120.0 + 60.0 * (t / 7.0).sin() + 15.0 * (t / 1.3).sin() + jitter(noise[0]));
    let cpu_percent = round((45.0 + 25.0 * (t / 11.0).sin() + 8.0 * (t / 2.1).cos() + jitter(noise[1])).clamp(0.0, 100.0));
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    json!({
        "time_ms": now_ms,
        "uptime_s": round(t),
        "requests_per_s": requests_per_s,
        "cpu_percent": cpu_percent,
        "queue_depth": ((t * 3.0).sin().abs() * 12.0).round() as u64,
        "cache_entries": cache,
        "polls": polls,
    })
}

/// (nonce, page) for the dashboard.
fn dashboard_page(port: u16, token: &str, title: &str) -> (String, String) {
    let nonce = random_hex(12).unwrap_or_else(|_| format!("{:x}", port as u64 * 7919));
    let title = escape_html(title);
    let page = format!(
        r##"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body {{ font: 14px system-ui, sans-serif; margin: 16px; color: #1d2430; background: #f7f8fa; }}
  h1 {{ font-size: 18px; margin: 0 0 12px; }}
  .grid {{ display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 10px; }}
  .card {{ background: #fff; border: 1px solid #dde1e7; border-radius: 8px; padding: 10px 12px; }}
  .label {{ color: #5b6575; font-size: 12px; }}
  .value {{ font-size: 24px; font-variant-numeric: tabular-nums; }}
  svg {{ width: 100%; height: 80px; background: #fff; border: 1px solid #dde1e7; border-radius: 8px; margin-top: 10px; }}
  #status {{ color: #5b6575; font-size: 12px; margin-top: 8px; }}
</style></head>
<body>
<h1>{title}</h1>
<div class="grid">
  <div class="card"><div class="label">Requests / s</div><div class="value" id="requests_per_s">–</div></div>
  <div class="card"><div class="label">CPU %</div><div class="value" id="cpu_percent">–</div></div>
  <div class="card"><div class="label">Queue depth</div><div class="value" id="queue_depth">–</div></div>
  <div class="card"><div class="label">Cache entries</div><div class="value" id="cache_entries">–</div></div>
</div>
<svg viewBox="0 0 300 80" preserveAspectRatio="none" aria-label="Requests per second, last minute">
  <polyline id="spark" fill="none" stroke="#2f6fde" stroke-width="2" points=""></polyline>
</svg>
<div id="status">Connecting…</div>
<script nonce="{nonce}">
(function () {{
  "use strict";
  var token = "{token}";
  var history = [];
  var fields = ["requests_per_s", "cpu_percent", "queue_depth", "cache_entries"];
  var status = document.getElementById("status");
  var timer = null;
  function draw() {{
    if (history.length < 2) return;
    var max = Math.max.apply(null, history), min = Math.min.apply(null, history);
    var span = Math.max(max - min, 1);
    var points = history.map(function (v, i) {{
      return (i * 300 / 59).toFixed(1) + "," + (76 - (v - min) / span * 72).toFixed(1);
    }});
    document.getElementById("spark").setAttribute("points", points.join(" "));
  }}
  function tick() {{
    fetch("/dashboard/metrics?token=" + encodeURIComponent(token), {{ cache: "no-store", credentials: "omit" }})
      .then(function (r) {{
        if (r.status === 401 || r.status === 403) {{
          clearInterval(timer);
          status.textContent = "This view's token has expired. Open the dashboard again.";
          return null;
        }}
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      }})
      .then(function (m) {{
        if (!m) return;
        fields.forEach(function (f) {{ document.getElementById(f).textContent = m[f]; }});
        history.push(m.requests_per_s);
        if (history.length > 60) history.shift();
        draw();
        status.textContent = "Live · updated " + new Date(m.time_ms).toLocaleTimeString();
      }})
      .catch(function (e) {{ status.textContent = "Server unreachable (" + e.message + "), retrying…"; }});
  }}
  tick();
  timer = setInterval(tick, 1000);
}})();
</script>
</body></html>
"##
    );
    (nonce, page)
}

/// (nonce, page) for the account-linking page. Its form posts back with the same token.
fn link_page(token: &str) -> (String, String) {
    let nonce = random_hex(12).unwrap_or_else(|_| "n".to_owned());
    let page = format!(
        r##"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link your demo account</title>
<style>
  body {{ font: 15px system-ui, sans-serif; margin: 40px auto; max-width: 480px; color: #1d2430; }}
  button {{ font: inherit; padding: 8px 16px; border-radius: 6px; border: 1px solid #2f6fde; background: #2f6fde; color: #fff; cursor: pointer; }}
</style></head>
<body>
<h1>Link your demo account</h1>
<p>The <code>mcp-canvas-demo</code> server asks to link a (pretend) account. Nothing leaves
this machine; confirming only tells the waiting tool call that you finished here.</p>
<form method="post" action="/link/confirm?token={token}">
  <button type="submit">Link account</button>
</form>
</body></html>
"##
    );
    (nonce, page)
}

fn link_done_page() -> (String, String) {
    let nonce = random_hex(12).unwrap_or_else(|_| "n".to_owned());
    let page = r##"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Account linked</title>
<style>body { font: 15px system-ui, sans-serif; margin: 40px auto; max-width: 480px; color: #1d2430; }</style>
</head><body><h1>Account linked</h1><p>You can close this tab and return to MCP Canvas.</p></body></html>
"##
    .to_owned();
    (nonce, page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_html() {
        assert_eq!(escape_html(r#"<b a="x">&'"#), "&lt;b a=&quot;x&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn random_hex_has_the_requested_length() {
        let a = random_hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, random_hex(16).unwrap());
    }
}
