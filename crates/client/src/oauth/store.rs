//! Where a server's OAuth tokens live: the OS keyring (Secret Service; entry `mcp-canvas` /
//! `oauth:<server URL>`), or — when no keyring runs, as on a headless machine — a file only its
//! owner can read (`<data dir>/oauth/<hash>.json`, mode 0600), which the UI says.
//!
//! One record per server URL holds rmcp's [`StoredCredentials`] (client ID, token response,
//! granted scopes, issuer) and, for a pre-registered confidential client, its secret. Refreshes
//! are serialised across processes (the app, the proxy and the CLI sharing one data dir) by a
//! lock file, so a rotating refresh token is never spent twice.
//!
//! Reading or writing a record may block: the keyring is a D-Bus round trip (and a Secret
//! Service that is not running is slow to say so), the file is on disk. The synchronous methods
//! are for blocking contexts only (a `spawn_blocking` closure, a thread of its own); async code
//! uses [`TokenStore::load_credentials`], [`TokenStore::load_client_secret`] and the
//! [`CredentialStore`] methods, which do the work on tokio's blocking pool.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use rmcp::transport::auth::{AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};

/// The keyring service our entries live under (shared with provider keys).
const KEYRING_SERVICE: &str = "mcp-canvas";

/// Where tokens are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenStorage {
    /// The OS keyring when one answers, else the 0600 file.
    Auto,
    /// Always the 0600 file in the data dir (throwaway data dirs: tests, the conformance adapter).
    File,
}

/// Which backend a store ended up using, for the UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// The OS keyring.
    Keyring,
    /// The file, with why the keyring was not used.
    File {
        /// Why not the keyring (`None` when the file was asked for).
        why: Option<String>,
    },
}

impl Backend {
    /// One line for the UI and the CLI.
    pub fn describe(&self) -> String {
        match self {
            Backend::Keyring => "the OS keyring".to_owned(),
            Backend::File { why: Some(why) } => format!("a file only you can read, in the data dir (no OS keyring: {why})"),
            Backend::File { why: None } => "a file only you can read, in the data dir".to_owned(),
        }
    }
}

/// What one record holds.
#[derive(Default, Serialize, Deserialize)]
struct Record {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credentials: Option<StoredCredentials>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    /// The client's private key for `private_key_jwt` (PEM), when kept here rather than in a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    private_key: Option<String>,
    /// This server's DPoP key (PKCS#8, base64): its tokens are bound to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dpop_key: Option<String>,
}

/// Where a server's tokens are kept (the OS keyring or the 0600 file) could not be read or
/// written; the message names which and why, never a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TokenStoreError(pub String);

impl From<TokenStoreError> for String {
    fn from(e: TokenStoreError) -> Self {
        e.0
    }
}

/// A server's token record. Cheap to clone; every clone reads and writes the same record.
#[derive(Clone)]
pub struct TokenStore {
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    file: PathBuf,
    lock: PathBuf,
    storage: TokenStorage,
    /// Decided on the first read or write (asking the keyring whether it answers blocks).
    backend: OnceLock<Backend>,
}

impl std::fmt::Debug for TokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenStore").field("url", &self.inner.url).field("storage", &self.inner.storage).field("backend", &self.inner.backend.get()).finish()
    }
}

/// Whether the keyring answers, asked once per process (a missing Secret Service is slow to say so).
fn keyring_state() -> &'static Result<(), String> {
    static STATE: OnceLock<Result<(), String>> = OnceLock::new();
    STATE.get_or_init(|| {
        let entry = keyring::Entry::new(KEYRING_SERVICE, "oauth:probe").map_err(|e| e.to_string())?;
        match entry.get_password() {
            Ok(_) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    })
}

impl TokenStore {
    /// The record for the server at `url`, with the data dir `data_dir` for the file. Nothing is
    /// read yet (safe in async code).
    pub fn open(data_dir: &Path, url: &str, storage: TokenStorage) -> Self {
        use sha2::Digest as _;
        let hash = sha2::Sha256::digest(url.as_bytes());
        let name: String = hash.iter().take(12).map(|b| format!("{b:02x}")).collect();
        let dir = data_dir.join("oauth");
        Self {
            inner: Arc::new(Inner { url: url.to_owned(), file: dir.join(format!("{name}.json")), lock: dir.join(format!("{name}.lock")), storage, backend: OnceLock::new() }),
        }
    }

    /// Which backend holds the record. Blocking: the first call may ask the keyring whether it
    /// answers (once per process).
    pub fn backend(&self) -> &Backend {
        self.inner.backend.get_or_init(|| match self.inner.storage {
            TokenStorage::File => Backend::File { why: None },
            TokenStorage::Auto => match keyring_state() {
                Ok(()) => Backend::Keyring,
                Err(why) => Backend::File { why: Some(why.clone()) },
            },
        })
    }

    /// The file the record is kept in (with the file backend, or before a keyring answered).
    pub fn file(&self) -> &Path {
        &self.inner.file
    }

    /// Runs `work` on tokio's blocking pool: the keyring and the file may block.
    async fn off_thread<T: Send + 'static>(&self, work: impl FnOnce(&TokenStore) -> Result<T, TokenStoreError> + Send + 'static) -> Result<T, TokenStoreError> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || work(&store))
            .await
            .map_err(|e| TokenStoreError(format!("reading the sign-in record of {} failed: {e} (a bug in MCP Canvas: please report it)", self.inner.url)))?
    }

    /// [`Self::credentials`], read on the blocking pool.
    pub async fn load_credentials(&self) -> Result<Option<StoredCredentials>, TokenStoreError> {
        self.off_thread(TokenStore::credentials).await
    }

    /// [`Self::client_secret`], read on the blocking pool.
    pub async fn load_client_secret(&self) -> Result<Option<String>, TokenStoreError> {
        self.off_thread(TokenStore::client_secret).await
    }

    fn account(&self) -> String {
        format!("oauth:{}", self.inner.url)
    }

    fn read(&self) -> Result<Record, String> {
        let text = match self.backend() {
            Backend::Keyring => {
                let entry = keyring::Entry::new(KEYRING_SERVICE, &self.account()).map_err(|e| e.to_string())?;
                match entry.get_password() {
                    Ok(text) => Some(text),
                    // Signed in while no keyring ran: the file still has it (until the next save).
                    Err(keyring::Error::NoEntry) => self.read_file()?,
                    Err(e) => return Err(format!("the OS keyring could not be read: {e}")),
                }
            }
            Backend::File { .. } => self.read_file()?,
        };
        match text {
            // An unreadable record is reported, never silently treated as "signed out".
            Some(text) => serde_json::from_str(&text).map_err(|e| format!("the stored sign-in for {} is not readable ({e}); sign out and in again", self.inner.url)),
            None => Ok(Record::default()),
        }
    }

    fn read_file(&self) -> Result<Option<String>, String> {
        match std::fs::read_to_string(&self.inner.file) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", self.inner.file.display())),
        }
    }

    fn remove_file(&self) -> Result<(), String> {
        match std::fs::remove_file(&self.inner.file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("cannot remove {}: {e}", self.inner.file.display())),
            _ => Ok(()),
        }
    }

    fn write(&self, record: &Record) -> Result<(), String> {
        let empty = record.credentials.is_none() && record.client_secret.is_none() && record.private_key.is_none() && record.dpop_key.is_none();
        match self.backend() {
            Backend::Keyring => {
                let entry = keyring::Entry::new(KEYRING_SERVICE, &self.account()).map_err(|e| e.to_string())?;
                let done = if empty {
                    match entry.delete_credential() {
                        Err(keyring::Error::NoEntry) => Ok(()),
                        other => other,
                    }
                } else {
                    entry.set_password(&serde_json::to_string(record).expect("a record serializes"))
                };
                done.map_err(|e| format!("the OS keyring could not be written: {e}"))?;
                // Now in the keyring: a file from a time without one goes.
                self.remove_file()
            }
            Backend::File { .. } => {
                if empty {
                    return self.remove_file();
                }
                write_private(&self.inner.file, serde_json::to_string(record).expect("a record serializes").as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", self.inner.file.display()))
            }
        }
    }

    fn update(&self, change: impl FnOnce(&mut Record)) -> Result<(), String> {
        let mut record = self.read()?;
        change(&mut record);
        self.write(&record)
    }

    /// The stored credentials, if any.
    pub fn credentials(&self) -> Result<Option<StoredCredentials>, TokenStoreError> {
        self.read().map(|r| r.credentials).map_err(TokenStoreError)
    }

    /// Whether an access token is stored.
    pub fn signed_in(&self) -> Result<bool, TokenStoreError> {
        Ok(self.credentials()?.is_some_and(|c| c.token_response.is_some()))
    }

    /// A pre-registered client's secret, if one was stored.
    pub fn client_secret(&self) -> Result<Option<String>, TokenStoreError> {
        self.read().map(|r| r.client_secret).map_err(TokenStoreError)
    }

    /// Stores (or with `None` removes) a pre-registered client's secret.
    pub fn set_client_secret(&self, secret: Option<String>) -> Result<(), TokenStoreError> {
        self.update(|record| record.client_secret = secret).map_err(TokenStoreError)
    }

    /// The client's private key (PEM) for `private_key_jwt`, if one was stored.
    pub fn private_key(&self) -> Result<Option<String>, TokenStoreError> {
        self.read().map(|r| r.private_key).map_err(TokenStoreError)
    }

    /// Stores (or with `None` removes) the client's private key (PEM).
    pub fn set_private_key(&self, pem: Option<String>) -> Result<(), TokenStoreError> {
        self.update(|record| record.private_key = pem).map_err(TokenStoreError)
    }

    /// This server's DPoP key (PKCS#8 DER), made and stored on first use.
    pub fn dpop_key(&self) -> Result<Vec<u8>, TokenStoreError> {
        use base64::Engine as _;
        let engine = base64::engine::general_purpose::STANDARD;
        let mut record = self.read().map_err(TokenStoreError)?;
        if let Some(key) = record.dpop_key.as_deref().and_then(|k| engine.decode(k).ok()) {
            return Ok(key);
        }
        let key = super::dpop::DpopKey::generate().map_err(|e| TokenStoreError(e.to_string()))?.pkcs8().to_vec();
        record.dpop_key = Some(engine.encode(&key));
        self.write(&record).map_err(TokenStoreError)?;
        Ok(key)
    }

    /// [`Self::private_key`], read on the blocking pool.
    pub async fn load_private_key(&self) -> Result<Option<String>, TokenStoreError> {
        self.off_thread(TokenStore::private_key).await
    }

    /// [`Self::dpop_key`], on the blocking pool.
    pub async fn load_dpop_key(&self) -> Result<Vec<u8>, TokenStoreError> {
        self.off_thread(TokenStore::dpop_key).await
    }

    /// Forgets the tokens (keeps a stored client secret: it belongs to the configuration). A
    /// record that cannot be read is removed whole: signing out is the way out of it.
    pub fn sign_out(&self) -> Result<(), TokenStoreError> {
        self.sign_out_inner().map_err(TokenStoreError)
    }

    fn sign_out_inner(&self) -> Result<(), String> {
        match self.read() {
            Ok(mut record) => {
                record.credentials = None;
                // Tokens bound to the DPoP key are gone: the next sign-in gets a new key.
                record.dpop_key = None;
                self.write(&record)
            }
            Err(_) => {
                self.remove_file()?;
                self.write(&Record::default())
            }
        }
    }
}

/// Writes `bytes` to `path` atomically, readable by its owner only (directory 0700, file 0600).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().expect("records live in a directory");
    std::fs::create_dir_all(dir)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        options.mode(0o600);
    }
    // A name of its own per write: a refresh and a sign-in saving at once never share a file.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
    options.create_new(true);
    let mut file = options.open(&temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&temp, path)
}

fn store_error(e: String) -> AuthError {
    AuthError::CredentialStoreError(e)
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.load_credentials().await.map_err(|e| store_error(e.0))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.off_thread(move |store| store.update(|record| record.credentials = Some(credentials)).map_err(TokenStoreError)).await.map_err(|e| store_error(e.0))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.off_thread(TokenStore::sign_out).await.map_err(|e| store_error(e.0))
    }

    /// A refresh holds an exclusive lock on the record's lock file until its new tokens are
    /// saved: another process refreshing at the same moment waits, then loads the new tokens.
    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let lock = self.inner.lock.clone();
        let file = tokio::task::spawn_blocking(move || -> std::io::Result<std::fs::File> {
            std::fs::create_dir_all(lock.parent().expect("in a directory"))?;
            let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock)?;
            file.lock()?;
            Ok(file)
        })
        .await
        .map_err(|e| store_error(e.to_string()))?
        .map_err(|e| store_error(format!("cannot lock the sign-in record: {e}")))?;
        Ok(Some(CredentialRefreshGuard::new(file)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(client: &str) -> StoredCredentials {
        StoredCredentials::new(client.to_owned(), None, vec!["read".into()], Some(1))
    }

    #[tokio::test]
    async fn the_file_record_is_private_survives_reopening_and_signs_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::open(dir.path(), "http://127.0.0.1:1/mcp", TokenStorage::File);
        assert!(store.load().await.unwrap().is_none());
        store.set_client_secret(Some("s3cret".into())).unwrap();
        store.save(credentials("client-1")).await.unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&store.inner.file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "only the owner may read tokens");
        }
        let again = TokenStore::open(dir.path(), "http://127.0.0.1:1/mcp", TokenStorage::File);
        assert_eq!(again.load().await.unwrap().unwrap().client_id, "client-1");
        assert_eq!(again.client_secret().unwrap().as_deref(), Some("s3cret"));
        // Another server's record is another file.
        assert!(TokenStore::open(dir.path(), "http://127.0.0.1:2/mcp", TokenStorage::File).load().await.unwrap().is_none());
        again.clear().await.unwrap();
        assert!(store.load().await.unwrap().is_none());
        assert_eq!(store.client_secret().unwrap().as_deref(), Some("s3cret"), "signing out keeps the configured client secret");
        store.set_client_secret(None).unwrap();
        assert!(!store.inner.file.exists(), "an empty record leaves no file");
    }

    #[tokio::test]
    async fn an_unreadable_record_is_an_error_not_a_sign_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::open(dir.path(), "http://127.0.0.1:1/mcp", TokenStorage::File);
        store.save(credentials("c")).await.unwrap();
        std::fs::write(&store.inner.file, "{not json").unwrap();
        let err = store.load().await.unwrap_err().to_string();
        assert!(err.contains("not readable") && err.contains("sign out and in again"), "{err}");
        store.sign_out().expect("signing out is the way out of an unreadable record");
        assert!(store.load().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn refreshes_in_two_processes_take_turns() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::open(dir.path(), "http://127.0.0.1:1/mcp", TokenStorage::File);
        let guard = store.acquire_refresh_guard().await.unwrap();
        // A second open file description (as another process has) cannot take the lock now.
        let other = std::fs::OpenOptions::new().write(true).open(&store.inner.lock).unwrap();
        assert!(matches!(other.try_lock(), Err(std::fs::TryLockError::WouldBlock)));
        drop(guard);
        other.try_lock().expect("free once the first refresh saved");
    }
}
