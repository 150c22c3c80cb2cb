//! The loopback redirect of a sign-in (RFC 8252 §7.3): a listener on `127.0.0.1` at a port the
//! OS picks, for one authorization response. The browser lands on
//! `http://127.0.0.1:<port>/callback?code=…&state=…&iss=…`; the page says the sign-in finished
//! (or why not) and may be closed.
//!
//! Hand-written on tokio's `TcpListener` (one GET request line, read from at most 16 KiB): an
//! HTTP server library for a single request of a known shape would be the larger part.

use std::time::Duration;

use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::TcpListener,
};

const PATH: &str = "/callback";

/// A bound listener waiting for one authorization response.
pub struct Loopback {
    listener: TcpListener,
    port: u16,
}

/// What came back to the redirect URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callback {
    /// The full redirect URL (with `code`, `state` and perhaps `iss`).
    Code(String),
    /// The authorization server said no (`error`, `error_description`).
    Refused(String),
}

impl Loopback {
    /// Binds `127.0.0.1:0`.
    pub async fn bind() -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self { listener, port })
    }

    /// The redirect URI to register and send.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{PATH}", self.port)
    }

    /// Waits for the authorization response, answering anything else (a favicon, a stray
    /// connection) with 404 and going on waiting. `server` names the server on the page.
    pub async fn callback(self, server: &str, state: Option<&str>, limit: Duration) -> Result<Callback, super::OAuthError> {
        self.callback_inner(server, state, limit).await.map_err(super::OAuthError)
    }

    async fn callback_inner(self, server: &str, state: Option<&str>, limit: Duration) -> Result<Callback, String> {
        tokio::time::timeout(limit, async {
            loop {
                let Ok((mut stream, _)) = self.listener.accept().await else {
                    // Out of file descriptors, say: do not spin.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                let mut head = Vec::with_capacity(1024);
                let mut buffer = [0u8; 4096];
                // The request line is all we need; read until the end of the headers or 16 KiB.
                let read = tokio::time::timeout(Duration::from_secs(3), async {
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                        match stream.read(&mut buffer).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => head.extend_from_slice(&buffer[..n]),
                        }
                    }
                })
                .await;
                let line = String::from_utf8_lossy(&head).lines().next().unwrap_or_default().to_owned();
                let target = match (read, line.split(' ').collect::<Vec<_>>().as_slice()) {
                    (Ok(()), ["GET", target, _version]) if target.starts_with(&format!("{PATH}?")) => target.to_string(),
                    _ => {
                        let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                        continue;
                    }
                };
                let url = format!("http://127.0.0.1:{}{target}", self.port);
                let parsed = url::Url::parse(&url).map_err(|e| e.to_string())?;
                let param = |name: &str| parsed.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
                // Only the answer to this sign-in (its `state`) ends the wait: a stray or forged
                // request from another local process is turned away.
                if state.is_some() && param("state").as_deref() != state {
                    let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                    continue;
                }
                let (answer, title, detail) = match param("error") {
                    Some(error) => {
                        let reason = match param("error_description") {
                            Some(description) => format!("{error}: {description}"),
                            None => error,
                        };
                        (Callback::Refused(reason.clone()), "Sign-in did not finish", reason)
                    }
                    None => (Callback::Code(url), "Almost done", "MCP Canvas is finishing the sign-in; you can close this tab.".to_owned()),
                };
                let page = format!(
                    "<!doctype html><meta charset=utf-8><title>{title} — MCP Canvas</title><style>body{{font:16px system-ui;margin:4em auto;max-width:32em;color:#222}}</style><h1>{title}</h1><p>Server <b>{}</b>.</p><p>{}</p>",
                    escape(server),
                    escape(&detail)
                );
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-security-policy: default-src 'none'; style-src 'unsafe-inline'\r\ncache-control: no-store\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
                return Ok(answer);
            }
        })
        .await
        .map_err(|_| format!("no answer from the browser within {} s", limit.as_secs()))?
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port: u16, target: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream.write_all(format!("GET {target} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn stray_requests_are_turned_away_and_the_callback_is_returned() {
        let loopback = Loopback::bind().await.unwrap();
        let port = loopback.port;
        assert_eq!(loopback.redirect_uri(), format!("http://127.0.0.1:{port}/callback"));
        let waiting = tokio::spawn(async move { loopback.callback("<b>srv</b>", Some("xyz"), Duration::from_secs(20)).await });
        assert!(get(port, "/favicon.ico").await.starts_with("HTTP/1.1 404"));
        assert!(get(port, "/callback?code=forged&state=other").await.starts_with("HTTP/1.1 400"), "another sign-in's (or a forged) answer is turned away");
        assert!(get(port, "/callback?error=access_denied").await.starts_with("HTTP/1.1 400"), "an answer without this state cannot end the wait");
        let page = get(port, "/callback?code=abc&state=xyz&iss=https%3A%2F%2Fas.example").await;
        assert!(page.contains("Almost done") && page.contains("&lt;b&gt;srv&lt;/b&gt;"), "{page}");
        assert_eq!(waiting.await.unwrap().unwrap(), Callback::Code(format!("http://127.0.0.1:{port}/callback?code=abc&state=xyz&iss=https%3A%2F%2Fas.example")));
    }

    #[tokio::test]
    async fn a_refusal_says_why_and_silence_times_out() {
        let loopback = Loopback::bind().await.unwrap();
        let port = loopback.port;
        let waiting = tokio::spawn(async move { loopback.callback("srv", Some("s1"), Duration::from_secs(20)).await });
        get(port, "/callback?error=access_denied&error_description=user%20said%20no&state=s1").await;
        assert_eq!(waiting.await.unwrap().unwrap(), Callback::Refused("access_denied: user said no".into()));
        let quiet = Loopback::bind().await.unwrap();
        let err = quiet.callback("srv", None, Duration::from_millis(50)).await.unwrap_err();
        assert!(err.0.contains("no answer from the browser"), "{err}");
    }
}
