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

    /// `server`'s sign-in record, when it is an HTTP server.
    pub(crate) fn token_store(&self, server: &str) -> Option<TokenStore> {
        let config = self.config();
        match config.servers.get(server)?.endpoint() {
            Ok(Endpoint::Http { url }) => Some(TokenStore::open(self.data_dir(), url, self.sign_ins.storage)),
            _ => None,
        }
    }

    /// Where `server` stands with signing in (`None` for servers that are not HTTP).
    pub fn sign_in_view(&self, server: &str) -> Option<SignInView> {
        let store = self.token_store(server)?;
        let wanted = self.sign_ins.wanted.lock().unwrap().get(server).copied();
        let (signed_in, scopes, problem) = match store.credentials() {
            Ok(Some(credentials)) if credentials.token_response.is_some() => (true, credentials.granted_scopes, None),
            Ok(_) => (false, Vec::new(), None),
            Err(problem) => (false, Vec::new(), Some(problem.0)),
        };
        Some(SignInView {
            signed_in,
            needed: wanted.is_some(),
            more_scope: wanted == Some(true),
            scopes,
            storage: store.backend().describe(),
            in_keyring: matches!(store.backend(), oauth::Backend::Keyring),
            problem,
        })
    }

    /// Stores (or removes) the secret of `server`'s pre-registered client (`oauth.client_id` in
    /// servers.json), next to its tokens — never in servers.json.
    pub fn set_client_secret(&self, server: &str, secret: Option<String>) -> Result<(), HostError> {
        let store = self.http_store(server)?;
        store.set_client_secret(secret).map_err(|reason| HostError::Server(ClientError::SignIn { server: server.to_owned(), reason: reason.0 }))
    }

    /// Signs in to `server` through the browser given with [`Host::with_browser`], then connects
    /// with the new tokens. A server that lets us in without signing in is still signed in to
    /// when it publishes OAuth metadata.
    pub async fn sign_in(&self, server: &str) -> Result<SignInView, HostError> {
        let store = self.http_store(server)?;
        self.stop(server).await;
        let before = issued(&store);
        match self.connect_once(server).await {
            Err(HostError::Server(ClientError::SignInRequired { challenge, .. })) => self.sign_in_with(server, Some(&challenge)).await?,
            Err(other) => return Err(other),
            // Connected: unless the host just signed in by itself (its policy), sign in from the
            // server's published metadata.
            Ok(()) if issued(&store) == before => self.sign_in_with(server, None).await?,
            Ok(()) => {}
        }
        self.stop(server).await;
        self.restart(server).await?;
        Ok(self.sign_in_view(server).expect("an HTTP server"))
    }

    /// Forgets `server`'s tokens (the configured client secret stays) and closes its connection.
    pub async fn sign_out(&self, server: &str) -> Result<SignInView, HostError> {
        let store = self.http_store(server)?;
        store.sign_out().map_err(|reason| HostError::Server(ClientError::SignIn { server: server.to_owned(), reason: reason.0 }))?;
        self.stop(server).await;
        Ok(self.sign_in_view(server).expect("an HTTP server"))
    }

    fn http_store(&self, server: &str) -> Result<TokenStore, HostError> {
        self.token_store(server).ok_or_else(|| match self.config().servers.contains_key(server) {
            true => HostError::Server(ClientError::SignIn { server: server.to_owned(), reason: "only HTTP servers sign in; this one runs as a local program".into() }),
            false => self.unknown_server(server),
        })
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
        let HostError::Server(ClientError::SignInRequired { challenge, .. }) = error else { return None };
        let policy = self.sign_ins.policy;
        let allowed = if during_call { policy.during_calls } else { policy.when_connecting };
        (allowed && self.sign_ins.browser.is_some()).then_some(challenge.as_str())
    }

    /// One sign-in to `server`, answering `challenge` when a server's 401/403 asked for it.
    pub(crate) async fn sign_in_with(&self, server: &str, challenge: Option<&str>) -> Result<(), HostError> {
        let failed = |reason: String| HostError::Server(ClientError::SignIn { server: server.to_owned(), reason });
        let browser = self.sign_ins.browser.clone().ok_or_else(|| failed("this front end cannot show a sign-in page".into()))?;
        let store = self.http_store(server)?;
        let config = self.config();
        let entry = config.servers.get(server).ok_or_else(|| self.unknown_server(server))?;
        let Ok(Endpoint::Http { url }) = entry.endpoint() else { unreachable!("http_store checked it") };
        let settings = entry.oauth().map_err(|e| HostError::Config(e.in_file(server, &self.paths().servers_config())))?;
        // When another sign-in to this server finished while this one waited, its tokens are
        // what this caller needed too.
        let before = issued(&store);
        let turn = self.sign_ins.running.lock().unwrap().entry(server.to_owned()).or_default().clone();
        let _one_at_a_time = turn.lock().await;
        if before.is_some() && issued(&store) != before {
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
fn issued(store: &TokenStore) -> Option<(String, u64)> {
    store.credentials().ok().flatten().and_then(|c| c.token_received_at.map(|at| (c.client_id, at)))
}
