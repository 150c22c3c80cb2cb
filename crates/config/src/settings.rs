//! User settings in `settings.toml` in the data dir. Absent file or keys mean the defaults.
//!
//! ```toml
//! [artifacts]
//! quota_bytes = 2147483648       # 2 GiB; unpinned artifacts beyond it are evicted, LRU first
//! max_age_days = 30              # optional; unpinned artifacts unused this long are evicted
//! session_retention_days = 7     # idle sessions' session-scoped artifacts are cleared at start
//!
//! [identity]
//! username = "ada"               # injected into tools that take `username`; default: $USER
//!
//! [dashboards]
//! allowed_origins = ["http://127.0.0.1:8765"]  # origins dashboards may load from; default: none
//!
//! [render]
//! allow_remote_images = false    # HTML artifacts may load images from the network; default: no
//!
//! [appearance]
//! theme = "system"               # "system" (follow the OS), "light" or "dark"
//!
//! [sampling]                     # servers' LLM requests: see mcp_canvas_sampling::settings
//! policy = "ask"
//!
//! [store]                        # where artifacts live; default: backend = "local"
//! backend = "team"               # bytes in an S3-compatible bucket, the catalog in PostgreSQL
//! s3_url = "s3://bucket/prefix"
//! s3_endpoint = "http://127.0.0.1:9000"   # optional: R2, MinIO, Garage, ...; default: AWS
//! s3_region = "us-east-1"        # optional; default: $AWS_REGION, else us-east-1
//! catalog_url = "postgres://canvas@db.example.com/canvas"   # no password here: see below
//! team = "analytics"
//! cache_quota_bytes = 10737418240  # the local cache of the team's artifacts; default 10 GiB
//!
//! [files]                        # files going into tools
//! inline_max_bytes = 16777216    # the largest file sent inline as a data URI; default 16 MiB
//! ```
//!
//! Credentials never go in this file: the bucket's come from the AWS environment variables or
//! profile, the database password from `MCP_CANVAS_CATALOG_PASSWORD`, `PGPASSWORD` or the OS
//! keyring (`mcp-canvas-cli store set-password`).
//!
//! [`crate::settings_edit`] changes single keys, keeping the file's comments.

use std::path::Path;

use mcp_canvas_sampling::SamplingSettings;
use mcp_canvas_store::Limits;
use serde::Deserialize;

use crate::error::ConfigError;

/// Everything `settings.toml` can say.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Artifact store limits.
    pub artifacts: Limits,
    /// Who the local user is, for tools that take a `username` (000 §4).
    pub identity: Identity,
    /// Live dashboards (000 §3): which origins may load.
    pub dashboards: DashboardSettings,
    /// How artifacts are shown.
    pub render: RenderSettings,
    /// How the window looks.
    pub appearance: Appearance,
    /// Servers' sampling requests: providers and per-server policy.
    pub sampling: SamplingSettings,
    /// Where artifacts live: this machine only, or a team's bucket and catalog.
    pub store: StoreSettings,
    /// Files going into tools.
    pub files: FileSettings,
}

/// `[files]`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct FileSettings {
    /// The largest file sent inline (a data URI); larger ones are uploaded where the tool allows,
    /// else refused naming the size. Default 16 MiB.
    pub inline_max_bytes: u64,
}

impl Default for FileSettings {
    fn default() -> Self {
        Self { inline_max_bytes: 16 * 1024 * 1024 }
    }
}

/// `[store]`.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
#[ts(export)]
pub struct StoreSettings {
    /// `local` (the default) or `team`.
    pub backend: StoreBackend,
    /// `s3://bucket` or `s3://bucket/prefix`.
    pub s3_url: Option<String>,
    /// An S3-compatible endpoint (R2, MinIO, ...); AWS when absent.
    pub s3_endpoint: Option<String>,
    /// The bucket's region; `$AWS_REGION` or `us-east-1` when absent.
    pub s3_region: Option<String>,
    /// `postgres://user@host[:port]/database[?sslmode=...]`, without a password.
    pub catalog_url: Option<String>,
    /// The team's name: artifacts are shared within it.
    pub team: Option<String>,
    /// Bytes the local cache of team artifacts may hold (queued uploads are never evicted).
    #[ts(type = "number")]
    pub cache_quota_bytes: u64,
    /// Team retention, which the app and the proxy run by themselves (one process of the team at
    /// a time): the team's unpinned artifacts unused for this many days are removed. Absent:
    /// kept (what interrupted uploads leave is cleaned up all the same).
    pub retention_days: Option<u32>,
    /// Team retention removes what interrupted uploads left (unfinished multipart uploads,
    /// staging copies) once it is this many hours old. Default 24.
    pub abandoned_upload_hours: u32,
}

impl Default for StoreSettings {
    fn default() -> Self {
        Self {
            backend: StoreBackend::Local,
            s3_url: None,
            s3_endpoint: None,
            s3_region: None,
            catalog_url: None,
            team: None,
            cache_quota_bytes: 10 << 30,
            retention_days: None,
            abandoned_upload_hours: 24,
        }
    }
}

/// Where artifacts live.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum StoreBackend {
    /// This data dir only.
    #[default]
    Local,
    /// A team's S3-compatible bucket and PostgreSQL catalog, this data dir as cache and outbox.
    Team,
}

impl StoreSettings {
    /// What is missing or wrong for `backend = "team"` (empty for `local`).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.backend == StoreBackend::Local {
            return problems;
        }
        match self.s3_url.as_deref() {
            None => problems.push("[store] backend = \"team\" needs s3_url = \"s3://bucket[/prefix]\"".to_owned()),
            Some(url) if !url.starts_with("s3://") || url.len() <= 5 => problems.push(format!("[store] s3_url `{url}` is not s3://bucket[/prefix]")),
            Some(_) => {}
        }
        match self.catalog_url.as_deref() {
            None => problems.push("[store] backend = \"team\" needs catalog_url = \"postgres://user@host/database\"".to_owned()),
            Some(url) if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) => problems.push("[store] catalog_url is not a postgres:// URL".to_owned()),
            Some(url) if url_has_password(url) => problems.push(
                "[store] catalog_url carries a password: passwords are never kept in settings.toml; remove it and use `mcp-canvas-cli store set-password` (OS keyring) or MCP_CANVAS_CATALOG_PASSWORD".to_owned(),
            ),
            Some(_) => {}
        }
        if self.team.as_deref().is_none_or(|t| t.trim().is_empty()) {
            problems.push("[store] backend = \"team\" needs team = \"<your team's name>\"".to_owned());
        }
        if self.abandoned_upload_hours == 0 {
            problems.push("[store] abandoned_upload_hours must be at least 1 (an upload in progress would be cut off)".to_owned());
        }
        if self.retention_days == Some(0) {
            problems.push("[store] retention_days must be at least 1 (or absent: artifacts are kept)".to_owned());
        }
        problems
    }
}

/// Whether `postgres://user:password@host/...` carries a password.
fn url_has_password(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let query = rest.split_once('?').map_or("", |(_, q)| q);
    authority.rsplit_once('@').is_some_and(|(userinfo, _)| userinfo.contains(':')) || query.split('&').any(|p| p.to_ascii_lowercase().starts_with("password="))
}

/// `[render]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RenderSettings {
    /// Images from the network in HTML artifacts load (tracking pixels too). Default: blocked.
    pub allow_remote_images: bool,
}

/// `[appearance]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Appearance {
    /// The window's colours.
    pub theme: Theme,
}

/// Light, dark, or whatever the system says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Theme {
    /// Follow the system's preference.
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

/// `[dashboards]`: the origin allowlist (see [`crate::allowlist`], which also edits it).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DashboardSettings {
    /// Origins (`scheme://host[:port]`) whose dashboards may load in a tab. Empty by default:
    /// nothing loads until the user allows an origin. Entries that are not origins are ignored.
    pub allowed_origins: Vec<String>,
}

/// The local identity injected into tools whose schema defines `username`; never what a model says.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Identity {
    /// Defaults to the OS user (`$USER`, else `$LOGNAME`, else `local-user`).
    pub username: String,
}

impl Default for Identity {
    fn default() -> Self {
        let username = ["USER", "LOGNAME"].iter().find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty())).unwrap_or_else(|| "local-user".into());
        Self { username }
    }
}

impl Settings {
    /// Reads `path`; a missing file gives the defaults, a broken one a clear error.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let error = |reason: String| ConfigError::Settings { path: path.to_owned(), reason };
                refuse_plain_keys(&text).map_err(error)?;
                let settings: Self = toml::from_str(&text).map_err(|e| error(e.to_string()))?;
                let mut problems = settings.sampling.problems();
                problems.extend(settings.store.problems());
                match problems.as_slice() {
                    [] => Ok(settings),
                    problems => Err(error(problems.join("; "))),
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(ConfigError::Settings { path: path.to_owned(), reason: e.to_string() }),
        }
    }
}

/// An API key written into settings.toml is refused, naming where keys go instead (the file is
/// plain text, often synced or shared; keys live in the OS keyring or the environment).
fn refuse_plain_keys(text: &str) -> Result<(), String> {
    let Ok(value) = text.parse::<toml::Table>() else { return Ok(()) }; // the real parse reports it
    let providers = value.get("sampling").and_then(|s| s.get("providers")).and_then(|p| p.as_array());
    for provider in providers.into_iter().flatten() {
        if provider.get("api_key").is_some() {
            let name = provider.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            return Err(format!(
                "[[sampling.providers]] \"{name}\" has an api_key: keys are never kept in settings.toml; remove it and store the key with `mcp-canvas-cli sampling set-key {name}` (OS keyring, api_key_keyring = true) or name an environment variable with api_key_env"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        assert_eq!(Settings::load(&path).unwrap().artifacts.quota_bytes, 2 << 30);
        std::fs::write(&path, "[artifacts]\nquota_bytes = 1000\nmax_age_days = 3\n").unwrap();
        let settings = Settings::load(&path).unwrap();
        assert_eq!((settings.artifacts.quota_bytes, settings.artifacts.max_age_days, settings.artifacts.session_retention_days), (1000, Some(3), 7));
        std::fs::write(&path, "[artifacts]\nquota = 1\n").unwrap();
        let err = Settings::load(&path).unwrap_err().to_string();
        assert!(err.contains("settings.toml") && err.contains("unknown field"), "{err}");
    }

    #[test]
    fn a_team_store_needs_its_bucket_catalog_and_team_and_never_a_password() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        assert_eq!(Settings::load(&path).unwrap().store.backend, StoreBackend::Local);
        std::fs::write(&path, "[store]\nbackend = \"team\"\ns3_url = \"s3://b/p\"\ncatalog_url = \"postgres://ada@db/canvas\"\nteam = \"t\"\n").unwrap();
        let settings = Settings::load(&path).unwrap();
        assert_eq!((settings.store.backend, settings.store.team.as_deref()), (StoreBackend::Team, Some("t")));
        std::fs::write(&path, "[store]\nbackend = \"team\"\n").unwrap();
        let err = Settings::load(&path).unwrap_err().to_string();
        assert!(err.contains("needs s3_url") && err.contains("needs catalog_url") && err.contains("needs team"), "{err}");
        std::fs::write(&path, "[store]\nbackend = \"team\"\ns3_url = \"s3://b\"\ncatalog_url = \"postgres://ada:hunter2@db/canvas\"\nteam = \"t\"\n").unwrap();
        let err = Settings::load(&path).unwrap_err().to_string();
        assert!(err.contains("carries a password") && !err.contains("hunter2"), "{err}");
        std::fs::write(&path, "[store]\nbackend = \"team\"\ns3_url = \"s3://b\"\ncatalog_url = \"postgres://ada@db/canvas?sslmode=prefer&password=hunter2\"\nteam = \"t\"\n").unwrap();
        let err = Settings::load(&path).unwrap_err().to_string();
        assert!(err.contains("carries a password") && !err.contains("hunter2"), "{err}");
    }

    #[test]
    fn sampling_settings_load_and_a_plain_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        let provider = "[[sampling.providers]]\nname = \"local\"\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:8089/v1\"\nmodels = [\"smollm2\"]\n";
        std::fs::write(&path, format!("[sampling]\npolicy = \"always\"\n{provider}\n[sampling.servers.demo]\nmax_tokens = 64\n")).unwrap();
        let settings = Settings::load(&path).unwrap();
        assert_eq!(settings.sampling.effective("demo").max_tokens, 64);
        assert_eq!(settings.sampling.providers[0].name, "local");
        std::fs::write(&path, format!("{provider}api_key = \"sk-live-123\"\n")).unwrap();
        let err = Settings::load(&path).unwrap_err().to_string();
        assert!(err.contains("never kept in settings.toml") && err.contains("set-key local") && !err.contains("sk-live-123"), "{err}");
        std::fs::write(&path, "[sampling]\nprovider = \"missing\"\n").unwrap();
        assert!(Settings::load(&path).unwrap_err().to_string().contains("\"missing\""));
    }
}
