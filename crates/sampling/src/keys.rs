//! Where a provider's API key comes from: the OS keyring (entry `mcp-canvas` /
//! `provider:<name>`) or an environment variable named in settings. Never settings.toml itself,
//! never a log line, an audit row or a transcript: [`ApiKey`] prints as `ApiKey(…)`.

use std::fmt;

use crate::provider::ProviderConfig;

/// The keyring service our entries live under.
pub const KEYRING_SERVICE: &str = "mcp-canvas";

/// An API key. Its `Debug` never shows it; [`ApiKey::expose`] is the one way to read it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(…)")
    }
}

/// A provider's key could not be found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeyError {
    /// The variable settings name is not set.
    #[error("the API key of provider `{provider}` should be in the environment variable {variable}, which is not set; set it, or store the key with `mcp-canvas-cli sampling set-key {provider}`")]
    EnvMissing {
        /// The provider.
        provider: String,
        /// The variable.
        variable: String,
    },
    /// The keyring has no entry, or could not be read.
    #[error("the API key of provider `{provider}` could not be read from the OS keyring ({reason}); store it with `mcp-canvas-cli sampling set-key {provider}` or in Settings → Sampling")]
    Keyring {
        /// The provider.
        provider: String,
        /// What the keyring said.
        reason: String,
    },
}

/// The keyring account for a provider's key.
pub fn keyring_account(provider: &str) -> String {
    format!("provider:{provider}")
}

/// The key for `config`: from its environment variable, else from the keyring, else none (local
/// servers need none).
pub fn resolve(config: &ProviderConfig) -> Result<Option<ApiKey>, KeyError> {
    if let Some(variable) = &config.api_key_env {
        return match std::env::var(variable) {
            Ok(key) if !key.is_empty() => Ok(Some(ApiKey(key))),
            _ => Err(KeyError::EnvMissing { provider: config.name.clone(), variable: variable.clone() }),
        };
    }
    if config.api_key_keyring {
        return read_keyring(&config.name).map(Some);
    }
    Ok(None)
}

fn keyring_error(provider: &str, e: keyring::Error) -> KeyError {
    KeyError::Keyring { provider: provider.to_owned(), reason: e.to_string() }
}

/// Reads a provider's key from the OS keyring.
pub fn read_keyring(provider: &str) -> Result<ApiKey, KeyError> {
    let entry = keyring::Entry::new(KEYRING_SERVICE, &keyring_account(provider)).map_err(|e| keyring_error(provider, e))?;
    entry.get_password().map(ApiKey).map_err(|e| keyring_error(provider, e))
}

/// Stores a provider's key in the OS keyring (replacing an earlier one).
pub fn store_keyring(provider: &str, key: &ApiKey) -> Result<(), KeyError> {
    let entry = keyring::Entry::new(KEYRING_SERVICE, &keyring_account(provider)).map_err(|e| keyring_error(provider, e))?;
    entry.set_password(key.expose()).map_err(|e| keyring_error(provider, e))
}

/// Removes a provider's key from the OS keyring (no entry is fine).
pub fn delete_keyring(provider: &str) -> Result<(), KeyError> {
    let entry = keyring::Entry::new(KEYRING_SERVICE, &keyring_account(provider)).map_err(|e| keyring_error(provider, e))?;
    match entry.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(keyring_error(provider, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_never_prints() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "ApiKey(…)");
        assert!(!format!("{:?}", Some(key.clone())).contains("secret"));
        assert_eq!(key.expose(), "sk-secret-123");
    }

    #[test]
    fn an_env_reference_that_is_not_set_names_the_variable_and_the_remedy() {
        let config: ProviderConfig = serde_json::from_value(serde_json::json!({
            "name": "openai", "kind": "openai", "base_url": "https://api.openai.com/v1", "models": ["gpt-4o-mini"],
            "api_key_env": "MCP_CANVAS_TEST_KEY_THAT_IS_NOT_SET"
        }))
        .unwrap();
        let err = resolve(&config).unwrap_err().to_string();
        assert!(err.contains("MCP_CANVAS_TEST_KEY_THAT_IS_NOT_SET") && err.contains("sampling set-key openai"), "{err}");
    }
}
