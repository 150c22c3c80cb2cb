//! Where MCP Canvas keeps its data: `--data-dir`, else `MCP_CANVAS_DATA_DIR`, else the platform's
//! data directory (`$XDG_DATA_HOME/mcp-canvas`, usually `~/.local/share/mcp-canvas`, on Linux).

use std::path::{Path, PathBuf};

/// The environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "MCP_CANVAS_DATA_DIR";

/// Picks the data directory from an explicit choice, the environment, or the platform default.
pub fn resolve(explicit: Option<&Path>) -> Result<PathBuf, crate::ConfigError> {
    if let Some(dir) = explicit {
        return Ok(dir.to_owned());
    }
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::data_dir()
        .map(|d| d.join("mcp-canvas"))
        .ok_or_else(|| crate::ConfigError::DataDir(format!("no platform data directory (is HOME set?); pass --data-dir or set {DATA_DIR_ENV}")))
}

/// The files inside a data directory.
#[derive(Debug, Clone)]
pub struct DataPaths {
    /// The data directory itself.
    pub root: PathBuf,
}

impl DataPaths {
    /// Paths under `root`.
    pub fn new(root: PathBuf) -> Self {
        Self { root }
    }
    /// The server config file, shared by the app and the CLI.
    pub fn servers_config(&self) -> PathBuf {
        self.root.join("servers.json")
    }
    /// Per-tool extraction rules (optional TOML; see `mcp_canvas_contract::ExtractionConfig`).
    pub fn extraction_rules(&self) -> PathBuf {
        self.root.join("extraction.toml")
    }
    /// User settings (optional TOML; see [`crate::settings::Settings`]).
    pub fn settings(&self) -> PathBuf {
        self.root.join("settings.toml")
    }
    /// Per-server stderr logs.
    pub fn server_log(&self, server: &str) -> PathBuf {
        let safe: String = server.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        self.root.join("logs").join(format!("{safe}.log"))
    }
}
