//! Errors of reading and writing what the user configures.

use std::path::PathBuf;

/// A config file is unreadable, invalid, or a change to it was refused. The message names the
/// file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The data dir could not be determined or prepared.
    #[error("data directory: {0}")]
    DataDir(String),
    /// The settings file (`settings.toml`) is unreadable or invalid, or a change was refused.
    #[error("settings {path}: {reason}")]
    Settings {
        /// The settings file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A config file (`servers.json`, `extraction.toml`, an imported file) is unreadable or invalid.
    #[error("config file {path}: {reason}")]
    File {
        /// The config file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}
