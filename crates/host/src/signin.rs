//! Signing in to Streamable HTTP servers (OAuth 2.1, see `mcp_canvas_client::oauth`): each
//! server's sign-in state for the UI and the CLI, Sign in / Sign out, and the automatic
//! sign-in a front end may allow — when connecting (the CLI's `servers login`, the conformance
//! adapter) and when a signed-in server asks for more scope in the middle of a call (403
//! `insufficient_scope`: a step-up, then the call once more).

use std::sync::Arc;

use mcp_canvas_client::{
    oauth::{self, Browser, TokenStorage, TokenStore},
    ClientError,
};

use mcp_canvas_config::servers::Endpoint;
use crate::{error::HostError, host::Host};
use mcp_canvas_wire::SignInView;

/// When the host may open the sign-in page without being asked to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SignInPolicy {
    /// When a server answers the connection with 401.
    pub when_connecting: bool,
    /// When a signed-in server asks for more scope (or a new sign-in) during a call.
    pub during_calls: bool,
}

/// What the host keeps for sign-ins.
pub(crate) struct SignIns {
    pub(crate) browser: Option<Arc<dyn Browser>>,
    pub(crate) policy: SignInPolicy,
    pub(crate) storage: TokenStorage,
    /// Servers whose last answer asked for a sign-in (`true`: for more scope).
    pub(crate) wanted: std::sync::Mutex<std::collections::HashMap<String, bool>>,
    /// One sign-in per server at a time: two calls hitting the same 403 open one page, not two.
    pub(crate) running: std::sync::Mutex<std::collections::HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    pub(crate) limit: std::time::Duration,
}

impl Default for SignIns {
    fn default() -> Self {
        // `MCP_CANVAS_TOKEN_STORE=file`: never the keyring (headless test machines whose keyring
        // would prompt; throwaway data dirs).
        let storage = match std::env::var("MCP_CANVAS_TOKEN_STORE").as_deref() {
            Ok("file") => TokenStorage::File,
            _ => TokenStorage::Auto,
        };
        Self { browser: None, policy: SignInPolicy::default(), storage, wanted: Default::default(), running: Default::default(), limit: oauth::SIGN_IN_LIMIT }
    }
}

impl Host {
    /// Who shows sign-in pages, and when the host may show one unasked.
    pub fn with_browser(mut self, browser: Arc<dyn Browser>, policy: SignInPolicy) -> Self {
        self.sign_ins.browser = Some(browser);
        self.sign_ins.policy = policy;
        self
    }

    /// Where tokens are kept (default: the OS keyring, else a 0600 file in the data dir).
    pub fn with_token_storage(mut self, storage: TokenStorage) -> Self {
        self.sign_ins.storage = storage;
        self
    }

    /// `server`'s sign-in record, when it is an HTTP server. Nothing is read yet: reading it may
    /// block (the OS keyring is a D-Bus round trip), so it is read on the blocking pool.
    pub(crate) fn token_store(&self, server: &str) -> Option<TokenStore> {
        let config = self.config();
        match config.servers.get(server)?.endpoint() {
            Ok(Endpoint::Http { url }) => Some(self.token_store_at(url)),
            _ => None,
        }
    }

    fn token_store_at(&self, url: &str) -> TokenStore {
        TokenStore::open(self.data_dir(), url, self.sign_ins.storage)
    }

    /// Whether `server`'s last answer asked for a sign-in (`Some(true)`: for more scope).
    fn wanted(&self, server: &str) -> Option<bool> {
        self.sign_ins.wanted.lock().unwrap().get(server).copied()
    }

    /// Where `server` stands with signing in (`None` for servers that are not HTTP). Its record
    /// is read on the blocking pool, never on the caller's async worker.
    pub async fn sign_in_view(&self, server: &str) -> Result<Option<SignInView>, HostError> {
        Ok(self.sign_in_views(&[server.to_owned()]).await?.pop().flatten())
    }

    /// [`Self::sign_in_view`] of each of `servers`, in order, their records read together on
    /// one blocking thread.
    pub(crate) async fn sign_in_views(&self, servers: &[String]) -> Result<Vec<Option<SignInView>>, HostError> {
        let config = self.config();
        let method = |server: &String| config.servers.get(server).and_then(|entry| entry.oauth().ok()).and_then(|oauth| describe_method(&oauth));
        let stores: Vec<Option<(TokenStore, Option<bool>, Option<String>)>> = servers.iter().map(|server| self.token_store(server).map(|store| (store, self.wanted(server), method(server)))).collect();
        if stores.iter().all(Option::is_none) {
            return Ok(vec![None; servers.len()]);
        }
        Ok(tokio::task::spawn_blocking(move || stores.into_iter().map(|store| store.map(|(store, wanted, method)| read_view(&store, wanted, method))).collect()).await?)
    }

    /// Stores (or removes) the private key (PEM) of `server`'s pre-registered client, for
    /// `private_key_jwt` — in the OS keyring (else the 0600 file), never in servers.json.
    pub async fn set_private_key(&self, server: &str, pem: Option<String>) -> Result<(), HostError> {
        let store = self.http_store(server)?;
        let written = tokio::task::spawn_blocking(move || store.set_private_key(pem)).await?;
        written.map_err(|reason| HostError::Server(ClientError::SignIn { server: server.to_owned(), reason: reason.0 }))
    }

    /// Stores (or removes) the secret of `server`'s pre-registered client (`oauth.client_id` in
    /// servers.json), next to its tokens — never in servers.json.
    pub async fn set_client_secret(&self, server: &str, secret: Option<String>) -> Result<(), HostError> {
        let store = self.http_store(server)?;
        let written = tokio::task::spawn_blocking(move || store.set_client_secret(secret)).await?;
        written.map_err(|reason| HostError::Server(ClientError::SignIn { server: server.to_owned(), reason: reason.0 }))
    }

    /// Signs in to `server` through the browser given with [`Host::with_browser`], then connects
    /// with the new tokens. A server that lets us in without signing in is still signed in to
    /// when it publishes OAuth metadata.
    pub async fn sign_in(&self, server: &str) -> Result<SignInView, HostError> {
        let store = self.http_store(server)?;
        self.stop(server).await;
        let before = issued(&store).await;
        match self.connect_once(server).await {
            Err(HostError::Server(ClientError::SignInRequired { challenge, .. })) => self.sign_in_with(server, Some(&challenge)).await?,
            Err(other) => return Err(other),
            // Connected: unless the host just signed in by itself (its policy), sign in from the
            // server's published metadata.
            Ok(()) if issued(&store).await == before => self.sign_in_with(server, None).await?,
            Ok(()) => {}
        }
        self.stop(server).await;
        self.restart(server).await?;
        // servers.json may have changed meanwhile (the server is no longer an HTTP one).
        self.sign_in_view(server).await?.ok_or_else(|| self.no_sign_in(server))
    }

    /// Forgets `server`'s tokens (the configured client secret stays) and closes its connection.
    pub async fn sign_out(&self, server: &str) -> Result<SignInView, HostError> {
        let store = self.http_store(server)?;
        let signed_out = tokio::task::spawn_blocking(move || store.sign_out()).await?;
        signed_out.map_err(|reason| HostError::Server(ClientError::SignIn { server: server.to_owned(), reason: reason.0 }))?;
        self.stop(server).await;
        self.sign_in_view(server).await?.ok_or_else(|| self.no_sign_in(server))
    }

    fn http_store(&self, server: &str) -> Result<TokenStore, HostError> {
        self.token_store(server).ok_or_else(|| self.no_sign_in(server))
    }

    /// `server` is not one that signs in: not configured, or not an HTTP server.
    fn no_sign_in(&self, server: &str) -> HostError {
        match self.config().servers.contains_key(server) {
            true => HostError::Server(ClientError::SignIn { server: server.to_owned(), reason: "only HTTP servers sign in; this one runs as a local program".into() }),
            false => self.unknown_server(server),
        }
    }

    /// Notes what a server's answer said about signing in (shown by [`Host::sign_in_view`]).
    pub(crate) fn note_sign_in(&self, server: &str, error: Option<&ClientError>) {
        let mut wanted = self.sign_ins.wanted.lock().unwrap();
        match error {
            Some(ClientError::SignInRequired { more_scope, .. }) => {
                wanted.insert(server.to_owned(), *more_scope);
            }
            Some(_) => {}
            None => {
                wanted.remove(server);
            }
        }
    }

    /// After a sign-in during a call: the connection's transport takes the new record.
    pub(crate) async fn reload_sign_in(&self, server: &str, connection: &mcp_canvas_client::ServerConnection) -> Result<(), HostError> {
        let config = self.config();
        let Some(entry) = config.servers.get(server) else { return Ok(()) };
        let settings = entry.oauth().map_err(|e| HostError::Config(e.in_file(server, &self.paths().servers_config())))?;
        let Some(store) = self.token_store(server) else { return Ok(()) };
        Ok(connection.reload_sign_in(&settings, &store).await?)
    }

    /// Whether the policy lets the host sign in unasked after `error`, and with which challenge.
    pub(crate) fn automatic_sign_in<'e>(&self, error: &'e HostError, during_call: bool) -> Option<&'e str> {
        let HostError::Server(ClientError::SignInRequired { server, challenge, .. }) = error else { return None };
        // A machine grant (`oauth.grant`) needs no one: its tokens are got whenever asked for.
        let config = self.config();
        if config.servers.get(server).and_then(|entry| entry.oauth().ok()).is_some_and(|oauth| oauth.grant.is_machine()) {
            return Some(challenge.as_str());
        }
        let policy = self.sign_ins.policy;
        let allowed = if during_call { policy.during_calls } else { policy.when_connecting };
        (allowed && self.sign_ins.browser.is_some()).then_some(challenge.as_str())
    }

    /// One sign-in to `server`, answering `challenge` when a server's 401/403 asked for it.
    pub(crate) async fn sign_in_with(&self, server: &str, challenge: Option<&str>) -> Result<(), HostError> {
        let failed = |reason: String| HostError::Server(ClientError::SignIn { server: server.to_owned(), reason });
        // One snapshot of servers.json: it may be replaced while this runs.
        let config = self.config();
        let entry = config.servers.get(server).ok_or_else(|| self.unknown_server(server))?;
        let Ok(Endpoint::Http { url }) = entry.endpoint() else { return Err(self.no_sign_in(server)) };
        let store = self.token_store_at(url);
        let settings = entry.oauth().map_err(|e| HostError::Config(e.in_file(server, &self.paths().servers_config())))?;
        // A machine grant opens no page.
        let browser: Arc<dyn Browser> = match (self.sign_ins.browser.clone(), settings.grant.is_machine()) {
            (_, true) => Arc::new(oauth::Headless),
            (Some(browser), false) => browser,
            (None, false) => return Err(failed("this front end cannot show a sign-in page".into())),
        };
        // When another sign-in to this server finished while this one waited, its tokens are
        // what this caller needed too.
        let before = issued(&store).await;
        let turn = self.sign_ins.running.lock().unwrap().entry(server.to_owned()).or_default().clone();
        let _one_at_a_time = turn.lock().await;
        if before.is_some() && issued(&store).await != before {
            return Ok(());
        }
        tracing::info!(server, "signing in");
        let signed_in = oauth::sign_in(oauth::SignIn { server, url, challenge, settings: &settings, store: &store, browser: browser.as_ref(), limit: self.sign_ins.limit }).await.map_err(|e| failed(e.0))?;
        tracing::info!(server, scopes = ?signed_in.scopes, "signed in");
        self.note_sign_in(server, None);
        Ok(())
    }
}

/// Which tokens are stored (their client and when they were issued): a change means a sign-in
/// (or a refresh) happened.
async fn issued(store: &TokenStore) -> Option<(String, u64)> {
    store.load_credentials().await.ok().flatten().and_then(|c| c.token_received_at.map(|at| (c.client_id, at)))
}

/// `store` read into what the UI shows. Blocking: the OS keyring or the file.
/// How a server's tokens are got, in words, when not by a browser sign-in alone.
fn describe_method(oauth: &mcp_canvas_config::servers::OAuthEntry) -> Option<String> {
    use mcp_canvas_config::servers::Grant;
    let grant = match oauth.grant {
        Grant::AuthorizationCode => None,
        Grant::ClientCredentials => Some("client credentials"),
        Grant::JwtBearer => Some("workload identity (JWT bearer)"),
        Grant::Enterprise => Some("enterprise-managed authorization"),
    };
    match (grant, oauth.dpop) {
        (Some(grant), true) => Some(format!("{grant}, DPoP-bound")),
        (Some(grant), false) => Some(grant.to_owned()),
        (None, true) => Some("browser sign-in, DPoP-bound".to_owned()),
        (None, false) => None,
    }
}

fn read_view(store: &TokenStore, wanted: Option<bool>, method: Option<String>) -> SignInView {
    let (signed_in, scopes, problem) = match store.credentials() {
        Ok(Some(credentials)) if credentials.token_response.is_some() => (true, credentials.granted_scopes, None),
        Ok(_) => (false, Vec::new(), None),
        Err(problem) => (false, Vec::new(), Some(problem.0)),
    };
    SignInView {
        signed_in,
        needed: wanted.is_some(),
        more_scope: wanted == Some(true),
        scopes,
        storage: store.backend().describe(),
        in_keyring: matches!(store.backend(), oauth::Backend::Keyring),
        problem,
        method,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::{sync::mpsc, time::Duration};

    use mcp_canvas_client::oauth::TokenStorage;
    use tokio::io::AsyncWriteExt as _;

    use crate::{Host, HostOptions};

    /// A host with one HTTP server, `notes`, whose sign-in record (file backend) is a FIFO: a
    /// read of it waits until someone writes it.
    fn http_server_whose_record_is_a_fifo() -> (tempfile::TempDir, Host, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let servers = serde_json::json!({ "mcpServers": { "notes": { "type": "http", "url": "http://127.0.0.1:9/mcp" } } });
        std::fs::write(dir.path().join("servers.json"), servers.to_string()).unwrap();
        let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(5), session: None }).unwrap().with_token_storage(TokenStorage::File);
        let record = host.token_store("notes").unwrap().file().to_owned();
        std::fs::create_dir_all(record.parent().unwrap()).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(&record).status().unwrap().success());
        (dir, host, record)
    }

    /// Reading a server's sign-in state never holds the async worker that asks (the keyring is a
    /// D-Bus round trip; here the file backend, whose record is a FIFO, so the read blocks until
    /// someone writes it). On a single-threaded runtime the task that writes the record must run
    /// while the read waits. Read on the worker, nothing else could run: only the watchdog
    /// thread would end the wait, with a record that is not JSON, and the view would say so.
    #[test]
    fn the_sign_in_state_is_read_while_the_async_worker_runs_other_tasks() {
        let (_dir, host, record) = http_server_whose_record_is_a_fifo();

        // A read stuck on the worker never ends by itself: after a while, this thread ends it.
        let (finished, watchdog_wait) = mpsc::channel::<()>();
        let watchdog = {
            let record = record.clone();
            std::thread::spawn(move || {
                if watchdog_wait.recv_timeout(Duration::from_secs(20)).is_err() {
                    use std::io::Write as _;
                    // Read and write: never waits for a reader.
                    if let Ok(mut fifo) = std::fs::OpenOptions::new().read(true).write(true).open(&record) {
                        let _ = fifo.write_all(b"{written by the watchdog");
                    }
                }
            })
        };

        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (view, wrote) = runtime.block_on(async {
            let done = std::sync::atomic::AtomicBool::new(false);
            let read = async {
                let view = host.sign_in_view("notes").await;
                done.store(true, std::sync::atomic::Ordering::SeqCst);
                view
            };
            // Another task on the same worker: it writes the record once a reader has it open.
            let write = async {
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    match tokio::net::unix::pipe::OpenOptions::new().open_sender(&record) {
                        Ok(mut fifo) => {
                            fifo.write_all(b"{}").await.unwrap();
                            return true;
                        }
                        // No reader yet.
                        Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                    }
                }
                false
            };
            tokio::join!(read, write)
        });
        let _ = finished.send(());
        watchdog.join().unwrap();
        let view = view.unwrap().expect("an HTTP server has a sign-in state");
        assert!(wrote, "the record was read while another task on the worker could not run");
        assert_eq!(view.problem, None, "the read held the async worker until the watchdog ended it");
        assert!(!view.signed_in && !view.in_keyring, "{view:?}");
    }

    /// servers.json is the user's: edited while a sign-out runs (the server no longer HTTP), the
    /// sign-out ends with an error saying so instead of a panic. The record is a FIFO so the
    /// sign-out waits, reading it, while the file is edited.
    #[test]
    fn a_server_that_stops_being_http_during_a_sign_out_is_an_error() {
        let (dir, host, record) = http_server_whose_record_is_a_fifo();

        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let signed_out = runtime.block_on(async {
            let edit = async {
                let mut fifo = loop {
                    match tokio::net::unix::pipe::OpenOptions::new().open_sender(&record) {
                        Ok(fifo) => break fifo,
                        Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                    }
                };
                // The sign-out is reading the record: the user makes `notes` a local program.
                let stdio = serde_json::json!({ "mcpServers": { "notes": { "command": "notes-server" } } });
                std::fs::write(dir.path().join("servers.json"), stdio.to_string()).unwrap();
                host.set_server_timeout("notes", None).unwrap();
                fifo.write_all(b"{}").await.unwrap();
            };
            tokio::join!(host.sign_out("notes"), edit).0
        });
        let err = signed_out.unwrap_err().to_string();
        assert!(err.contains("only HTTP servers sign in"), "{err}");
    }
}
