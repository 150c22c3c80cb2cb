//! Signing in to Streamable HTTP servers with OAuth 2.1 — the MCP authorization spec, done by
//! rmcp's `transport::auth` (metadata discovery from `WWW-Authenticate` and the well-known paths,
//! RFC 8414 with the OIDC fallback, client ID metadata documents, dynamic registration or a
//! pre-registered client, PKCE S256, resource indicators, scope selection, `offline_access`,
//! refresh, RFC 9207 `iss` checks, token-endpoint auth none/basic/post). What is ours:
//!
//! - [`store`]: where tokens live (the OS keyring, else a 0600 file), refreshes serialised
//!   across processes;
//! - [`loopback`]: the `127.0.0.1` redirect listener;
//! - [`browser`]: who shows the authorization page (system browser, or headless);
//! - [`sign_in`]: one sign-in, first or a step-up after 403 `insufficient_scope` (asking for
//!   what was granted plus what the server now names);
//! - [`transport_manager`]: the manager a connection's transport carries, so every request has
//!   the current token and an expired one is refreshed;
//! - [`machine`]: the grants no one signs in for (client credentials with a secret or
//!   `private_key_jwt` — its assertion from [`assertion`] —, workload identity federation,
//!   enterprise-managed authorization), their token renewed before it runs out;
//! - [`dpop`] and [`http`]: DPoP — a key per server, a proof on every token request (with the
//!   server's nonce) and, through `transport::dpop`, on every MCP request.
//!
//! Tokens, client secrets, private keys and assertions never reach a log line, an error or an
//! audit row: rmcp's credential types print `[REDACTED]`, and our errors carry only what the
//! servers said about them and which setting to fix.

pub mod assertion;
pub mod browser;
pub mod dpop;
pub mod http;
pub mod loopback;
pub mod machine;

pub mod store;

use std::time::Duration;

use mcp_canvas_config::servers::OAuthEntry;
use rmcp::transport::auth::{AuthorizationManager, AuthorizationRequest, AuthorizationSession, OAuthClientConfig, WWWAuthenticateParams};

pub use browser::{Browser, Headless, SystemBrowser};
pub use store::{Backend, TokenStorage, TokenStore, TokenStoreError};

/// Why signing in did not finish or a connection could not carry the stored token: the browser,
/// the redirect, the authorization server, or the token store (the message says which; it never
/// holds a token).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OAuthError(pub String);

/// How long the user has to finish signing in in the browser.
pub const SIGN_IN_LIMIT: Duration = Duration::from_secs(300);
/// The name we register under.
const CLIENT_NAME: &str = "MCP Canvas";

/// One sign-in.
pub struct SignIn<'a> {
    /// The server's configured name (shown on the loopback page).
    pub server: &'a str,
    /// Its MCP endpoint.
    pub url: &'a str,
    /// The `WWW-Authenticate` header of the 401/403 that asked for it, when one did.
    pub challenge: Option<&'a str>,
    /// The entry's `oauth` settings.
    pub settings: &'a OAuthEntry,
    /// Where the tokens go.
    pub store: &'a TokenStore,
    /// Who shows the authorization page.
    pub browser: &'a dyn Browser,
    /// How long to wait for the browser.
    pub limit: Duration,
}

/// What a finished sign-in got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// The scopes the authorization server granted (or, when it did not say, those asked for).
    pub scopes: Vec<String>,
}

/// Whether a `WWW-Authenticate` challenge asks for more scope (403 `insufficient_scope`).
pub fn wants_more_scope(url: &str, challenge: &str) -> bool {
    url::Url::parse(url).is_ok_and(|base| WWWAuthenticateParams::parse(challenge, &base).is_insufficient_scope())
}

/// Runs the authorization-code flow once and stores the tokens. The reason of a failure is
/// meant for the user; it never contains a token.
pub async fn sign_in(request: SignIn<'_>) -> Result<SignedIn, OAuthError> {
    sign_in_inner(request).await.map_err(OAuthError)
}

async fn sign_in_inner(request: SignIn<'_>) -> Result<SignedIn, String> {
    let SignIn { server, url, challenge, settings, store, browser, limit } = request;
    if settings.grant.is_machine() {
        return machine::obtain(url, settings, store, challenge).await;
    }
    let (mut manager, _) = machine::manager(url, settings, store).await?;
    let resolution = manager.resolve_metadata_from_challenge(challenge).await.map_err(|e| match e {
        rmcp::transport::auth::AuthError::NoAuthorizationSupport => format!("{url} does not say how to sign in (no OAuth metadata found)"),
        other => other.to_string(),
    })?;
    manager.set_metadata(resolution.metadata);

    let loopback = loopback::Loopback::bind().await.map_err(|e| format!("cannot listen on 127.0.0.1 for the browser's answer: {e}"))?;
    let mut authorization = AuthorizationRequest::new(loopback.redirect_uri()).with_client_name(CLIENT_NAME);
    let previous = store.load_credentials().await?;
    // A step-up asks for what was granted before plus what the server now names (SEP-2350).
    let step_up = match (challenge, url::Url::parse(url)) {
        (Some(challenge), Ok(base)) => Some(WWWAuthenticateParams::parse(challenge, &base)).filter(|params| params.is_insufficient_scope()),
        _ => None,
    };
    match (&settings.scopes, &step_up) {
        (Some(scopes), None) => authorization = authorization.with_scopes(scopes.clone()),
        (configured, Some(params)) => {
            let mut scopes: Vec<String> = previous.as_ref().map(|p| p.granted_scopes.clone()).unwrap_or_default();
            scopes.extend(configured.iter().flatten().cloned());
            scopes.extend(params.scope.iter().flat_map(|s| s.split_whitespace().map(str::to_owned)));
            let mut seen = std::collections::HashSet::new();
            scopes.retain(|s| seen.insert(s.clone()));
            authorization = authorization.with_scopes(scopes);
        }
        // The challenge's scope, else the resource's `scopes_supported`, else none at all.
        (None, None) => authorization = authorization.with_initial_scope_selection(),
    }
    if let Some(client_id) = &settings.client_id {
        authorization = authorization.with_preregistered_client(client_id);
        if let Some(secret) = store.load_client_secret().await? {
            authorization = authorization.with_client_secret(secret);
        }
    }
    // A dynamically registered client registers again: its redirect URI named another port.
    if let Some(document) = &settings.client_metadata_url {
        authorization = authorization.with_client_metadata_url(document);
    }
    let asked: Vec<String> = authorization.scopes.clone();
    let session = AuthorizationSession::new(manager, authorization).await.map_err(|(_, e)| e.to_string())?;
    // The page goes to the user's browser: only a web page (https, or http on this machine),
    // never a `file:` path or another app's URI scheme a hostile server might name.
    let page = url::Url::parse(session.get_authorization_url()).map_err(|e| format!("the authorization server named an unusable authorization page: {e}"))?;
    if !web_page(&page) {
        return Err(format!("the authorization server named an authorization page that is not an https web page ({}://…); not opened", page.scheme()));
    }
    let state = page.query_pairs().find(|(k, _)| k == "state").map(|(_, v)| v.into_owned());
    // Both at once: the page's redirect reaches the listener while the browser is still busy.
    let opened = async { browser.open(server, page.as_str()).await.map_err(|e| format!("cannot show the authorization page: {e}")) };
    let (_, callback) = tokio::try_join!(opened, async { loopback.callback(server, state.as_deref(), limit).await.map_err(String::from) })?;
    let callback_url = match callback {
        loopback::Callback::Code(url) => url,
        loopback::Callback::Refused(reason) => return Err(format!("the authorization server refused: {reason}")),
    };
    let tokens = session.handle_callback_url(&callback_url).await.map_err(|e| e.to_string())?;
    // The token response's `scope`, read from its JSON (no second OAuth library for one field).
    let granted = serde_json::to_value(&tokens).ok().and_then(|t| t.get("scope").and_then(|s| s.as_str()).map(|s| s.split_whitespace().map(str::to_owned).collect()));
    let scopes = granted.unwrap_or(asked);
    Ok(SignedIn { scopes })
}

/// The DPoP key a connection to the server signs its requests with (`oauth.dpop`), if it has one.
pub async fn dpop_key(settings: &OAuthEntry, store: &TokenStore) -> Result<Option<std::sync::Arc<dpop::DpopKey>>, OAuthError> {
    match settings.dpop {
        true => machine::dpop_key(store).await.map(Some).map_err(OAuthError),
        false => Ok(None),
    }
}

/// An https URL, or an http one on this machine.
fn web_page(url: &url::Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(domain)) => domain == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// The manager a connection's transport carries: it reads the stored tokens on every request
/// and refreshes them when they expire. `None` when nothing is stored (the first request then
/// goes out without a token, and a 401 says how to sign in).
pub async fn transport_manager(url: &str, settings: &OAuthEntry, store: &TokenStore) -> Result<AuthorizationManager, OAuthError> {
    transport_manager_inner(url, settings, store).await.map_err(OAuthError)
}

async fn transport_manager_inner(url: &str, settings: &OAuthEntry, store: &TokenStore) -> Result<AuthorizationManager, String> {
    // A machine grant gets its token before the first request (no one has to sign in), and a
    // new one when the stored one ran out (they come without refresh tokens).
    if settings.grant.is_machine() && !store.load_credentials().await?.is_some_and(|c| machine::still_good(&c)) {
        machine::obtain(url, settings, store, None).await?;
    }
    let (mut manager, _) = machine::renewing_manager(url, settings, store).await?;
    let Some(stored) = store.load_credentials().await?.filter(|c| c.token_response.is_some()) else {
        return Ok(manager);
    };
    // Metadata (for the token endpoint) and the issuer check: tokens of an authorization server
    // the resource no longer names are dropped here. Unreachable metadata is not fatal: the
    // stored token is still sent, only a refresh would need it.
    match manager.initialize_from_store().await {
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(url, "cannot read the authorization server's metadata ({e}); using the stored token as it is");
            return Ok(manager);
        }
    }
    if let Some(secret) = store.load_client_secret().await? {
        let client_id = settings.client_id.clone().unwrap_or(stored.client_id);
        manager.configure_client(OAuthClientConfig::new(client_id, "http://127.0.0.1/callback").with_client_secret(secret)).map_err(|e| e.to_string())?;
    }
    Ok(manager)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_web_pages_are_opened() {
        for (url, ok) in [
            ("https://as.example/authorize?x=1", true),
            ("http://127.0.0.1:9/authorize", true),
            ("http://localhost/authorize", true),
            ("http://[::1]/a", true),
            ("http://as.example/authorize", false),
            ("file:///etc/passwd", false),
            ("smb://host/share", false),
            ("vscode://x", false),
        ] {
            assert_eq!(super::web_page(&url::Url::parse(url).unwrap()), ok, "{url}");
        }
    }
}

impl From<OAuthError> for String {
    fn from(e: OAuthError) -> Self {
        e.0
    }
}
