//! TLS to the team catalog, with libpq's settings in `catalog_url`: `sslmode` (`disable`,
//! `allow`/`prefer`, `require`, `verify-ca`, `verify-full`), `sslrootcert` (a PEM file, or
//! `system`), `sslcert`/`sslkey` (a client certificate). Certificates are checked by rustls
//! against `sslrootcert`, else the system's roots. A certificate that does not verify, a key file
//! others can read, a server that wants a client certificate: each error names the setting to fix.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use rustls::{
    client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    crypto::CryptoProvider,
    pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer, ServerName, UnixTime},
    CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Plain.
    Disable,
    /// TLS when the server offers it, certificate not checked (libpq's default; `allow` too).
    Prefer,
    /// TLS, certificate not checked (checked like `verify-ca` when `sslrootcert` is set).
    Require,
    /// TLS, the certificate's chain checked, not its name.
    VerifyCa,
    /// TLS, the chain and the host name checked.
    VerifyFull,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }
}

/// The TLS settings of a `catalog_url`.
#[derive(Debug, Clone)]
pub(crate) struct Tls {
    pub mode: Mode,
    /// `None`: the system's roots.
    root: Option<PathBuf>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
}

/// Splits libpq's TLS parameters off `url` (tokio-postgres knows only `sslmode` up to `require`
/// and refuses the others): the URL without them, and the settings.
pub(crate) fn split(url: &str) -> Result<(String, Tls), String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let (mut mode, mut root, mut cert, mut key, mut kept) = (None, None, None, None, Vec::new());
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value);
        match name {
            "sslmode" => {
                mode = Some(match value.as_str() {
                    "disable" => Mode::Disable,
                    "allow" | "prefer" => Mode::Prefer,
                    "require" => Mode::Require,
                    "verify-ca" => Mode::VerifyCa,
                    "verify-full" => Mode::VerifyFull,
                    other => return Err(format!("sslmode={other} is not one of disable, allow, prefer, require, verify-ca, verify-full")),
                })
            }
            "sslrootcert" => root = Some(value),
            "sslcert" => cert = Some(PathBuf::from(value)),
            "sslkey" => key = Some(PathBuf::from(value)),
            _ => kept.push(pair),
        }
    }
    // libpq 16: `sslrootcert=system` means the system's roots, and verify-full unless said otherwise.
    let system = root.as_deref() == Some("system");
    let mode = match (mode, system) {
        (None, true) => Mode::VerifyFull,
        (Some(weak), true) if weak != Mode::VerifyFull => return Err(format!("sslmode={} may not be used with sslrootcert=system (use sslmode=verify-full)", weak.name())),
        (mode, _) => mode.unwrap_or(Mode::Prefer),
    };
    let root = root.filter(|r| r != "system").map(PathBuf::from);
    if cert.is_some() != key.is_some() {
        return Err("sslcert and sslkey go together: set both (the client certificate and its private key)".into());
    }
    let url = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, Tls { mode, root, cert, key }))
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The crypto provider the rest of the build uses (reqwest's and object_store's rustls).
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

fn system_roots() -> Arc<RootCertStore> {
    static ROOTS: OnceLock<Arc<RootCertStore>> = OnceLock::new();
    ROOTS
        .get_or_init(|| {
            let mut store = RootCertStore::empty();
            let found = rustls_native_certs::load_native_certs();
            for error in &found.errors {
                tracing::warn!("the system's root certificates: {error}");
            }
            store.add_parsable_certificates(found.certs);
            Arc::new(store)
        })
        .clone()
}

impl Tls {
    /// Whether the certificate's chain is checked: verify-ca and verify-full, and (as libpq)
    /// require or prefer when `sslrootcert` names a file.
    fn checks_chain(&self) -> bool {
        matches!(self.mode, Mode::VerifyCa | Mode::VerifyFull) || self.root.is_some()
    }

    /// Where the chain is checked against, for messages: `sslrootcert=/path` or the system's roots.
    fn roots_named(&self) -> String {
        match &self.root {
            Some(path) => format!("sslrootcert={}", path.display()),
            None => "the system's root certificates".into(),
        }
    }

    /// The rustls configuration; `None` with `sslmode=disable`. An unreadable `sslrootcert`,
    /// `sslcert` or `sslkey`, or a key file others may read, is an error naming the setting.
    pub(crate) fn client_config(&self) -> Result<Option<rustls::ClientConfig>, String> {
        if self.mode == Mode::Disable {
            return Ok(None);
        }
        let builder = rustls::ClientConfig::builder_with_provider(provider()).with_safe_default_protocol_versions().map_err(|e| e.to_string())?;
        let verifier: Arc<dyn ServerCertVerifier> = if self.checks_chain() {
            let roots = match &self.root {
                Some(path) => {
                    let mut store = RootCertStore::empty();
                    let certs = read_certs(path, "sslrootcert")?;
                    let (added, _) = store.add_parsable_certificates(certs);
                    if added == 0 {
                        return Err(format!("sslrootcert={}: no usable CA certificate in it", path.display()));
                    }
                    Arc::new(store)
                }
                None => system_roots(),
            };
            let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider()).build().map_err(|e| format!("{}: {e}", self.roots_named()))?;
            Arc::new(Checked { webpki, name: self.mode == Mode::VerifyFull })
        } else {
            Arc::new(Unchecked(provider()))
        };
        let builder = builder.dangerous().with_custom_certificate_verifier(verifier);
        let config = match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => {
                let chain = read_certs(cert, "sslcert")?;
                check_key_permissions(key)?;
                let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("sslkey={}: not a PEM private key: {e}", key.display()))?;
                builder.with_client_auth_cert(chain, key_der).map_err(|e| format!("sslcert={} and sslkey={} do not go together: {e}", cert.display(), key.display()))?
            }
            _ => builder.with_no_client_auth(),
        };
        Ok(Some(config))
    }

    /// What to say about a failed connection, when it is about TLS: the setting to fix. `text`
    /// is the error's text, `rustls` the TLS error in its chain, `host` the host connected to.
    pub(crate) fn explain(&self, text: &str, rustls: Option<&rustls::Error>, host: &str) -> Option<String> {
        if let Some(rustls::Error::InvalidCertificate(e)) = rustls {
            return Some(match e {
                CertificateError::UnknownIssuer | CertificateError::BadSignature => format!(
                    "the catalog's certificate is not signed by a CA in {}; set sslrootcert to the CA that signed it, or sslmode=require to skip verification",
                    self.roots_named()
                ),
                CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                    "the catalog's certificate has expired: the server needs a renewed certificate (or this machine's clock is wrong); sslmode=require skips verification".into()
                }
                CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                    "the catalog's certificate is not valid yet: check this machine's clock (and the server's certificate)".into()
                }
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => format!(
                    "the catalog's certificate is not issued for host `{host}` (sslmode=verify-full checks the name): put the name the certificate is issued for in catalog_url's host, or use sslmode=verify-ca to check only the CA"
                ),
                other => format!("the catalog's certificate does not verify against {} ({other:?}); fix the server's certificate or sslrootcert", self.roots_named()),
            });
        }
        if let Some(rustls::Error::AlertReceived(alert)) = rustls {
            let ours = match &self.cert {
                Some(cert) => format!("our client certificate (sslcert={})", cert.display()),
                None => "the connection without a client certificate".into(),
            };
            return Some(format!("the catalog refused {ours} during the TLS handshake ({alert:?}): set sslcert and sslkey to a certificate signed by a CA the server trusts (its ssl_ca_file)"));
        }
        if text.contains("client certificate") {
            return Some(match &self.cert {
                None => "this database requires a client certificate: set sslcert and sslkey in catalog_url (…?sslmode=verify-full&sslcert=/path/client.crt&sslkey=/path/client.key)".into(),
                Some(cert) => format!("the database did not accept the client certificate sslcert={}: its common name must be the database role, and it must be signed by a CA the server trusts", cert.display()),
            });
        }
        if let (Some(cert), true) = (&self.cert, text.contains("authentication failed")) {
            return Some(format!(
                "the password is wrong (`mcp-canvas-cli store set-password`), or the client certificate sslcert={} is not this role's: its common name must be the database role",
                cert.display()
            ));
        }
        if text.contains("no encryption") && self.mode == Mode::Disable {
            return Some("the server accepts only TLS connections (hostssl rules in its pg_hba.conf): remove sslmode=disable from catalog_url, or set sslmode=verify-full".into());
        }
        if text.contains("server does not support TLS") {
            return Some(format!("sslmode={} needs TLS but this server has none (ssl = off): turn on ssl in postgresql.conf, or use sslmode=prefer", self.mode.name()));
        }
        None
    }
}

fn read_certs(path: &Path, setting: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{setting}={}: {e}", path.display()))?;
    let certs: Vec<_> = CertificateDer::pem_slice_iter(&bytes).collect::<Result<_, _>>().map_err(|e| format!("{setting}={}: not PEM certificates: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{setting}={}: no PEM certificate in it", path.display()));
    }
    Ok(certs)
}

/// libpq's rule: a key file of ours readable by group or others (`mode & 0o077`), or one owned
/// by root that group may write or others may read (`0o640` at most), is refused.
#[cfg(unix)]
fn check_key_permissions(key: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(key).map_err(|e| format!("sslkey={}: {e}", key.display()))?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mode = meta.mode() & 0o777;
    let too_open = if meta.uid() == me { mode & 0o077 != 0 } else if meta.uid() == 0 { mode & 0o037 != 0 } else {
        return Err(format!("sslkey={}: the private key file must be owned by you or root", key.display()));
    };
    if too_open {
        return Err(format!(
            "sslkey={}: the private key file has group or world access (mode {mode:04o}); `chmod 600` it (0600 or less when it is yours, 0640 or less when root owns it)",
            key.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_key_permissions(_key: &Path) -> Result<(), String> {
    Ok(())
}

/// The chain checked against the roots; the name too when `name` (verify-full).
#[derive(Debug)]
struct Checked {
    webpki: Arc<rustls::client::WebPkiServerVerifier>,
    name: bool,
}

impl ServerCertVerifier for Checked {
    fn verify_server_cert(&self, end_entity: &CertificateDer<'_>, intermediates: &[CertificateDer<'_>], server_name: &ServerName<'_>, ocsp: &[u8], now: UnixTime) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            // webpki checks the name only after the chain verified: verify-ca accepts it here.
            Err(rustls::Error::InvalidCertificate(CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. })) if !self.name => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// `require`/`prefer` without `sslrootcert`: encrypted, the certificate not checked (libpq's
/// meaning); the handshake's signatures still are.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(&self, _: &CertificateDer<'_>, _: &[CertificateDer<'_>], _: &ServerName<'_>, _: &[u8], _: UnixTime) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The TLS error in `e`'s chain, if any (tokio-postgres wraps it in an `io::Error`).
pub(crate) fn rustls_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut current = Some(e);
    while let Some(error) = current {
        if let Some(found) = error.downcast_ref::<rustls::Error>() {
            return Some(found);
        }
        if let Some(found) = error.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()).and_then(|inner| inner.downcast_ref::<rustls::Error>()) {
            return Some(found);
        }
        current = error.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libpqs_parameters_are_split_off_and_the_rest_kept() {
        let (url, tls) = split("postgres://ada@db:5432/canvas?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=3&application_name=x").unwrap();
        assert_eq!(url, "postgres://ada@db:5432/canvas?connect_timeout=3&application_name=x");
        assert_eq!((tls.mode, tls.root.as_deref()), (Mode::VerifyFull, Some(Path::new("/etc/ca.pem"))));
        let (url, tls) = split("postgres://ada@db/canvas").unwrap();
        assert_eq!((url.as_str(), tls.mode), ("postgres://ada@db/canvas", Mode::Prefer));
        assert_eq!(split("postgres://db/c?sslrootcert=system").unwrap().1.mode, Mode::VerifyFull);
        assert!(split("postgres://db/c?sslrootcert=system&sslmode=require").unwrap_err().contains("verify-full"));
        assert!(split("postgres://db/c?sslmode=verify").unwrap_err().contains("sslmode=verify is not one of"));
        assert!(split("postgres://db/c?sslcert=/a.crt").unwrap_err().contains("sslcert and sslkey"));
    }
}
