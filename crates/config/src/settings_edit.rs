//! Changing `settings.toml` one key at a time (the app's Settings panel, `mcp-canvas-cli
//! settings set`), keeping the rest of the file — comments, order, other sections — as it was.
//! Each edit is checked to load as [`Settings`] before it is written, atomically.

use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use mcp_canvas_sampling::SamplingSettings;

use crate::{
    allowlist::write_atomically,
    error::ConfigError,
    settings::{Settings, Theme},
};

/// The keys that can be set, with what they take.
const KEYS: &[(&str, Kind)] = &[
    ("artifacts.quota_bytes", Kind::Count),
    ("artifacts.max_age_days", Kind::Count),
    ("artifacts.session_retention_days", Kind::Count),
    ("identity.username", Kind::Text),
    ("render.allow_remote_images", Kind::Flag),
    ("appearance.theme", Kind::Theme),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Count,
    Text,
    Flag,
    Theme,
}

/// The settings as the window's Settings panel shows them (and `settings show --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SettingsView {
    /// The data directory in use (chosen at start: `--data-dir`, `MCP_CANVAS_DATA_DIR`, or the
    /// platform default).
    pub data_dir: String,
    /// The settings file.
    pub file: String,
    /// Store quota in bytes.
    #[ts(type = "number")]
    pub quota_bytes: u64,
    /// Unused unpinned artifacts go after this many days (`None`: never).
    pub max_age_days: Option<u32>,
    /// Idle sessions are cleared after this many days.
    pub session_retention_days: u32,
    /// The identity injected as `username`.
    pub username: String,
    /// HTML artifacts may load remote images.
    pub allow_remote_images: bool,
    /// The window's theme.
    pub theme: Theme,
}

impl SettingsView {
    /// The view of `settings` kept in `data_dir`.
    pub fn new(settings: &Settings, data_dir: &Path) -> Self {
        Self {
            data_dir: data_dir.display().to_string(),
            file: data_dir.join("settings.toml").display().to_string(),
            quota_bytes: settings.artifacts.quota_bytes,
            max_age_days: settings.artifacts.max_age_days,
            session_retention_days: settings.artifacts.session_retention_days,
            username: settings.identity.username.clone(),
            allow_remote_images: settings.render.allow_remote_images,
            theme: settings.appearance.theme,
        }
    }
}

/// Sets `key` (`section.name`, one of the settable keys) to `value` given as text (`2147483648`,
/// `ada`, `true`, `dark`); `None` removes the key so its default applies. Returns the settings
/// as they now load.
pub fn set(settings_path: &Path, key: &str, value: Option<&str>) -> Result<Settings, ConfigError> {
    let error = |reason: String| ConfigError::Settings { path: settings_path.to_owned(), reason };
    let Some((_, kind)) = KEYS.iter().find(|(k, _)| *k == key) else {
        let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
        return Err(error(format!("`{key}` is not a setting that can be changed here; these are: {}", known.join(", "))));
    };
    let (section, name) = key.split_once('.').expect("keys are section.name");
    edit(settings_path, |document| {
        if !document.contains_key(section) {
            document.insert(section, toml_edit::Item::Table(toml_edit::Table::new()));
        }
        let table = document[section].as_table_like_mut().ok_or_else(|| format!("`{section}` is not a table"))?;
        match value {
            None => {
                table.remove(name);
            }
            Some(raw) => {
                let raw = raw.trim();
                let item = match kind {
                    Kind::Count => toml_edit::value(raw.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| format!("`{key}` takes a whole number ≥ 0, not `{raw}`"))?),
                    Kind::Flag => toml_edit::value(raw.parse::<bool>().map_err(|_| format!("`{key}` takes true or false, not `{raw}`"))?),
                    Kind::Text if raw.is_empty() => return Err(format!("`{key}` cannot be empty")),
                    Kind::Text => toml_edit::value(raw),
                    Kind::Theme => match raw {
                        "system" | "light" | "dark" => toml_edit::value(raw),
                        other => return Err(format!("`{key}` is system, light or dark, not `{other}`")),
                    },
                };
                table.insert(name, item);
            }
        }
        Ok(())
    })
}

/// Replaces the whole `[sampling]` section (the app's Settings → Sampling saves it at once),
/// keeping every other section and its comments. Refused, with nothing written, when it has
/// problems (a policy naming a missing provider, two providers of one name, one with no models).
pub fn set_sampling(settings_path: &Path, sampling: &SamplingSettings) -> Result<Settings, ConfigError> {
    if let Some(problem) = sampling.problems().into_iter().next() {
        return Err(ConfigError::Settings { path: settings_path.to_owned(), reason: format!("{problem}; nothing written") });
    }
    #[derive(Serialize)]
    struct Section<'a> {
        sampling: &'a SamplingSettings,
    }
    let text = toml::to_string(&Section { sampling }).map_err(|e| ConfigError::Settings { path: settings_path.to_owned(), reason: format!("cannot write [sampling]: {e}") })?;
    let fresh: toml_edit::DocumentMut = text.parse().expect("toml writes TOML");
    let section = fresh.get("sampling").cloned().unwrap_or_else(|| toml_edit::Item::Table(toml_edit::Table::new()));
    edit(settings_path, move |document| {
        document.insert("sampling", section);
        Ok(())
    })
}

/// Replaces the whole `[store]` section (Settings → Storage saves it at once: a team store needs
/// its bucket, catalog and team together), keeping every other section and its comments. Refused,
/// with nothing written, when it has problems (a team store missing one of them, a password in
/// the catalog URL). The host builds its store at start: a change applies at the next start.
pub fn set_store(settings_path: &Path, store: &crate::settings::StoreSettings) -> Result<Settings, ConfigError> {
    if let Some(problem) = store.problems().into_iter().next() {
        return Err(ConfigError::Settings { path: settings_path.to_owned(), reason: format!("{problem}; nothing written") });
    }
    #[derive(Serialize)]
    struct Section<'a> {
        store: &'a crate::settings::StoreSettings,
    }
    let text = toml::to_string(&Section { store }).map_err(|e| ConfigError::Settings { path: settings_path.to_owned(), reason: format!("cannot write [store]: {e}") })?;
    let fresh: toml_edit::DocumentMut = text.parse().expect("toml writes TOML");
    let section = fresh.get("store").cloned().unwrap_or_else(|| toml_edit::Item::Table(toml_edit::Table::new()));
    edit(settings_path, move |document| {
        document.insert("store", section);
        Ok(())
    })
}

/// Reads `settings.toml` (none is an empty file), applies `change` to its document, checks the
/// result loads as [`Settings`], and writes it atomically; an error names the file.
fn edit(settings_path: &Path, change: impl FnOnce(&mut toml_edit::DocumentMut) -> Result<(), String>) -> Result<Settings, ConfigError> {
    let error = |reason: String| ConfigError::Settings { path: settings_path.to_owned(), reason };
    let text = match std::fs::read_to_string(settings_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(error(format!("cannot read it: {e}"))),
    };
    let mut document: toml_edit::DocumentMut = text.parse().map_err(|e| error(format!("not valid TOML, fix it first: {e}")))?;
    change(&mut document).map_err(error)?;
    let mut new_text = document.to_string();
    if !new_text.ends_with('\n') {
        new_text.push('\n');
    }
    let settings: Settings = toml::from_str(&new_text).map_err(|e| error(format!("the edited file would not load ({e}); nothing written")))?;
    write_atomically(settings_path, &new_text).map_err(|e| error(format!("cannot write it: {e}")))?;
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_set_and_removed_keeping_the_rest_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        std::fs::write(&path, "# my settings\n[dashboards]\nallowed_origins = [\"http://127.0.0.1:8765\"] # the local one\n").unwrap();
        set(&path, "artifacts.quota_bytes", Some("1000000")).unwrap();
        set(&path, "identity.username", Some("ada")).unwrap();
        set(&path, "render.allow_remote_images", Some("true")).unwrap();
        let settings = set(&path, "appearance.theme", Some("dark")).unwrap();
        assert_eq!(settings.artifacts.quota_bytes, 1_000_000);
        assert_eq!(settings.identity.username, "ada");
        assert!(settings.render.allow_remote_images);
        assert_eq!(settings.appearance.theme, Theme::Dark);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# my settings\n") && text.contains("# the local one"), "{text}");
        assert_eq!(Settings::load(&path).unwrap(), settings);

        let settings = set(&path, "artifacts.quota_bytes", None).unwrap();
        assert_eq!(settings.artifacts.quota_bytes, 2 << 30, "removed: the default applies");
        let view = SettingsView::new(&settings, dir.path());
        assert_eq!((view.username.as_str(), view.theme, view.quota_bytes), ("ada", Theme::Dark, 2 << 30));
    }

    #[test]
    fn the_store_section_is_saved_whole_and_an_incomplete_team_store_is_refused() {
        use crate::settings::{StoreBackend, StoreSettings};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        std::fs::write(&path, "# mine\n[identity]\nusername = \"ada\"\n").unwrap();
        let mut store = StoreSettings { backend: StoreBackend::Team, s3_url: Some("s3://b/p".into()), ..Default::default() };
        let err = set_store(&path, &store).unwrap_err().to_string();
        assert!(err.contains("needs catalog_url") && err.contains("nothing written"), "{err}");
        store.catalog_url = Some("postgres://ada@db/canvas".into());
        store.team = Some("analytics".into());
        let settings = set_store(&path, &store).unwrap();
        assert_eq!(settings.store, store);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# mine\n") && text.contains("[store]") && text.contains("backend = \"team\""), "{text}");
        assert_eq!(Settings::load(&path).unwrap().store, store);
    }

    #[test]
    fn bad_keys_and_values_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        for (key, value, expected) in [
            ("artifacts.quota", Some("1"), "not a setting"),
            ("artifacts.quota_bytes", Some("-5"), "whole number"),
            ("artifacts.max_age_days", Some("lots"), "whole number"),
            ("artifacts.max_age_days", Some("99999999999"), "would not load"),
            ("render.allow_remote_images", Some("yes"), "true or false"),
            ("appearance.theme", Some("purple"), "system, light or dark"),
            ("identity.username", Some("  "), "cannot be empty"),
        ] {
            let err = set(&path, key, value).unwrap_err().to_string();
            assert!(err.contains(expected), "{key}={value:?}: {err}");
        }
        assert!(!path.exists(), "nothing was written");
        std::fs::write(&path, "[artifacts\n").unwrap();
        assert!(set(&path, "appearance.theme", Some("dark")).unwrap_err().to_string().contains("not valid TOML"));
    }

    #[test]
    fn the_sampling_section_is_replaced_whole_keeping_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        std::fs::write(&path, "# mine\n[identity]\nusername = \"ada\" # me\n\n[sampling]\npolicy = \"never\"\n").unwrap();
        let mut sampling: SamplingSettings = serde_json::from_value(serde_json::json!({
            "policy": "ask",
            "providers": [{"name": "local", "kind": "openai", "base_url": "http://127.0.0.1:8089/v1", "models": ["smollm2"], "max_tokens": 96}],
            "servers": {"demo": {"policy": "always", "max_tokens": 64, "tools": false}, "my.server": {"policy": "never"}}
        }))
        .unwrap();
        let settings = set_sampling(&path, &sampling).unwrap();
        assert_eq!(settings.sampling, sampling);
        assert_eq!(settings.identity.username, "ada");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# mine\n") && text.contains("# me") && !text.contains("never\"\n\n[sampling") , "{text}");
        assert_eq!(Settings::load(&path).unwrap().sampling, sampling, "what was written loads back the same");

        sampling.servers.get_mut("demo").unwrap().provider = Some("gone".into());
        let err = set_sampling(&path, &sampling).unwrap_err().to_string();
        assert!(err.contains("\"gone\"") && err.contains("nothing written"), "{err}");
        assert_eq!(Settings::load(&path).unwrap(), settings, "the refused edit left the file as it was");
    }
}
