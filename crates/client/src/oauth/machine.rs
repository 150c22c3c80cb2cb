//! Tokens no one signs in for (`oauth.grant` other than `authorization_code`):
//!
//! - `client_credentials` (SEP-1046): the client's secret (HTTP Basic or in the body, as the
//!   authorization server supports) or a `private_key_jwt` assertion (RFC 7523) — done here,
//!   not by rmcp (its exchange cannot be awaited in a spawned task: it holds a non-`Send` form
//!   serializer across an await), so it also gets DPoP proofs from [`TokenHttp`];
//! - `jwt_bearer` (workload identity federation, SEP-1933): the workload's identity token, read
//!   fresh from its file or variable, as an RFC 7523 assertion — a refusal is reported, never
//!   retried or answered with another grant;
//! - `enterprise` (SEP-990): the user's ID token exchanged at the identity provider for an
//!   ID-JAG (RFC 8693), redeemed at the server's authorization server (RFC 7523), by rmcp.
//!
//! The secret and private key come from the server's record (the OS keyring or the 0600 file),
//! or the key from `oauth.private_key_file`, which is refused when others can read it. Errors
//! name the server's setting to fix and carry what the authorization server said, never a
//! secret, a key, an assertion or a token.

use std::{path::Path, sync::Arc};

use mcp_canvas_config::servers::{ClientAuth, Grant, OAuthEntry};
use rmcp::transport::auth::{AuthorizationManager, AuthorizationMetadata, OAuthTokenResponse, StoredCredentials};

use super::{dpop::{DpopKey, Nonces}, http::TokenHttp, SignedIn, TokenStore};

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// An authorization manager for `url`: rmcp's own HTTP client, or with `oauth.dpop` ours,
/// which adds DPoP proofs to token requests (and the key they are signed with).
pub(crate) async fn manager(url: &str, settings: &OAuthEntry, store: &TokenStore) -> Result<(AuthorizationManager, Option<Arc<TokenHttp>>), String> {
    manager_with(url, settings, store, false).await
}

/// [`manager`], whose store, for a machine grant, gets a new token whenever the stored one ran
/// out (such grants come without refresh tokens): what a connection's transport carries.
pub(crate) async fn renewing_manager(url: &str, settings: &OAuthEntry, store: &TokenStore) -> Result<(AuthorizationManager, Option<Arc<TokenHttp>>), String> {
    manager_with(url, settings, store, settings.grant.is_machine()).await
}

async fn manager_with(url: &str, settings: &OAuthEntry, store: &TokenStore, renew: bool) -> Result<(AuthorizationManager, Option<Arc<TokenHttp>>), String> {
    let http = match settings.dpop {
        true => Some(Arc::new(TokenHttp::new(Some(dpop_key(store).await?), Arc::new(Nonces::default())))),
        false => None,
    };
    let mut manager = match &http {
        Some(http) => AuthorizationManager::new_with_oauth_http_client(url, http.clone()).await,
        None => AuthorizationManager::new(url).await,
    }
    .map_err(|e| e.to_string())?;
    match renew {
        true => manager.set_credential_store(Renewing { store: store.clone(), url: url.to_owned(), settings: settings.clone(), turn: Default::default() }),
        false => manager.set_credential_store(store.clone()),
    }
    Ok((manager, http))
}

/// A machine grant's token record that renews the token when it ran out (or is about to): read
/// before every request, so a long-lived connection never sends an expired token.
#[derive(Clone)]
struct Renewing {
    store: TokenStore,
    url: String,
    settings: OAuthEntry,
    /// One renewal at a time in this connection. (Not the record's refresh lock: rmcp holds
    /// that while it reads the record during a refresh, and would wait for itself.)
    turn: Arc<tokio::sync::Mutex<()>>,
}

#[async_trait::async_trait]
impl rmcp::transport::auth::CredentialStore for Renewing {
    async fn load(&self) -> Result<Option<StoredCredentials>, rmcp::transport::auth::AuthError> {
        let stored = self.store.load().await?;
        if stored.as_ref().is_some_and(still_good) {
            return Ok(stored);
        }
        // Another request may have renewed it meanwhile.
        let _turn = self.turn.lock().await;
        let stored = self.store.load().await?;
        if stored.as_ref().is_some_and(still_good) {
            return Ok(stored);
        }
        tracing::info!(url = self.url, grant = self.settings.grant.name(), "getting a new token");
        obtain(&self.url, &self.settings, &self.store, None).await.map_err(rmcp::transport::auth::AuthError::CredentialStoreError)?;
        self.store.load().await
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), rmcp::transport::auth::AuthError> {
        self.store.save(credentials).await
    }

    async fn clear(&self) -> Result<(), rmcp::transport::auth::AuthError> {
        self.store.clear().await
    }
}

/// The server's DPoP key, made on first use.
pub(crate) async fn dpop_key(store: &TokenStore) -> Result<Arc<DpopKey>, String> {
    let pkcs8 = store.load_dpop_key().await?;
    Ok(Arc::new(DpopKey::from_pkcs8(&pkcs8).map_err(|e| e.0)?))
}

/// Gets tokens with the server's machine grant and stores them.
pub(crate) async fn obtain(url: &str, settings: &OAuthEntry, store: &TokenStore, challenge: Option<&str>) -> Result<SignedIn, String> {
    let (mut manager, http) = manager(url, settings, store).await?;
    let resolution = manager.resolve_metadata_from_challenge(challenge).await.map_err(|e| match e {
        rmcp::transport::auth::AuthError::NoAuthorizationSupport => format!("{url} does not say how to get a token (no OAuth metadata found)"),
        other => other.to_string(),
    })?;
    let metadata = resolution.metadata;
    manager.set_metadata(metadata.clone());
    let scopes = settings.scopes.clone().unwrap_or_default();
    let client_id = settings.client_id.clone();
    let grant = settings.grant;
    match grant {
        Grant::AuthorizationCode => Err("`oauth.grant` is `authorization_code`: a user signs in in the browser".into()),
        Grant::ClientCredentials => {
            let client_id = client_id.ok_or("`oauth.client_id` is missing")?;
            let credential = client_auth(settings, store).await?;
            let http = http.unwrap_or_else(|| Arc::new(TokenHttp::new(None, Arc::new(Nonces::default()))));
            let tokens = client_credentials(&http, &metadata, settings, url, &client_id, credential, &scopes).await?;
            save(store, &metadata, client_id, &tokens, &scopes).await?;
            Ok(SignedIn { scopes: granted(&tokens).unwrap_or(scopes) })
        }
        Grant::JwtBearer => {
            let assertion = read_token(settings.workload_token_file.as_deref(), settings.workload_token_env.as_deref(), "workload_token")?;
            // Built whole before any await (the serializer is not Send).
            let form = {
                let mut form = url::form_urlencoded::Serializer::new(String::new());
                form.append_pair("grant_type", JWT_BEARER).append_pair("assertion", &assertion).append_pair("resource", url);
                if let Some(client_id) = &client_id {
                    form.append_pair("client_id", client_id);
                }
                if !scopes.is_empty() {
                    form.append_pair("scope", &scopes.join(" "));
                }
                form.finish()
            };
            let http = http.unwrap_or_else(|| Arc::new(TokenHttp::new(None, Arc::new(Nonces::default()))));
            let tokens = token_request(&http, &metadata, form, None, "the workload token (`oauth.workload_token_file` / `oauth.workload_token_env`)").await?;
            save(store, &metadata, client_id.unwrap_or_else(|| "workload".to_owned()), &tokens, &scopes).await?;
            Ok(SignedIn { scopes: granted(&tokens).unwrap_or(scopes) })
        }
        Grant::Enterprise => enterprise(url, settings, store, &metadata, http, scopes).await,
    }
}

/// The client credentials grant: the secret in a Basic header (`client_secret_basic`, the OAuth
/// default) or the body (`client_secret_post`), as `oauth.client_auth` says or else as the
/// server advertises; or a `private_key_jwt` assertion addressed to the server's issuer.
async fn client_credentials(http: &TokenHttp, metadata: &AuthorizationMetadata, settings: &OAuthEntry, url: &str, client_id: &str, credential: Credential, scopes: &[String]) -> Result<OAuthTokenResponse, String> {
    let advertised: Vec<String> = metadata.additional_fields.get("token_endpoint_auth_methods_supported").and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default();
    let mut basic = None;
    // Built whole before any await (the serializer is not Send).
    let form = {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", "client_credentials").append_pair("resource", url);
        if !scopes.is_empty() {
            form.append_pair("scope", &scopes.join(" "));
        }
        match credential {
            Credential::PrivateKey(pem) => {
                let audience = metadata.issuer.as_deref().ok_or("the authorization server's metadata names no issuer (the audience of a `private_key_jwt` assertion)")?;
                let assertion = super::assertion::client_assertion(client_id, audience, &pem, settings.signing_algorithm.as_deref().unwrap_or("ES256"))?;
                form.append_pair("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer").append_pair("client_assertion", &assertion);
            }
            Credential::Secret(secret) => {
                let post = match settings.client_auth {
                    Some(ClientAuth::ClientSecretPost) => true,
                    Some(_) => false,
                    None => !advertised.is_empty() && !advertised.iter().any(|m| m == "client_secret_basic") && advertised.iter().any(|m| m == "client_secret_post"),
                };
                if post {
                    form.append_pair("client_id", client_id).append_pair("client_secret", &secret);
                } else {
                    // RFC 6749 §2.3.1: each form-encoded, then joined and base64-encoded.
                    let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                    use base64::Engine as _;
                    basic = Some(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", encode(client_id), encode(&secret)))));
                }
            }
        }
        form.finish()
    };
    token_request(http, metadata, form, basic, "the client credentials (`oauth.client_id` with its secret or private key)").await
}

/// Enterprise-managed authorization: the ID token for an ID-JAG at the identity provider, the
/// ID-JAG for an access token at the server's authorization server.
async fn enterprise(url: &str, settings: &OAuthEntry, store: &TokenStore, metadata: &AuthorizationMetadata, http: Option<Arc<TokenHttp>>, scopes: Vec<String>) -> Result<SignedIn, String> {
    use rmcp::transport::auth::enterprise::{EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest};
    let idp = settings.enterprise.as_ref().ok_or("`oauth.enterprise` is missing")?;
    let client_id = settings.client_id.clone().ok_or("`oauth.client_id` is missing")?;
    let id_token = read_token(idp.id_token_file.as_deref(), idp.id_token_env.as_deref(), "enterprise.id_token")?;
    let authentication = match client_auth(settings, store).await? {
        Credential::Secret(secret) if settings.client_auth == Some(ClientAuth::ClientSecretPost) => EmaClientAuthentication::ClientSecretPost(oauth2::ClientSecret::new(secret)),
        Credential::Secret(secret) => EmaClientAuthentication::ClientSecretBasic(oauth2::ClientSecret::new(secret)),
        Credential::PrivateKey(pem) => EmaClientAuthentication::JwtAssertion(Arc::new(KeyAssertions { pem, algorithm: settings.signing_algorithm.clone().unwrap_or_else(|| "ES256".into()) })),
    };
    let issuer = metadata.issuer.clone().ok_or("the authorization server's metadata names no issuer (an ID-JAG is addressed to it)")?;
    let provider = EmaAuthorizationServer::new(&idp.idp_issuer, &idp.idp_token_endpoint, &idp.idp_client_id);
    let server = EmaAuthorizationServer::new(issuer, &metadata.token_endpoint, &client_id).with_client_authentication(authentication);
    let http = http.unwrap_or_else(|| Arc::new(TokenHttp::new(None, Arc::new(Nonces::default()))));
    let token = EmaExchangeRequest::new_with_id_token(provider, server, url, &id_token)
        .with_scopes(scopes.clone())
        .exchange(http.as_ref(), http.as_ref())
        .await
        .map_err(|e| format!("enterprise-managed authorization failed: {e} (`oauth.enterprise` and `oauth.client_id`)"))?;
    let granted: Vec<String> = if token.scopes.is_empty() { scopes } else { token.scopes.iter().cloned().collect() };
    let mut response = serde_json::json!({ "access_token": token.access_token.secret(), "token_type": if settings.dpop { "DPoP" } else { "Bearer" } });
    if let Some(expires) = token.expires_in {
        response["expires_in"] = serde_json::json!(expires.as_secs());
    }
    if !granted.is_empty() {
        response["scope"] = serde_json::json!(granted.join(" "));
    }
    let tokens: OAuthTokenResponse = serde_json::from_value(response).map_err(|e| format!("cannot keep the access token: {e}"))?;
    save(store, metadata, client_id, &tokens, &granted).await?;
    Ok(SignedIn { scopes: granted })
}

/// `private_key_jwt` at the authorization server that redeems an ID-JAG: a fresh assertion
/// for each token request, addressed to that server's issuer.
struct KeyAssertions {
    pem: String,
    algorithm: String,
}

#[async_trait::async_trait]
impl rmcp::transport::auth::enterprise::EmaClientAssertionProvider for KeyAssertions {
    async fn create_assertion(&self, server: &rmcp::transport::auth::enterprise::EmaAuthorizationServer) -> Result<rmcp::transport::auth::enterprise::EmaClientAssertion, Box<dyn std::error::Error + Send + Sync>> {
        let assertion = super::assertion::client_assertion(&server.client_id, &server.issuer, &self.pem, &self.algorithm)?;
        Ok(rmcp::transport::auth::enterprise::EmaClientAssertion::new(assertion))
    }
}

enum Credential {
    Secret(String),
    PrivateKey(String),
}

/// The client's secret or private key, as `oauth.client_auth` says (by default the key when
/// there is one).
async fn client_auth(settings: &OAuthEntry, store: &TokenStore) -> Result<Credential, String> {
    let key = match &settings.private_key_file {
        Some(path) => Some(read_private_key(path)?),
        None => store.load_private_key().await?,
    };
    match (settings.client_auth, key) {
        (Some(ClientAuth::PrivateKeyJwt) | None, Some(key)) => Ok(Credential::PrivateKey(key)),
        (Some(ClientAuth::PrivateKeyJwt), None) => Err("`oauth.client_auth` is `private_key_jwt` but no private key is stored: set `oauth.private_key_file`, or keep the key in the OS keyring with `mcp-canvas-cli servers login NAME --private-key-file FILE`".into()),
        _ => match store.load_client_secret().await? {
            Some(secret) => Ok(Credential::Secret(secret)),
            None => Err("no client secret or private key is stored for `oauth.client_id`: `mcp-canvas-cli servers login NAME --client-secret-stdin` (or `--private-key-file FILE`)".into()),
        },
    }
}

/// A PEM private key file, refused when anyone but its owner can read it.
pub fn read_private_key(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let metadata = std::fs::metadata(path).map_err(|e| format!("cannot read the private key file {shown} (`oauth.private_key_file`): {e}"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(format!("the private key file {shown} can be read by others (mode {mode:o}); not used — `chmod 600 {shown}`"));
        }
    }
    let pem = std::fs::read_to_string(path).map_err(|e| format!("cannot read the private key file {shown}: {e}"))?;
    if !pem.contains("-----BEGIN") || !pem.contains("PRIVATE KEY-----") {
        return Err(format!("{shown} is not a PEM private key (`-----BEGIN PRIVATE KEY-----` …)"));
    }
    Ok(pem)
}

/// A token from a file (read fresh each time: workload tokens are rotated) or a variable.
fn read_token(file: Option<&Path>, env: Option<&str>, setting: &str) -> Result<String, String> {
    let token = match (file, env) {
        (Some(path), _) => std::fs::read_to_string(path).map_err(|e| format!("cannot read `oauth.{setting}_file` {}: {e}", path.display()))?,
        (None, Some(name)) => std::env::var(name).map_err(|_| format!("the variable `{name}` (`oauth.{setting}_env`) is not set"))?,
        (None, None) => return Err(format!("`oauth.{setting}_file` or `oauth.{setting}_env` is needed")),
    };
    let token = token.trim().to_owned();
    if token.is_empty() || token.split('.').count() != 3 {
        return Err(format!("`oauth.{setting}_{}` does not hold a JWT", if file.is_some() { "file" } else { "env" }));
    }
    Ok(token)
}

/// One form POST to the token endpoint; its answer as a token response, or what the server said.
async fn token_request(http: &TokenHttp, metadata: &AuthorizationMetadata, form: String, authorization: Option<String>, what: &str) -> Result<OAuthTokenResponse, String> {
    let endpoint = &metadata.token_endpoint;
    let mut request = http::Request::builder();
    if let Some(authorization) = authorization {
        request = request.header(http::header::AUTHORIZATION, authorization);
    }
    let request = request
        .method("POST")
        .uri(endpoint)
        .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(http::header::ACCEPT, "application/json")
        .body(form.into_bytes())
        .map_err(|e| format!("the token endpoint {endpoint} is not a usable URL: {e}"))?;
    let response = http.send(request, false).await?;
    parse_token_response(endpoint, response.status(), response.body(), what)
}

/// A token endpoint's answer: tokens, or an error saying what it said (its `error` and
/// `error_description`), or that it answered something else.
pub(crate) fn parse_token_response(endpoint: &str, status: http::StatusCode, body: &[u8], what: &str) -> Result<OAuthTokenResponse, String> {
    let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    if !status.is_success() {
        if let Some(error) = json.as_ref().and_then(|j| j.get("error")).and_then(|e| e.as_str()) {
            let description = json.as_ref().and_then(|j| j.get("error_description")).and_then(|e| e.as_str()).map(|d| format!(": {d}")).unwrap_or_default();
            return Err(format!("the token endpoint {endpoint} refused {what}: {error}{description}"));
        }
        return Err(format!("the token endpoint {endpoint} answered HTTP {status} without an OAuth error ({what})"));
    }
    match json.map(serde_json::from_value::<OAuthTokenResponse>) {
        Some(Ok(tokens)) => Ok(tokens),
        _ => Err(format!("the token endpoint {endpoint} answered {what} with HTTP {status} and something that is not a token response ({} bytes, not JSON with `access_token` and `token_type`); check that the server's authorization server is the one meant", body.len())),
    }
}

async fn save(store: &TokenStore, metadata: &AuthorizationMetadata, client_id: String, tokens: &OAuthTokenResponse, scopes: &[String]) -> Result<(), String> {
    use rmcp::transport::auth::CredentialStore as _;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let granted = granted(tokens).unwrap_or_else(|| scopes.to_vec());
    let mut credentials = StoredCredentials::new(client_id, Some(tokens.clone()), granted, Some(now));
    credentials.issuer = metadata.issuer.clone();
    store.save(credentials).await.map_err(|e| e.to_string())
}

fn granted(tokens: &OAuthTokenResponse) -> Option<Vec<String>> {
    use oauth2::TokenResponse as _;
    tokens.scopes().map(|s| s.iter().map(|s| s.to_string()).collect())
}

/// Whether the stored token of a machine grant is still good: more than a minute left, or half
/// its life for a short-lived one — more than rmcp's own margin (30 s, or half), so rmcp never
/// tries to refresh what has no refresh token.
pub(crate) fn still_good(credentials: &StoredCredentials) -> bool {
    use oauth2::TokenResponse as _;
    let Some(tokens) = &credentials.token_response else { return false };
    let (Some(at), Some(lasts)) = (credentials.token_received_at, tokens.expires_in()) else { return true };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let margin = 60.min(lasts.as_secs() / 2 + 1);
    at + lasts.as_secs() > now + margin
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_from_a_token_endpoint_is_named_not_echoed() {
        let err = parse_token_response("https://as.example/token", http::StatusCode::OK, b"<html>secret-ish page</html>", "the workload token").unwrap_err();
        assert!(err.contains("https://as.example/token") && err.contains("not a token response") && !err.contains("secret-ish"), "{err}");
        let err = parse_token_response("https://as.example/token", http::StatusCode::BAD_REQUEST, br#"{"error":"invalid_grant","error_description":"expired"}"#, "x").unwrap_err();
        assert!(err.contains("invalid_grant: expired"), "{err}");
        let err = parse_token_response("https://as.example/token", http::StatusCode::BAD_GATEWAY, b"oops", "x").unwrap_err();
        assert!(err.contains("HTTP 502"), "{err}");
        let ok = parse_token_response("https://as.example/token", http::StatusCode::OK, br#"{"access_token":"t","token_type":"DPoP","expires_in":60}"#, "x").unwrap();
        assert_eq!(oauth2::TokenResponse::access_token(&ok).secret(), "t");
    }

    #[test]
    fn a_private_key_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key.pem");
        std::fs::write(&path, "-----BEGIN PRIVATE KEY-----\nMIG\n-----END PRIVATE KEY-----\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let err = read_private_key(&path).unwrap_err();
            assert!(err.contains("can be read by others") && err.contains("chmod 600") && !err.contains("MIG"), "{err}");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert!(read_private_key(&path).unwrap().contains("BEGIN PRIVATE KEY"));
        std::fs::write(&path, "not a key").unwrap();
        assert!(read_private_key(&path).unwrap_err().contains("not a PEM private key"));
    }

    #[test]
    fn a_workload_token_must_be_a_jwt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "a.b.c\n").unwrap();
        assert_eq!(read_token(Some(&path), None, "workload_token").unwrap(), "a.b.c");
        std::fs::write(&path, "").unwrap();
        assert!(read_token(Some(&path), None, "workload_token").unwrap_err().contains("`oauth.workload_token_file` does not hold a JWT"));
        assert!(read_token(None, Some("MCP_CANVAS_NO_SUCH_VARIABLE"), "workload_token").unwrap_err().contains("`oauth.workload_token_env`"));
    }
}
