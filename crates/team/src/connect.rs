//! The catalog's connection, bounded on this side: PostgreSQL's own timeouts are the server's
//! and do nothing when the server is silent. Connecting (TCP, TLS, startup, authentication) must
//! finish within `connect_timeout` (from `catalog_url`, else [`CONNECT_TIMEOUT`]); after that,
//! the socket fails once the server has sent nothing for [`ANSWER_TIMEOUT`] since a request was
//! written ([`Deadline`]), which fails every waiting query and closes the connection (the next
//! operation connects again).

use std::{
    io,
    pin::Pin,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    task::{Context, Poll},
    time::Duration,
};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::{
    config::{Host, SslMode},
    tls::{MakeTlsConnect, TlsConnect},
    Client, Config, NoTls,
};

use crate::{catalog::error_text, error::TeamError, tls};

/// Connecting, TLS and authentication included, when `catalog_url` has no `connect_timeout`.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request may go unanswered: longer than the server's own `statement_timeout` and
/// `lock_timeout` (30 s), which answer with an error first.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(40);

/// Connects to `url` (`shown` is it without secrets, for errors): TLS per its libpq settings,
/// every step bounded; an error names what to fix.
pub(crate) async fn open(url: &str, password: Option<&str>, shown: &str) -> Result<Connected, TeamError> {
    let fail = |what: String, remedy: &str| TeamError::Catalog { catalog: shown.to_owned(), what, remedy: if remedy.is_empty() { String::new() } else { format!("; {remedy}") } };
    let (url, tls) = tls::split(url).map_err(|e| fail(e, "fix catalog_url's TLS settings (docs/team-store.md#tls-to-the-catalog)"))?;
    let mut config = <Config as std::str::FromStr>::from_str(&url).map_err(|e| fail(e.to_string(), "catalog_url must be postgres://user@host[:port]/database[?sslmode=…]"))?;
    if let Some(password) = password {
        config.password(password);
    }
    config.ssl_mode(match tls.mode {
        tls::Mode::Disable => SslMode::Disable,
        tls::Mode::Prefer => SslMode::Prefer,
        _ => SslMode::Require,
    });
    // The server's own limits: a statement or a lock wait is cut after 30 s, a transaction left
    // open (a frozen process) after 2 min. This side's are in `connect` and `Deadline`.
    config.options("-c statement_timeout=30000 -c lock_timeout=30000 -c idle_in_transaction_session_timeout=120000");
    config.application_name("mcp-canvas");
    let rustls = tls.client_config().map_err(|e| fail(e, ""))?;
    let first_host = match config.get_hosts().first() {
        Some(Host::Tcp(name)) => name.clone(),
        _ => String::new(),
    };
    connect(&config, rustls).await.map_err(|failure| match failure {
        Failure::TimedOut(limit) => fail(
            format!("no answer within {} s (connecting, TLS and sign-in)", limit.as_secs()),
            "check catalog_url's host and port: something accepts connections there but does not answer like PostgreSQL (a stopped server behind a proxy or load balancer, a firewall); connect_timeout=N in catalog_url waits longer",
        ),
        Failure::Io(place, e) => fail(format!("connecting to {place}: {e}"), "check catalog_url and that PostgreSQL is running and reachable"),
        Failure::Postgres(e) => {
            let what = error_text(&e);
            if let Some(remedy) = tls.explain(&what, tls::rustls_error(&e), &first_host) {
                return fail(what, &remedy);
            }
            let remedy = if what.contains("password") || what.contains("authentication") {
                "set the password with `mcp-canvas-cli store set-password` (OS keyring) or MCP_CANVAS_CATALOG_PASSWORD"
            } else if what.contains("does not exist") {
                "create the database and role first (docs/team-store.md)"
            } else {
                "check catalog_url and that PostgreSQL is running and reachable"
            };
            fail(what, remedy)
        }
    })
}

/// Why connecting failed.
pub(crate) enum Failure {
    /// PostgreSQL (or TLS) said no.
    Postgres(tokio_postgres::Error),
    /// The TCP connection could not be made.
    Io(String, io::Error),
    /// Nothing finished within the limit.
    TimedOut(Duration),
}

/// An open connection: its client, and whether its socket gave up on a silent server.
pub(crate) struct Connected {
    pub client: Client,
    pub silent: Arc<AtomicBool>,
}

/// Connects to the first of `config`'s hosts that answers, TLS per `tls` (`None`: plain), all of
/// it within the connect timeout.
pub(crate) async fn connect(config: &Config, tls: Option<rustls::ClientConfig>) -> Result<Connected, Failure> {
    let limit = config.get_connect_timeout().copied().unwrap_or(CONNECT_TIMEOUT);
    match tokio::time::timeout(limit, connect_any(config, tls)).await {
        Ok(result) => result,
        Err(_) => Err(Failure::TimedOut(limit)),
    }
}

async fn connect_any(config: &Config, tls: Option<rustls::ClientConfig>) -> Result<Connected, Failure> {
    let hosts = config.get_hosts();
    let ports = config.get_ports();
    let mut last = None;
    for (i, host) in hosts.iter().enumerate() {
        let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
        match connect_one(config, host, config.get_hostaddrs().get(i).copied(), port, tls.clone()).await {
            Ok(connected) => return Ok(connected),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| Failure::Io("catalog_url".into(), io::Error::other("catalog_url names no host"))))
}

async fn connect_one(config: &Config, host: &Host, addr: Option<std::net::IpAddr>, port: u16, tls: Option<rustls::ClientConfig>) -> Result<Connected, Failure> {
    let silent = Arc::new(AtomicBool::new(false));
    let (socket, name) = match host {
        Host::Tcp(name) => {
            let stream = match addr {
                Some(ip) => tokio::net::TcpStream::connect((ip, port)).await,
                None => tokio::net::TcpStream::connect((name.as_str(), port)).await,
            }
            .map_err(|e| Failure::Io(format!("{name}:{port}"), e))?;
            let _ = stream.set_nodelay(true);
            (Socket::Tcp(stream), name.clone())
        }
        #[cfg(unix)]
        Host::Unix(dir) => {
            let path = dir.join(format!(".s.PGSQL.{port}"));
            let stream = tokio::net::UnixStream::connect(&path).await.map_err(|e| Failure::Io(path.display().to_string(), e))?;
            (Socket::Unix(stream), dir.display().to_string())
        }
        #[cfg(not(unix))]
        Host::Unix(dir) => return Err(Failure::Io(dir.display().to_string(), io::Error::other("Unix sockets are not supported here"))),
    };
    let stream = Deadline::new(socket, silent.clone());
    let client = match (tls, &stream.inner) {
        // As libpq: no TLS over a Unix socket.
        (Some(tls), Socket::Tcp(_)) => {
            let mut make = tokio_postgres_rustls::MakeRustlsConnect::new(tls);
            let Ok(connector) = MakeTlsConnect::<Deadline>::make_tls_connect(&mut make, &name);
            start(config, stream, connector).await?
        }
        _ => {
            let mut plain = config.clone();
            plain.ssl_mode(tokio_postgres::config::SslMode::Disable);
            start(&plain, stream, NoTls).await?
        }
    };
    Ok(Connected { client, silent })
}

async fn start<T>(config: &Config, stream: Deadline, tls: T) -> Result<Client, Failure>
where
    T: TlsConnect<Deadline> + Send + 'static,
    T::Stream: Send + 'static,
{
    let (client, connection) = config.connect_raw(stream, tls).await.map_err(Failure::Postgres)?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!("team catalog connection ended: {e}");
        }
    });
    Ok(client)
}

/// A TCP or Unix socket.
pub(crate) enum Socket {
    Tcp(tokio::net::TcpStream),
    #[cfg(unix)]
    Unix(tokio::net::UnixStream),
}

/// A socket that fails its reads once a request was written and nothing came back for
/// [`ANSWER_TIMEOUT`] after its last byte (armed by a write, disarmed by any byte read).
pub(crate) struct Deadline {
    inner: Socket,
    waiting: bool,
    timer: Pin<Box<tokio::time::Sleep>>,
    silent: Arc<AtomicBool>,
}

impl Deadline {
    fn new(inner: Socket, silent: Arc<AtomicBool>) -> Self {
        Self { inner, waiting: false, timer: Box::pin(tokio::time::sleep(ANSWER_TIMEOUT)), silent }
    }
}

impl AsyncRead for Deadline {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = match &mut this.inner {
            Socket::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            #[cfg(unix)]
            Socket::Unix(s) => Pin::new(s).poll_read(cx, buf),
        };
        match polled {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.waiting = false;
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending if this.waiting && this.timer.as_mut().poll(cx).is_ready() => {
                this.silent.store(true, Ordering::Relaxed);
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, format!("the catalog sent nothing for {} s after a request", ANSWER_TIMEOUT.as_secs()))))
            }
            other => other,
        }
    }
}

impl AsyncWrite for Deadline {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = match &mut this.inner {
            Socket::Tcp(s) => Pin::new(s).poll_write(cx, data),
            #[cfg(unix)]
            Socket::Unix(s) => Pin::new(s).poll_write(cx, data),
        };
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            // Counted from the last byte written: a long request (a file's text) is not cut short.
            this.timer.as_mut().reset(tokio::time::Instant::now() + ANSWER_TIMEOUT);
            if !this.waiting {
                this.waiting = true;
                // The connection's task may have polled its read before this write: poll it
                // again so the timer is registered.
                cx.waker().wake_by_ref();
            }
        }
        polled
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            Socket::Tcp(s) => Pin::new(s).poll_flush(cx),
            #[cfg(unix)]
            Socket::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            Socket::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            #[cfg(unix)]
            Socket::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}
