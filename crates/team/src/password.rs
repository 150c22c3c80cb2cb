//! The catalog's password: from the environment or the OS keyring, never from settings.toml.

/// The environment variable that carries the catalog's password (`PGPASSWORD` works too).
pub const PASSWORD_ENV: &str = "MCP_CANVAS_CATALOG_PASSWORD";

const KEYRING_SERVICE: &str = "mcp-canvas";

fn account(catalog_url: &str) -> String {
    format!("catalog {}", crate::catalog::shown_url(catalog_url))
}

/// The password for `catalog_url`: `MCP_CANVAS_CATALOG_PASSWORD`, else `PGPASSWORD`, else the
/// OS keyring's entry for this catalog; `None` when none is set (trust or peer auth, `.pgpass`
/// is not read).
pub fn catalog_password(catalog_url: &str) -> Option<String> {
    for var in [PASSWORD_ENV, "PGPASSWORD"] {
        if let Ok(value) = std::env::var(var) {
            if !value.is_empty() {
                return Some(value);
            }
        }
    }
    keyring::Entry::new(KEYRING_SERVICE, &account(catalog_url)).ok()?.get_password().ok()
}

/// Keeps the password for `catalog_url` in the OS keyring.
pub fn set_catalog_password(catalog_url: &str, password: &str) -> Result<(), crate::TeamError> {
    let entry = keyring::Entry::new(KEYRING_SERVICE, &account(catalog_url)).map_err(|e| crate::TeamError::Keyring(e.to_string()))?;
    entry.set_password(password).map_err(|e| crate::TeamError::Keyring(e.to_string()))
}
