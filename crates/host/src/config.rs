//! The server config file (`servers.json` in the data dir), in the `mcpServers` shape that Claude
//! Desktop and Cursor use, so entries can be pasted between them.
//!
//! On first run the file is created with the bundled demo server. Keys we do not understand are
//! kept and written back, never dropped.

use std::{collections::BTreeMap, path::Path};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::HostError;

/// The name the bundled demo server is configured under.
pub const DEMO_SERVER: &str = "demo";
/// The demo server's program; resolved next to our own executable first (see [`crate::Host`]).
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

/// How to start one stdio server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerEntry {
    /// Program to run. A bare name is looked up next to MCP Canvas's own binaries, then on PATH.
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Keys we do not use, preserved.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl ServersConfig {
    /// The config a first run starts with: the demo server only.
    pub fn first_run() -> Self {
        let demo = ServerEntry {
            command: DEMO_COMMAND.to_owned(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
            other: Map::new(),
        };
        Self { servers: BTreeMap::from([(DEMO_SERVER.to_owned(), demo)]), other: Map::new() }
    }

    /// Reads the config at `path`, creating it with [`Self::first_run`] when it does not exist.
    pub fn load_or_create(path: &Path) -> Result<Self, HostError> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| HostError::Config {
                path: path.to_owned(),
                reason: format!("not a valid server config: {e}"),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let config = Self::first_run();
                config.save(path)?;
                Ok(config)
            }
            Err(e) => Err(HostError::Config { path: path.to_owned(), reason: e.to_string() }),
        }
    }

    /// Writes the config atomically (temp file + rename).
    pub fn save(&self, path: &Path) -> Result<(), HostError> {
        let fail = |e: std::io::Error| HostError::Config { path: path.to_owned(), reason: e.to_string() };
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

    #[test]
    fn first_run_creates_the_demo_server_and_reads_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        let created = ServersConfig::load_or_create(&path).unwrap();
        assert_eq!(created.servers[DEMO_SERVER].command, DEMO_COMMAND);
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
    fn broken_config_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        std::fs::write(&path, "{ nope").unwrap();
        let err = ServersConfig::load_or_create(&path).unwrap_err().to_string();
        assert!(err.contains("servers.json") && err.contains("not a valid server config"), "{err}");
    }
}
