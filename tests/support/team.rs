//! The team store's real parts, started by the tests on this machine: a PostgreSQL server
//! (Debian's, `initdb` into a temp dir) and an S3-compatible server (moto from PyPI, installed
//! by `scripts/setup.sh --tests`). Each is killed when dropped.

use std::{
    io::{Read as _, Write as _},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// Must match `scripts/setup.sh --tests`.
pub const MOTO_VERSION: &str = "5.2.5";

/// The catalog's password in every test database (what a member keeps in the keyring or
/// `MCP_CANVAS_CATALOG_PASSWORD`).
pub const PASSWORD: &str = "team-secret-7f3a";

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_for_port(port: u16, what: &str, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited before listening: {status}");
        }
        assert!(Instant::now() < deadline, "{what} did not listen on {port} within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A PostgreSQL server of its own (password auth), with database `canvas` owned by role
/// `canvas` (password [`PASSWORD`]).
pub struct Postgres {
    pub port: u16,
    dir: tempfile::TempDir,
    bin: PathBuf,
    child: Option<Child>,
    /// `-c name=value` settings beyond the defaults (TLS).
    settings: Vec<String>,
}

fn as_postgres(program: &Path) -> Command {
    if unsafe_is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn unsafe_is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

impl Postgres {
    pub fn start() -> Self {
        Self::start_with(&[], None, &[])
    }

    /// A server with `files` written into its data dir first (owned by the server, mode 0600),
    /// `settings` for postgresql.conf, and `hba` as its pg_hba.conf (`None`: initdb's, password
    /// auth from anywhere local). Superuser `admin` and role `canvas` as in [`Self::start`].
    pub fn start_with(settings: &[(&str, &str)], hba: Option<&str>, files: &[(&str, &[u8])]) -> Self {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .and_then(|dirs| dirs.flatten().map(|d| d.path().join("bin")).filter(|b| b.join("initdb").is_file()).max())
            .expect("PostgreSQL is not installed: run `scripts/setup.sh --tests`");
        let dir = tempfile::Builder::new().prefix("mcp-canvas-pg").tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::write(dir.path().join("pw"), "admin-secret\n").unwrap();
        if unsafe_is_root() {
            assert!(Command::new("chown").args(["-R", "postgres"]).arg(dir.path()).status().unwrap().success());
        }
        let out = as_postgres(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-A", "scram-sha-256", "-U", "admin", "--no-sync", "-E", "UTF8"])
            .arg(format!("--pwfile={}", dir.path().join("pw").display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        let port = free_port();
        let settings = settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut pg = Self { port, dir, bin, child: None, settings };
        for (name, bytes) in files {
            pg.write_file(name, bytes);
        }
        if let Some(hba) = hba {
            pg.write_file("pg_hba.conf", hba.as_bytes());
        }
        pg.restart();
        pg.admin_on("postgres", &format!("CREATE ROLE canvas LOGIN PASSWORD '{PASSWORD}'"));
        pg.admin_on("postgres", "CREATE DATABASE canvas OWNER canvas");
        pg
    }

    /// Runs SQL as the superuser on database `canvas`; returns what it printed.
    pub fn admin(&self, sql: &str) -> String {
        self.admin_on("canvas", sql)
    }

    /// Runs SQL as the superuser on database `db`; returns what it printed.
    pub fn admin_on(&self, db: &str, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .env("PGPASSWORD", "admin-secret")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "admin", "-d", db, "-v", "ON_ERROR_STOP=1", "-tA", "-c", sql])
            .output()
            .unwrap();
        assert!(out.status.success(), "psql `{sql}`: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The `catalog_url` members put in settings.toml (no password).
    pub fn url(&self) -> String {
        format!("postgres://canvas@127.0.0.1:{}/canvas", self.port)
    }

    /// Stops the server (the catalog "goes away"); [`Self::restart`] brings it back.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGINT to the postmaster (not to `runuser`, which does not pass it on): fast
            // shutdown, connections dropped.
            let pid = std::fs::read_to_string(self.dir.path().join("data/postmaster.pid")).ok().and_then(|t| t.lines().next().map(str::to_owned));
            let pid = pid.unwrap_or_else(|| child.id().to_string());
            let _ = Command::new("kill").args(["-INT", &pid]).status();
            let _ = child.wait();
        }
    }

    /// Writes `name` into the data dir, owned by the server's user, mode 0600 (a key PostgreSQL
    /// accepts); `SELECT pg_reload_conf()` makes a running server read it again.
    pub fn write_file(&self, name: &str, bytes: &[u8]) {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.dir.path().join("data").join(name);
        std::fs::write(&path, bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        if unsafe_is_root() {
            assert!(Command::new("chown").arg("postgres").arg(&path).status().unwrap().success());
        }
    }

    pub fn restart(&mut self) {
        assert!(self.child.is_none());
        let mut command = as_postgres(&self.bin.join("postgres"));
        command
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-p", &self.port.to_string(), "-k"])
            .arg(self.dir.path())
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=60"]);
        for setting in &self.settings {
            command.args(["-c", setting]);
        }
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        wait_for_port(self.port, "postgres", self.child.as_mut().unwrap());
        // Listening is not accepting yet ("the database system is starting up").
        let deadline = Instant::now() + Duration::from_secs(60);
        while !Command::new(self.bin.join("pg_isready")).args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()]).status().unwrap().success() {
            assert!(Instant::now() < deadline, "postgres did not accept connections on {} within 60 s", self.port);
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The moto venv's directory.
pub fn moto_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.deps/moto");
    assert!(dir.join(format!("installed-moto-{MOTO_VERSION}")).is_file(), "moto {MOTO_VERSION} is not installed in {}: run `scripts/setup.sh --tests`", dir.display());
    dir
}

/// An S3-compatible server (moto) on its own port, with bucket `team`.
pub struct S3Server {
    pub port: u16,
    child: Option<Child>,
}

impl S3Server {
    pub fn start() -> Self {
        let port = free_port();
        let mut server = Self { port, child: None };
        server.restart();
        server.request("PUT", "/team", b"");
        server
    }

    pub fn restart(&mut self) {
        let child = Command::new(moto_dir().join("venv/bin/moto_server"))
            .args(["-H", "127.0.0.1", "-p", &self.port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        wait_for_port(self.port, "moto_server", self.child.as_mut().unwrap());
    }

    /// Stops the server (moto keeps its state in memory: the bucket is gone with it).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// One unsigned request (moto checks no signatures); returns status and body.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(stream, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", self.port, body.len()).unwrap();
        stream.write_all(body).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let head_end = response.windows(4).position(|w| w == b"\r\n\r\n").map_or(response.len(), |p| p + 4);
        let status = String::from_utf8_lossy(&response[..head_end]).split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        (status, response[head_end..].to_vec())
    }

    /// Writes `bytes` at `key` of bucket `team` with boto3 (moto's own client), as someone
    /// changing the bucket behind MCP Canvas's back.
    pub fn put_raw(&self, key: &str, bytes: &[u8]) {
        let script = "import boto3,sys\ns3=boto3.client('s3',endpoint_url=sys.argv[1],region_name='us-east-1',aws_access_key_id='t',aws_secret_access_key='t')\ns3.put_object(Bucket='team',Key=sys.argv[2],Body=sys.stdin.buffer.read())";
        let mut child = Command::new(moto_dir().join("venv/bin/python")).args(["-c", script, &self.endpoint(), key]).stdin(Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(bytes).unwrap();
        assert!(child.wait().unwrap().success(), "boto3 put_object {key}");
    }

    /// An endpoint in front of this server that drops `If-None-Match` and `If-Match` (a server
    /// that ignores conditional writes); killed when dropped.
    pub fn ignoring_conditions(&self) -> (Child, String) {
        self.behind("ignore-conditions")
    }

    /// An endpoint in front of this server that answers the first `CompleteMultipartUpload`
    /// with 503 SlowDown (a busy S3); killed when dropped.
    pub fn failing_first_completion(&self) -> (Child, String) {
        self.behind("fail-first-completion")
    }

    /// `fault_servers/s3_fault_proxy.py` in `mode` started in front of this server; its child
    /// and URL.
    fn behind(&self, mode: &str) -> (Child, String) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fault_servers/s3_fault_proxy.py");
        let mut child = Command::new("python3").arg(script).arg(mode).arg(self.endpoint()).stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        (child, line.trim().to_owned())
    }

    /// The keys under `prefix` in bucket `team`.
    pub fn keys(&self, prefix: &str) -> Vec<String> {
        let (status, body) = self.request("GET", &format!("/team?list-type=2&prefix={prefix}"), b"");
        assert_eq!(status, 200);
        let body = String::from_utf8_lossy(&body);
        body.split("<Key>").skip(1).filter_map(|s| s.split("</Key>").next()).map(str::to_owned).collect()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The `[store]` section for a member of team `t` on these servers.
pub fn store_settings(s3: &S3Server, pg: &Postgres, member: &str) -> String {
    settings_at(&s3.endpoint(), pg, member)
}

/// The `[store]` section for a member of team `t` with the bucket `team` at `endpoint`.
pub fn settings_at(endpoint: &str, pg: &Postgres, member: &str) -> String {
    format!(
        "[identity]\nusername = \"{member}\"\n\n[store]\nbackend = \"team\"\ns3_url = \"s3://team/canvas\"\ns3_endpoint = \"{endpoint}\"\ns3_region = \"us-east-1\"\ncatalog_url = \"{}\"\nteam = \"t\"\n",
        pg.url()
    )
}

/// s3s-fs (crates.io, in `.deps/s3s-fs`, installed by `scripts/setup.sh --tests`): an S3 server
/// that verifies every SigV4 signature and that each body hashes to its signed
/// `x-amz-content-sha256`, storing bucket `team` in a temp dir. It takes [`member_env`]'s keys
/// only. Killed when dropped.
pub struct S3sFs {
    pub port: u16,
    root: tempfile::TempDir,
    child: Child,
}

impl S3sFs {
    pub fn start() -> Self {
        let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.deps/s3s-fs/bin/s3s-fs");
        assert!(bin.is_file(), "s3s-fs is not installed at {}: run `scripts/setup.sh --tests`", bin.display());
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("team")).unwrap();
        let port = free_port();
        let mut child = Command::new(bin)
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--access-key", "testing", "--secret-key", "testing"])
            .arg(root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_port(port, "s3s-fs", &mut child);
        Self { port, root, child }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Where the server keeps the object at `key` of bucket `team`.
    pub fn file(&self, key: &str) -> PathBuf {
        self.root.path().join("team").join(key)
    }
}

impl Drop for S3sFs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The environment a member's process needs: the bucket's keys (moto takes any) and the
/// catalog's password; nothing from the developer's own AWS setup.
pub fn member_env() -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ACCESS_KEY_ID", "testing".into()),
        ("AWS_SECRET_ACCESS_KEY", "testing".into()),
        ("AWS_PROFILE", String::new()),
        ("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent".into()),
        ("MCP_CANVAS_CATALOG_PASSWORD", PASSWORD.into()),
    ]
}

/// `mcp-canvas-cli --data-dir DIR ARGS...` as a member: the bucket's keys and the catalog's
/// password from the environment, `stdin` fed in.
pub fn member(dir: &Path, args: &[&str], stdin: &[u8]) -> crate::Run {
    member_with(dir, args, stdin, &[])
}

/// [`member`] with more variables in its environment.
pub fn member_with(dir: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> crate::Run {
    let mut command = Command::new(crate::binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir).args(args).env_remove("MCP_CANVAS_DATA_DIR").env_remove("PGPASSWORD");
    for (k, v) in member_env() {
        command.env(k, v);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    crate::Run { code: output.status.code().unwrap_or(-1), stdout: String::from_utf8(output.stdout).unwrap(), stderr: String::from_utf8(output.stderr).unwrap() }
}

/// A new member's data dir: `settings.toml` with their identity and the team store.
pub fn join(s3: &S3Server, pg: &Postgres, name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.toml"), store_settings(s3, pg, name)).unwrap();
    dir
}

/// A TCP forwarder in front of a server on `127.0.0.1:upstream` that counts the bytes the
/// server sends back (what a member's process fetched from the bucket). Its threads end with
/// the test process.
pub struct CountingProxy {
    pub port: u16,
    down: std::sync::Arc<std::sync::atomic::AtomicU64>,
    copies: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// The header of a copy (`CopyObject`, `UploadPartCopy`).
const COPY: &[u8] = b"x-amz-copy-source:";

impl CountingProxy {
    pub fn start(upstream: u16) -> Self {
        use std::sync::{atomic::AtomicU64, Arc};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (down, copies) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let (counted, copied) = (down.clone(), copies.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else { continue };
                let (mut client_in, mut server_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                let copies = copied.clone();
                std::thread::spawn(move || {
                    // Requests are scanned for the copy header (bodies too: random bytes
                    // do not spell it); the tail of each read is kept for a header split in two.
                    let (mut buffer, mut seen) = (vec![0u8; 64 << 10], Vec::new());
                    loop {
                        match client_in.read(&mut buffer) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                seen.extend_from_slice(&buffer[..n]);
                                let found = seen.windows(COPY.len()).filter(|w| w.eq_ignore_ascii_case(COPY)).count();
                                copies.fetch_add(found as u64, std::sync::atomic::Ordering::Relaxed);
                                let keep = seen.len().saturating_sub(COPY.len() - 1);
                                seen.drain(..keep);
                                if server_out.write_all(&buffer[..n]).is_err() {
                                    break;
                                }
                            }
                        }
                    }
                    let _ = server_out.shutdown(std::net::Shutdown::Write);
                });
                let (mut server_in, mut client_out, counted) = (server, client, counted.clone());
                std::thread::spawn(move || {
                    let mut buffer = vec![0u8; 64 << 10];
                    loop {
                        match server_in.read(&mut buffer) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                counted.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
                                if client_out.write_all(&buffer[..n]).is_err() {
                                    break;
                                }
                            }
                        }
                    }
                    let _ = client_out.shutdown(std::net::Shutdown::Write);
                });
            }
        });
        Self { port, down, copies }
    }

    /// Copies (`x-amz-copy-source`) sent through this proxy so far.
    pub fn copies(&self) -> u64 {
        self.copies.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Bytes the server has sent through this proxy so far (headers included).
    pub fn bytes_down(&self) -> u64 {
        self.down.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// A valid PDF of `pages` pages, each showing its own noise image of about `image_bytes` (raw
/// RGB, incompressible), written to `out` in the order a simple generator writes it: each page's
/// dictionary, content stream and image together, the cross-reference table at the end.
pub fn noise_pdf(out: &Path, pages: usize, image_bytes: usize) -> u64 {
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    let (width, mut offsets, mut pos) = (512usize, Vec::new(), 0u64);
    let height = (image_bytes / (width * 3)).max(1);
    let put = |file: &mut std::io::BufWriter<std::fs::File>, bytes: &[u8], pos: &mut u64| {
        file.write_all(bytes).unwrap();
        *pos += bytes.len() as u64;
    };
    put(&mut file, b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", &mut pos);
    let kids: Vec<String> = (0..pages).map(|p| format!("{} 0 R", 4 + 3 * p)).collect();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let object = |file: &mut std::io::BufWriter<std::fs::File>, n: usize, body: &[u8], pos: &mut u64, offsets: &mut Vec<(usize, u64)>| {
        offsets.push((n, *pos));
        put(file, format!("{n} 0 obj\n").as_bytes(), pos);
        put(file, body, pos);
        put(file, b"\nendobj\n", pos);
    };
    object(&mut file, 1, b"<< /Type /Catalog /Pages 2 0 R >>", &mut pos, &mut offsets);
    object(&mut file, 2, format!("<< /Type /Pages /Count {pages} /Kids [{}] >>", kids.join(" ")).as_bytes(), &mut pos, &mut offsets);
    object(&mut file, 3, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", &mut pos, &mut offsets);
    for p in 0..pages {
        let (page, contents, image) = (4 + 3 * p, 5 + 3 * p, 6 + 3 * p);
        let dict = format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {contents} 0 R /Resources << /Font << /F1 3 0 R >> /XObject << /Im0 {image} 0 R >> >> >>");
        object(&mut file, page, dict.as_bytes(), &mut pos, &mut offsets);
        let text = format!("q 468 {} 0 0 72 200 cm /Im0 Do Q\nBT /F1 24 Tf 72 720 Td (Page {} of the team report) Tj ET\n", 468 * height / width, p + 1);
        object(&mut file, contents, format!("<< /Length {} >>\nstream\n{text}\nendstream", text.len()).as_bytes(), &mut pos, &mut offsets);
        let mut pixels = vec![0u8; width * height * 3];
        for chunk in pixels.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        let head = format!("<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length {} >>\nstream\n", pixels.len());
        let mut body = head.into_bytes();
        body.extend_from_slice(&pixels);
        body.extend_from_slice(b"\nendstream");
        object(&mut file, image, &body, &mut pos, &mut offsets);
    }
    offsets.sort();
    let mut xref = format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1);
    for (_, offset) in &offsets {
        xref.push_str(&format!("{offset:010} 00000 n \n"));
    }
    xref.push_str(&format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{pos}\n%%EOF\n", offsets.len() + 1));
    put(&mut file, xref.as_bytes(), &mut pos);
    file.flush().unwrap();
    pos
}
