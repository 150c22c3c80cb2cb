//! The server config file (`servers.json` in the data dir), in the `mcpServers` shape that Claude
//! Desktop and Cursor use, so entries can be pasted between them.
//!
//! On first run the file is created with the bundled demo server. Keys we do not understand are
//! kept and written back, never dropped.

use std::{collections::BTreeMap, path::Path};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ConfigError;

/// The name the bundled demo server is configured under.
pub const DEMO_SERVER: &str = "demo";
/// The demo server's program; resolved next to our own executable first (see `mcp_canvas_host::Host`).
pub const DEMO_COMMAND: &str = "mcp-canvas-demo";

/// The whole config file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServersConfig {
    /// Servers by name.
    #[serde(rename = "mcpServers", default)]
    pub servers: BTreeMap<String, ServerEntry>,
    /// Top-level keys we do not use, preserved.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// How to reach one server: a stdio program (`command`) or a Streamable HTTP endpoint (`url`).
/// A missing `type` means stdio when `command` is given; `http` means Streamable HTTP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerEntry {
    /// `stdio`, `http` (also accepted: `streamable-http`, `streamableHttp`), or absent.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Program to run. A bare name is looked up next to MCP Canvas's own binaries, then on PATH.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Streamable HTTP endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Extra HTTP headers (e.g. `Authorization`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Keys we do not use, preserved.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An HTTP server's sign-in settings (all optional: by default everything is discovered and the
/// client registers itself).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthEntry {
    /// A client ID registered with the authorization server beforehand (no registration then).
    #[serde(default)]
    pub client_id: Option<String>,
    /// The scopes to ask for instead of those the server names.
    #[serde(default)]
    pub scopes: Option<Vec<String>>,
    /// An HTTPS client ID metadata document to use as the client ID where the authorization
    /// server supports them.
    #[serde(default)]
    pub client_metadata_url: Option<String>,
    /// How tokens are obtained: a user signing in in the browser (the default), or a machine
    /// grant that needs no one (see [`Grant`]).
    #[serde(default)]
    pub grant: Grant,
    /// How the client proves itself at the token endpoint with `client_credentials` (and at the
    /// MCP authorization server with `enterprise`): by default `private_key_jwt` when a private
    /// key is stored, else the secret (Basic or in the body, as the server supports).
    #[serde(default)]
    pub client_auth: Option<ClientAuth>,
    /// A PEM private key file for `private_key_jwt`, readable by its owner only (a key anyone
    /// else can read is refused). Instead of a file, the key can be kept in the OS keyring with
    /// `mcp-canvas-cli servers login NAME --private-key-file FILE`.
    #[serde(default)]
    pub private_key_file: Option<std::path::PathBuf>,
    /// The `private_key_jwt` signing algorithm: `ES256` (default), `ES384`, `RS256`, `RS384`, `RS512`.
    #[serde(default)]
    pub signing_algorithm: Option<String>,
    /// Sender-constrained tokens (DPoP, RFC 9449): a P-256 key of this server's own proves
    /// possession on every token and MCP request.
    #[serde(default)]
    pub dpop: bool,
    /// `jwt_bearer` (workload identity federation): where the workload's identity token is read,
    /// fresh for each token request — a file (as Kubernetes and CI runners project it) ...
    #[serde(default)]
    pub workload_token_file: Option<std::path::PathBuf>,
    /// ... or an environment variable.
    #[serde(default)]
    pub workload_token_env: Option<String>,
    /// `enterprise`: the identity provider that exchanges the user's ID token for an identity
    /// assertion grant (ID-JAG).
    #[serde(default)]
    pub enterprise: Option<EnterpriseEntry>,
}

impl OAuthEntry {
    /// The settings a grant needs are there.
    fn check(&self) -> Result<(), String> {
        if self.grant.is_machine() && self.grant != Grant::JwtBearer && self.client_id.is_none() {
            return Err(format!("`grant: \"{}\"` needs `client_id` (the client registered with the authorization server)", self.grant.name()));
        }
        if self.grant == Grant::JwtBearer && self.workload_token_file.is_none() && self.workload_token_env.is_none() {
            return Err("`grant: \"jwt_bearer\"` needs `workload_token_file` or `workload_token_env` (where the workload's identity token is)".into());
        }
        match (&self.enterprise, self.grant) {
            (None, Grant::Enterprise) => return Err("`grant: \"enterprise\"` needs `enterprise` (`idp_issuer`, `idp_token_endpoint`, `idp_client_id`, and `id_token_file` or `id_token_env`)".into()),
            (Some(e), Grant::Enterprise) if e.id_token_file.is_none() && e.id_token_env.is_none() => return Err("`enterprise` needs `id_token_file` or `id_token_env` (where the user's ID token is)".into()),
            (Some(_), grant) if grant != Grant::Enterprise => return Err("`enterprise` is only used with `grant: \"enterprise\"`".into()),
            _ => {}
        }
        if let Some(alg) = self.signing_algorithm.as_ref().filter(|alg| !["ES256", "ES384", "RS256", "RS384", "RS512"].contains(&alg.as_str())) {
            return Err(format!("`signing_algorithm` `{alg}` is not one of ES256, ES384, RS256, RS384, RS512"));
        }
        Ok(())
    }
}

impl Grant {
    /// Its name in servers.json.
    pub fn name(self) -> &'static str {
        match self {
            Grant::AuthorizationCode => "authorization_code",
            Grant::ClientCredentials => "client_credentials",
            Grant::JwtBearer => "jwt_bearer",
            Grant::Enterprise => "enterprise",
        }
    }
}

/// How a server's tokens are obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
    /// A user signs in in the browser (authorization code with PKCE).
    #[default]
    AuthorizationCode,
    /// The client itself, with its secret or private key (SEP-1046).
    ClientCredentials,
    /// Workload identity federation: the workload's identity token as an RFC 7523 assertion
    /// (SEP-1933).
    JwtBearer,
    /// Enterprise-managed authorization: the user's ID token exchanged at the identity provider
    /// for an ID-JAG, redeemed at the server's authorization server (SEP-990).
    Enterprise,
}

impl Grant {
    /// Whether tokens come without anyone signing in (no browser).
    pub fn is_machine(self) -> bool {
        self != Grant::AuthorizationCode
    }
}

/// How the client authenticates at a token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientAuth {
    /// The secret in an HTTP Basic header.
    ClientSecretBasic,
    /// The secret in the request body.
    ClientSecretPost,
    /// A JWT signed with the client's private key (RFC 7523).
    PrivateKeyJwt,
}

/// The identity provider of `grant: "enterprise"`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnterpriseEntry {
    /// Its issuer identifier.
    pub idp_issuer: String,
    /// Its token endpoint (token exchange, RFC 8693).
    pub idp_token_endpoint: String,
    /// Our client ID there.
    pub idp_client_id: String,
    /// Where the user's ID token is read (a file only its owner can read) ...
    #[serde(default)]
    pub id_token_file: Option<std::path::PathBuf>,
    /// ... or an environment variable.
    #[serde(default)]
    pub id_token_env: Option<String>,
}

/// How a server is reached, once the entry is checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Endpoint<'a> {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        /// The program.
        command: &'a str,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint URL.
        url: &'a str,
    },
}

/// What is wrong with one server entry (its `command`/`url`, `timeout_seconds`, ...).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EntryError(pub String);

impl EntryError {
    /// The same problem as an error about `server` in the config file at `path`.
    pub fn in_file(self, server: &str, path: &Path) -> crate::ConfigError {
        crate::ConfigError::File { path: path.to_owned(), reason: format!("server `{server}`: {}", self.0) }
    }
}

impl From<String> for EntryError {
    fn from(reason: String) -> Self {
        Self(reason)
    }
}

impl From<&str> for EntryError {
    fn from(reason: &str) -> Self {
        Self(reason.to_owned())
    }
}

impl ServerEntry {
    /// A stdio entry running `command` with no arguments.
    pub fn stdio(command: &str) -> Self {
        Self { kind: None, command: Some(command.to_owned()), args: Vec::new(), env: BTreeMap::new(), cwd: None, url: None, headers: BTreeMap::new(), other: Map::new() }
    }

    /// Checks the entry and says how to reach the server.
    pub fn endpoint(&self) -> Result<Endpoint<'_>, EntryError> {
        match (self.kind.as_deref(), self.command.as_deref(), self.url.as_deref()) {
            (None | Some("stdio"), Some(command), None) if !command.trim().is_empty() => Ok(Endpoint::Stdio { command }),
            (None | Some("http" | "streamable-http" | "streamableHttp"), None, Some(url)) => match url.parse::<http::Uri>() {
                Ok(uri) if matches!(uri.scheme_str(), Some("http" | "https")) => Ok(Endpoint::Http { url }),
                _ => Err(format!("`url` {url:?} is not an http(s) URL").into()),
            },
            (Some("sse"), ..) => Err("`type: sse` (the deprecated HTTP+SSE transport) is not supported; use the server's Streamable HTTP endpoint with `type: http`".into()),
            (Some(other), ..) if !matches!(other, "stdio" | "http" | "streamable-http" | "streamableHttp") => Err(format!("unknown `type` {other:?}; use `stdio` or `http`").into()),
            (_, Some(_), Some(_)) => Err("give either `command` (stdio) or `url` (http), not both".into()),
            (Some("stdio"), None, _) | (None, None, None) => Err("no `command` to run (or `url` to reach)".into()),
            (_, Some(_), None) => Err("`type: http` needs a `url`, not a `command`".into()),
            (_, None, _) => Err("`command` is empty".into()),
        }
    }

    /// The entry's own limit for one tool call (`"timeout_seconds": 300`), overriding the
    /// front end's default; a command-line `--timeout` still wins. Kept among the unknown keys
    /// so other clients reading the same file are not disturbed.
    pub fn timeout(&self) -> Result<Option<std::time::Duration>, EntryError> {
        match self.other.get("timeout_seconds") {
            None | Some(Value::Null) => Ok(None),
            Some(value) => match value.as_f64() {
                Some(seconds) if seconds > 0.0 && seconds <= 86_400.0 => Ok(Some(std::time::Duration::from_secs_f64(seconds))),
                _ => Err(format!("`timeout_seconds` must be a number of seconds between 0 and 86400, got {value}").into()),
            },
        }
    }

    /// The largest message accepted from this server (`max_message_bytes`), when the entry
    /// sets one; the default is 1 GiB. A larger message fails the call it answers, at once.
    pub fn max_message_bytes(&self) -> Result<Option<usize>, EntryError> {
        match self.other.get("max_message_bytes") {
            None | Some(Value::Null) => Ok(None),
            Some(value) => match value.as_u64() {
                Some(bytes) if (1024..=1 << 30).contains(&bytes) => Ok(Some(bytes as usize)),
                _ => Err(format!("`max_message_bytes` must be a whole number of bytes between 1024 and 1073741824, got {value}").into()),
            },
        }
    }

    /// The MCP protocol version the entry asks for (`"protocol_version": "2026-07-28"`), when it
    /// asks for one; `None` means the usual `initialize` handshake at the newest version that has it.
    pub fn protocol_version(&self) -> Result<Option<&str>, EntryError> {
        match self.other.get("protocol_version") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(version)) if version.len() == 10 && version.as_bytes()[4] == b'-' => Ok(Some(version)),
            Some(other) => Err(format!("`protocol_version` must be a version such as \"2025-11-25\", got {other}").into()),
        }
    }

    /// How MCP Canvas signs in to this (HTTP) server, when the entry says more than "discover
    /// everything" (`"oauth": {"client_id": "...", "scopes": ["read"], "client_metadata_url":
    /// "https://..."}`). A pre-registered client's secret is never kept here: `mcp-canvas-cli
    /// servers login NAME --client-secret-stdin` puts it in the OS keyring with the tokens.
    pub fn oauth(&self) -> Result<OAuthEntry, EntryError> {
        match self.other.get("oauth") {
            None | Some(Value::Null) => Ok(OAuthEntry::default()),
            Some(value) => {
                if value.get("client_secret").is_some() {
                    return Err("`oauth.client_secret` does not belong in servers.json (anyone who can read the file would have it); remove it and store it with `mcp-canvas-cli servers login NAME --client-secret-stdin`".into());
                }
                if value.get("private_key").is_some() {
                    return Err("`oauth.private_key` does not belong in servers.json (anyone who can read the file would have it); keep it in the OS keyring with `mcp-canvas-cli servers login NAME --private-key-file FILE`, or name a file only you can read as `oauth.private_key_file`".into());
                }
                let entry: OAuthEntry = serde_json::from_value(value.clone()).map_err(|e| EntryError(format!("`oauth` is not usable: {e}")))?;
                entry.check().map_err(|e| EntryError(format!("`oauth`: {e}")))?;
                Ok(entry)
            }
        }
    }

    /// What the UI shows for the entry: the command line or the URL.
    pub fn target(&self) -> String {
        match (&self.command, &self.url) {
            (Some(command), _) => std::iter::once(command.as_str()).chain(self.args.iter().map(String::as_str)).collect::<Vec<_>>().join(" "),
            (None, Some(url)) => url.clone(),
            (None, None) => String::new(),
        }
    }
}

impl ServersConfig {
    /// The config a first run starts with: the demo server only.
    pub fn first_run() -> Self {
        let demo = ServerEntry::stdio(DEMO_COMMAND);
        Self { servers: BTreeMap::from([(DEMO_SERVER.to_owned(), demo)]), other: Map::new() }
    }

    /// Reads the config at `path`, creating it with [`Self::first_run`] when it does not exist.
    pub fn load_or_create(path: &Path) -> Result<Self, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| ConfigError::File {
                path: path.to_owned(),
                reason: format!("not a valid server config: {e}"),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let config = Self::first_run();
                config.save(path)?;
                Ok(config)
            }
            Err(e) => Err(ConfigError::File { path: path.to_owned(), reason: e.to_string() }),
        }
    }

    /// Writes the config atomically (temp file + rename).
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let fail = |e: std::io::Error| ConfigError::File { path: path.to_owned(), reason: e.to_string() };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        let temp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(self).expect("config serializes") + "\n";
        std::fs::write(&temp, text).map_err(fail)?;
        std::fs::rename(&temp, path).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oauth(value: Value) -> Result<OAuthEntry, String> {
        let entry: ServerEntry = serde_json::from_value(serde_json::json!({ "type": "http", "url": "https://x.example/mcp", "oauth": value })).unwrap();
        entry.oauth().map_err(|e| e.0)
    }

    #[test]
    fn the_auth_extensions_are_read_and_what_a_grant_lacks_is_named() {
        let entry = oauth(serde_json::json!({ "grant": "client_credentials", "client_id": "c", "client_auth": "private_key_jwt", "private_key_file": "/k.pem", "dpop": true })).unwrap();
        assert_eq!((entry.grant, entry.client_auth, entry.dpop), (Grant::ClientCredentials, Some(ClientAuth::PrivateKeyJwt), true));
        assert!(entry.grant.is_machine() && !Grant::default().is_machine());
        let wif = oauth(serde_json::json!({ "grant": "jwt_bearer", "workload_token_env": "TOKEN" })).unwrap();
        assert_eq!(wif.workload_token_env.as_deref(), Some("TOKEN"));
        for (value, says) in [
            (serde_json::json!({ "grant": "client_credentials" }), "needs `client_id`"),
            (serde_json::json!({ "grant": "jwt_bearer" }), "`workload_token_file` or `workload_token_env`"),
            (serde_json::json!({ "grant": "enterprise", "client_id": "c" }), "needs `enterprise`"),
            (serde_json::json!({ "grant": "enterprise", "client_id": "c", "enterprise": { "idp_issuer": "i", "idp_token_endpoint": "t", "idp_client_id": "x" } }), "`id_token_file` or `id_token_env`"),
            (serde_json::json!({ "client_id": "c", "enterprise": { "idp_issuer": "i", "idp_token_endpoint": "t", "idp_client_id": "x" } }), "only used with"),
            (serde_json::json!({ "grant": "client_credentials", "client_id": "c", "signing_algorithm": "HS256" }), "`signing_algorithm` `HS256`"),
            (serde_json::json!({ "grant": "password" }), "`oauth` is not usable"),
            (serde_json::json!({ "private_key": "-----BEGIN PRIVATE KEY-----" }), "does not belong in servers.json"),
        ] {
            let err = oauth(value.clone()).unwrap_err();
            assert!(err.contains(says), "{value}: {err}");
            assert!(!err.contains("BEGIN PRIVATE KEY"), "{err}");
        }
    }

    #[test]
    fn first_run_creates_the_demo_server_and_reads_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        let created = ServersConfig::load_or_create(&path).unwrap();
        assert_eq!(created.servers[DEMO_SERVER].command.as_deref(), Some(DEMO_COMMAND));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"mcpServers\""), "{text}");
        assert_eq!(ServersConfig::load_or_create(&path).unwrap(), created);
    }

    #[test]
    fn unknown_keys_survive_a_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        let text = r#"{"mcpServers":{"x":{"command":"x","disabled":true,"alwaysAllow":["a"]}},"theme":"dark"}"#;
        std::fs::write(&path, text).unwrap();
        let config = ServersConfig::load_or_create(&path).unwrap();
        config.save(&path).unwrap();
        let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back["theme"], "dark");
        assert_eq!(back["mcpServers"]["x"]["disabled"], true);
        assert_eq!(back["mcpServers"]["x"]["alwaysAllow"][0], "a");
    }

    #[test]
    fn endpoints_stdio_http_and_mistakes() {
        let entry = |json: &str| serde_json::from_str::<ServerEntry>(json).unwrap();
        assert_eq!(entry(r#"{"command":"x"}"#).endpoint(), Ok(Endpoint::Stdio { command: "x" }));
        assert_eq!(entry(r#"{"type":"http","url":"http://127.0.0.1:3001/mcp"}"#).endpoint(), Ok(Endpoint::Http { url: "http://127.0.0.1:3001/mcp" }));
        assert_eq!(entry(r#"{"url":"https://example.com/mcp"}"#).endpoint(), Ok(Endpoint::Http { url: "https://example.com/mcp" }));
        for (json, says) in [
            (r#"{"type":"http","url":"ftp://x"}"#, "not an http(s) URL"),
            (r#"{"command":"x","url":"http://a"}"#, "not both"),
            (r#"{"type":"sse","url":"http://a/sse"}"#, "not supported"),
            (r#"{"type":"pigeon","command":"x"}"#, "unknown `type`"),
            (r#"{}"#, "no `command`"),
        ] {
            let err = entry(json).endpoint().unwrap_err().0;
            assert!(err.contains(says), "{json}: {err}");
        }
    }

    #[test]
    fn per_server_timeout_and_protocol_version() {
        let entry = |json: &str| serde_json::from_str::<ServerEntry>(json).unwrap();
        assert_eq!(entry(r#"{"command":"x"}"#).timeout(), Ok(None));
        assert_eq!(entry(r#"{"command":"x","timeout_seconds":5}"#).timeout(), Ok(Some(std::time::Duration::from_secs(5))));
        assert_eq!(entry(r#"{"command":"x","timeout_seconds":0.5}"#).timeout(), Ok(Some(std::time::Duration::from_millis(500))));
        for bad in [r#"{"command":"x","timeout_seconds":0}"#, r#"{"command":"x","timeout_seconds":"60"}"#, r#"{"command":"x","timeout_seconds":-1}"#] {
            assert!(entry(bad).timeout().unwrap_err().0.contains("timeout_seconds"), "{bad}");
        }
        assert_eq!(entry(r#"{"command":"x","protocol_version":"2026-07-28"}"#).protocol_version(), Ok(Some("2026-07-28")));
        assert_eq!(entry(r#"{"command":"x"}"#).protocol_version(), Ok(None));
        assert!(entry(r#"{"command":"x","protocol_version":7}"#).protocol_version().is_err());
        // The keys stay where they were when the file is written back.
        let back = serde_json::to_value(entry(r#"{"command":"x","timeout_seconds":5}"#)).unwrap();
        assert_eq!(back["timeout_seconds"], 5);
    }

    #[test]
    fn broken_config_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        std::fs::write(&path, "{ nope").unwrap();
        let err = ServersConfig::load_or_create(&path).unwrap_err().to_string();
        assert!(err.contains("servers.json") && err.contains("not a valid server config"), "{err}");
    }
}
