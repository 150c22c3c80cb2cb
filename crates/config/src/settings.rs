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
//! ```
//!
//! [`crate::settings_edit`] changes single keys, keeping the file's comments.

use std::path::Path;

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
            Ok(text) => toml::from_str(&text).map_err(|e| ConfigError::Settings { path: path.to_owned(), reason: e.to_string() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(ConfigError::Settings { path: path.to_owned(), reason: e.to_string() }),
        }
    }
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
}
