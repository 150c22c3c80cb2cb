//! The team catalog over TLS, against a real PostgreSQL with `ssl = on` and hostssl-only rules
//! (plain connections refused), its certificates from a test CA made here (rcgen): libpq's
//! `sslmode`, `sslrootcert`, `sslcert`/`sslkey` in `catalog_url`, and an error naming the setting
//! to fix for each certificate that does not verify.

use std::{os::unix::fs::PermissionsExt as _, path::Path};

use mcp_canvas_e2e::team::{member, Postgres, PASSWORD};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose};

/// A CA: its certificate (PEM) and the issuer that signs with it.
fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

/// A leaf certificate signed by `ca`: (certificate PEM, key PEM).
fn leaf(ca: &CertifiedIssuer<'static, KeyPair>, names: &[&str], common_name: &str, purpose: ExtendedKeyUsagePurpose, expired: bool) -> (String, String) {
    let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
    params.distinguished_name.push(DnType::CommonName, common_name);
    params.extended_key_usages = vec![purpose];
    if expired {
        params.not_before = rcgen::date_time_ymd(2020, 1, 1);
        params.not_after = rcgen::date_time_ymd(2021, 1, 1);
    }
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, ca).unwrap();
    (cert.pem(), key.serialize_pem())
}

fn write(dir: &Path, name: &str, text: &str, mode: u32) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.display().to_string()
}

/// Connects as `role` (password [`PASSWORD`]); the error's text on failure.
fn connect(url: &str) -> Result<i32, String> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let catalog = mcp_canvas_team::Catalog::connect(url, Some(PASSWORD), false).await.map_err(|e| e.to_string())?;
        catalog.schema_version().await.map_err(|e| e.to_string())
    })
}

fn refused(url: &str, needles: &[&str]) {
    let error = connect(url).expect_err(url);
    for needle in needles {
        assert!(error.contains(needle), "{url}: `{needle}` not in: {error}");
    }
    assert!(!error.contains(PASSWORD), "no password in errors: {error}");
}

#[test]
fn the_catalog_over_tls_verifies_its_certificate_and_names_the_setting_to_fix() {
    let ca = ca("MCP Canvas test CA");
    let (server_cert, server_key) = leaf(&ca, &["localhost"], "localhost", ExtendedKeyUsagePurpose::ServerAuth, false);
    let hba = "hostssl all certuser 127.0.0.1/32 scram-sha-256 clientcert=verify-full\nhostssl all all 127.0.0.1/32 scram-sha-256\n";
    let settings = [("ssl", "on"), ("ssl_cert_file", "server.crt"), ("ssl_key_file", "server.key"), ("ssl_ca_file", "ca.crt")];
    let pg = Postgres::start_with(&settings, Some(hba), &[("server.crt", server_cert.as_bytes()), ("server.key", server_key.as_bytes()), ("ca.crt", ca.pem().as_bytes())]);
    pg.admin(&format!("CREATE ROLE certuser LOGIN PASSWORD '{PASSWORD}' IN ROLE canvas"));

    let files = tempfile::tempdir().unwrap();
    let root = write(files.path(), "ca.crt", &ca.pem(), 0o644);
    let other = write(files.path(), "other-ca.crt", &self::ca("Someone else's CA").pem(), 0o644);
    let base = |host: &str, role: &str| format!("postgres://{role}@{host}:{}/canvas", pg.port);

    // verify-full with the CA that signed the server's certificate, by the name it is issued for.
    assert_eq!(connect(&format!("{}?sslmode=verify-full&sslrootcert={root}", base("localhost", "canvas"))), Ok(mcp_canvas_team::SCHEMA_VERSION));
    // Another name for the same server: verify-full refuses it, naming the host and the mode;
    // verify-ca checks only the chain.
    refused(&format!("{}?sslmode=verify-full&sslrootcert={root}", base("127.0.0.1", "canvas")), &["not issued for host `127.0.0.1`", "verify-full", "verify-ca"]);
    assert!(connect(&format!("{}?sslmode=verify-ca&sslrootcert={root}", base("127.0.0.1", "canvas"))).is_ok());
    // A CA that did not sign it, or the system's roots (which know nothing of the test CA).
    refused(&format!("{}?sslmode=verify-full&sslrootcert={other}", base("localhost", "canvas")), &[&format!("not signed by a CA in sslrootcert={other}"), "sslmode=require"]);
    refused(&format!("{}?sslmode=verify-full", base("localhost", "canvas")), &["not signed by a CA in the system's root certificates", "set sslrootcert"]);
    refused(&format!("{}?sslrootcert=system", base("localhost", "canvas")), &["system's root certificates"]);
    // require encrypts without checking (libpq's meaning); with sslrootcert it checks the chain.
    assert!(connect(&format!("{}?sslmode=require", base("127.0.0.1", "canvas"))).is_ok());
    refused(&format!("{}?sslmode=require&sslrootcert={other}", base("localhost", "canvas")), &["not signed by a CA in sslrootcert"]);
    // No sslmode: libpq's prefer, TLS since the server offers it.
    assert!(connect(&base("localhost", "canvas")).is_ok());
    // Plain: the server's hostssl-only rules refuse it, and the error says TLS is required.
    refused(&format!("{}?sslmode=disable", base("127.0.0.1", "canvas")), &["accepts only TLS connections", "remove sslmode=disable"]);

    // A role the server wants a client certificate from (clientcert=verify-full).
    let (client_cert, client_key) = leaf(&ca, &[], "certuser", ExtendedKeyUsagePurpose::ClientAuth, false);
    let cert = write(files.path(), "client.crt", &client_cert, 0o644);
    let key = write(files.path(), "client.key", &client_key, 0o600);
    let full = format!("{}?sslmode=verify-full&sslrootcert={root}", base("localhost", "certuser"));
    refused(&full, &["requires a client certificate", "sslcert and sslkey"]);
    assert_eq!(connect(&format!("{full}&sslcert={cert}&sslkey={key}")), Ok(mcp_canvas_team::SCHEMA_VERSION));
    // A certificate for another role is not accepted for this one.
    let (wrong_cert, wrong_key) = leaf(&ca, &[], "someone-else", ExtendedKeyUsagePurpose::ClientAuth, false);
    let (wrong_cert, wrong_key) = (write(files.path(), "wrong.crt", &wrong_cert, 0o644), write(files.path(), "wrong.key", &wrong_key, 0o600));
    refused(&format!("{full}&sslcert={wrong_cert}&sslkey={wrong_key}"), &[&format!("sslcert={wrong_cert}")]);
    // A key file others may read is refused before anything is sent (as libpq does).
    let open_key = write(files.path(), "open.key", &client_key, 0o644);
    refused(&format!("{full}&sslcert={cert}&sslkey={open_key}"), &[&format!("sslkey={open_key}"), "group or world access", "chmod 600"]);
    refused(&format!("{full}&sslcert={cert}"), &["sslcert and sslkey go together"]);

    // The server's certificate expires: refused by name; require still connects.
    let (expired_cert, expired_key) = leaf(&ca, &["localhost"], "localhost", ExtendedKeyUsagePurpose::ServerAuth, true);
    pg.write_file("server.crt", expired_cert.as_bytes());
    pg.write_file("server.key", expired_key.as_bytes());
    pg.admin("SELECT pg_reload_conf()");
    let expired = format!("{}?sslmode=verify-full&sslrootcert={root}", base("localhost", "canvas"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    // The server reloads its configuration in the background.
    while connect(&expired).is_ok() {
        assert!(std::time::Instant::now() < deadline, "the server never took the expired certificate");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    refused(&expired, &["certificate has expired", "sslmode=require"]);
    assert!(connect(&format!("{}?sslmode=require", base("localhost", "canvas"))).is_ok());
}

/// A member's CLI with a verify-full catalog_url: `store status` reaches the catalog over TLS.
#[test]
fn a_member_reaches_a_tls_only_catalog_from_the_cli() {
    let ca = ca("MCP Canvas test CA");
    let (server_cert, server_key) = leaf(&ca, &["localhost"], "localhost", ExtendedKeyUsagePurpose::ServerAuth, false);
    let settings = [("ssl", "on"), ("ssl_cert_file", "server.crt"), ("ssl_key_file", "server.key")];
    let pg = Postgres::start_with(&settings, Some("hostssl all all 127.0.0.1/32 scram-sha-256\n"), &[("server.crt", server_cert.as_bytes()), ("server.key", server_key.as_bytes())]);
    let dir = tempfile::tempdir().unwrap();
    let root = write(dir.path(), "ca.crt", &ca.pem(), 0o644);
    let store = |url: &str| {
        format!("[identity]\nusername = \"ada\"\n\n[store]\nbackend = \"team\"\ns3_url = \"s3://team/canvas\"\ns3_endpoint = \"http://127.0.0.1:9\"\ns3_region = \"us-east-1\"\ncatalog_url = \"{url}\"\nteam = \"t\"\n")
    };
    std::fs::write(dir.path().join("settings.toml"), store(&format!("postgres://canvas@localhost:{}/canvas?sslmode=verify-full&sslrootcert={root}", pg.port))).unwrap();
    let status = member(dir.path(), &["store", "status", "--json"], b"");
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", status.stdout, status.stderr));
    assert_eq!(status["catalog_error"], serde_json::Value::Null, "{status}");
    assert_eq!(status["schema_version"], mcp_canvas_team::SCHEMA_VERSION);
    // The same with sslmode=disable: the error says the server requires TLS.
    std::fs::write(dir.path().join("settings.toml"), store(&format!("postgres://canvas@localhost:{}/canvas?sslmode=disable", pg.port))).unwrap();
    let list = member(dir.path(), &["store", "list"], b"");
    assert!(list.code != 0 && list.stderr.contains("accepts only TLS connections"), "{}", list.stderr);
}
