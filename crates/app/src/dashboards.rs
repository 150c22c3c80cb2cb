//! Live dashboards in the window (000 §3), around the canvas state:
//!
//! - **The allowlist** (`[dashboards] allowed_origins` in `settings.toml`, decided by
//!   `mcp_canvas_config::allowlist`). It is re-read from the file whenever the UI asks, so
//!   `mcp-canvas-cli allowlist add|rm` takes effect in a running app.
//! - **The navigation guard**: a plugin whose `on_navigation` hook sees every navigation of the
//!   main window *and of its frames* (WebKitGTK's navigation policy decisions cover subframes).
//!   http(s) navigations are allowed only to the app's own hosts and to allowlisted origins, so
//!   the CSP's broad `frame-src https: http://127.0.0.1:* http://localhost:*` never lets anything
//!   else load — not a dashboard that navigates its own frame away, not a link in a sanitized
//!   document. Other schemes the app does not use (`file:`, `data:`, `blob:`, ...) are refused.
//! - **The audit**: opening (or updating) a dashboard tab, allowing or disallowing an origin,
//!   and every way a dashboard tab goes away (closed by the user, its pane closed, replaced by
//!   the next call) are recorded with the local identity; URLs are redacted, tokens never logged.
//! - **Pinned dashboards** are saved to `dashboards.json` in the data dir — without tokens, and
//!   with token-like query parameters stripped from their URLs — and restored at start.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, MutexGuard, RwLock},
};

use mcp_canvas_canvas::{AppliedOutcome, Canvas, PinnedDashboard, TabContent, TabId};
use mcp_canvas_contract::DashboardPersistence;
use mcp_canvas_wire::{CommandError, ErrorKind};
use mcp_canvas_config::{allowlist, allowlist::{Allowlist, AllowlistView, DashboardAccess}, data_dir::DataPaths};
use mcp_canvas_host::{audit::{audit_dashboard, audit_dashboard_in_background, DashboardEvent}, Host};
use serde::{Deserialize, Serialize};
use url::Url;

/// The file pinned dashboards are saved to, in the data dir.
const PINNED_FILE: &str = "dashboards.json";

/// Hosts of the app itself when it is served over http(s) (Windows, Android): never dashboards.
const APP_HOSTS: &[&str] = &["tauri.localhost", "artifact.localhost", "ipc.localhost", "mcp-app.localhost"];

/// Schemes the window itself uses; any other non-http(s) navigation is refused.
const APP_SCHEMES: &[&str] = &["tauri", "artifact", "ipc", "about", "mcp-app"];

#[derive(Serialize, Deserialize)]
struct PinnedFile {
    pinned: Vec<PinnedDashboard>,
}

/// A dashboard open on the canvas, as the audit needs it.
struct OpenDashboard {
    tab: TabId,
    url: String,
    token: Option<String>,
    persistence: DashboardPersistence,
}

/// Dashboard state of the app, next to the canvas.
pub struct Dashboards {
    allowlist: Arc<RwLock<Allowlist>>,
    settings_path: Option<PathBuf>,
    pinned_path: Option<PathBuf>,
    /// What `dashboards.json` holds, or will once written (written only when this changes).
    saved: Mutex<Vec<PinnedDashboard>>,
    /// The latest list not written yet: written off the caller's thread (a canvas intent runs on
    /// the window's), the latest winning.
    unwritten: Arc<Mutex<Option<Vec<PinnedDashboard>>>>,
    /// One writer of `dashboards.json` at a time.
    writing: Arc<Mutex<()>>,
    /// The server whose call opened each dashboard id, for the audit.
    servers: Mutex<HashMap<String, String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Dashboards {
    /// From the host's settings; without a host (data dir unusable) the list is empty and
    /// nothing is saved.
    pub fn new(host: Option<&Host>) -> Self {
        let allowlist = host.map(|h| Allowlist::from_settings(&h.settings())).unwrap_or_default();
        for ignored in allowlist.ignored() {
            eprintln!("mcp-canvas: settings.toml: dashboard allowlist entry `{}` ignored: {}", ignored.entry, ignored.reason);
        }
        let paths = host.map(|h| DataPaths::new(h.data_dir().to_owned()));
        Self {
            allowlist: Arc::new(RwLock::new(allowlist)),
            settings_path: paths.as_ref().map(DataPaths::settings),
            pinned_path: paths.map(|p| p.root.join(PINNED_FILE)),
            saved: Mutex::new(Vec::new()),
            unwritten: Arc::default(),
            writing: Arc::default(),
            servers: Mutex::new(HashMap::new()),
        }
    }

    /// The check the shell's navigation hook runs (see the module docs); it sees allowlist
    /// changes made through this `Dashboards`.
    pub fn navigation_guard(&self) -> NavigationGuard {
        NavigationGuard(self.allowlist.clone())
    }

    fn settings_path(&self) -> Result<&Path, CommandError> {
        self.settings_path.as_deref().ok_or_else(|| CommandError::new(ErrorKind::Config, "MCP Canvas could not open its data directory, so it has no settings to change"))
    }

    /// Re-reads the allowlist from `settings.toml` (edits by the CLI show up); a file that cannot
    /// be read keeps the list in use, and the error is returned.
    fn reload(&self) -> Result<Allowlist, CommandError> {
        let path = self.settings_path()?;
        let list = Allowlist::load(path).map_err(|e| CommandError::new(ErrorKind::Config, e.to_string()))?;
        *self.allowlist.write().unwrap_or_else(|p| p.into_inner()) = list.clone();
        Ok(list)
    }

    fn current(&self) -> Allowlist {
        match self.reload() {
            Ok(list) => list,
            Err(reason) => {
                eprintln!("mcp-canvas: keeping the dashboard allowlist in use: {reason}");
                self.allowlist.read().unwrap_or_else(|p| p.into_inner()).clone()
            }
        }
    }

    /// The allowlist as the Settings panel shows it.
    pub fn view(&self) -> Result<AllowlistView, CommandError> {
        let list = self.reload()?;
        Ok(list.view(self.settings_path()?))
    }

    /// Whether the dashboard in `tab` may load, and its iframe URL when it may.
    pub fn access(&self, canvas: &Canvas, tab: TabId) -> Result<DashboardAccess, CommandError> {
        let tab = canvas.tab(tab).ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("there is no tab {} (it was closed)", tab.0)))?;
        let TabContent::Dashboard(dashboard) = &tab.content else {
            return Err(CommandError::bug(format!("tab {} is not a dashboard", tab.id.0)));
        };
        Ok(DashboardAccess::decide(&self.current(), &dashboard.url, dashboard.token.as_deref()))
    }

    /// Allows `origin` (the user confirmed), recording it with the dashboard that asked, if any.
    pub fn allow(&self, host: &Host, canvas: &Canvas, origin: &str, tab: Option<TabId>) -> Result<AllowlistView, CommandError> {
        let path = self.settings_path()?.to_owned();
        let edit = allowlist::add_origin(&path, origin).map_err(allowlist_error)?;
        *self.allowlist.write().unwrap_or_else(|p| p.into_inner()) = edit.allowlist.clone();
        let dashboard = tab.and_then(|t| canvas.tab(t)).and_then(|t| match &t.content {
            TabContent::Dashboard(d) => Some(d),
            TabContent::Artifact(_) | TabContent::App(_) => None,
        });
        let server = dashboard.and_then(|d| lock(&self.servers).get(&d.dashboard_id).cloned());
        self.audit(
            host,
            &DashboardEvent {
                action: "allow",
                server: server.as_deref(),
                dashboard_id: dashboard.map(|d| d.dashboard_id.as_str()),
                url: dashboard.map(|d| d.url.as_str()),
                token: dashboard.and_then(|d| d.token.as_deref()),
                origin: Some(&edit.origin),
                outcome: "ok",
                detail: (!edit.changed).then(|| "already allowed".to_owned()),
                ..Default::default()
            },
        );
        Ok(edit.allowlist.view(&path))
    }

    /// Stops allowing `origin`.
    pub fn disallow(&self, host: &Host, origin: &str) -> Result<AllowlistView, CommandError> {
        let path = self.settings_path()?.to_owned();
        let edit = allowlist::remove_origin(&path, origin).map_err(allowlist_error)?;
        *self.allowlist.write().unwrap_or_else(|p| p.into_inner()) = edit.allowlist.clone();
        self.audit(host, &DashboardEvent { action: "disallow", origin: Some(&edit.origin), outcome: "ok", ..Default::default() });
        Ok(edit.allowlist.view(&path))
    }

    /// Runs `change` on the canvas; then audits the dashboards it closed (`cause` says how) and
    /// saves the pinned ones when they changed.
    pub fn change<T>(&self, host: Option<&Host>, canvas: &mut Canvas, cause: &str, change: impl FnOnce(&mut Canvas) -> T) -> T {
        let before = open_dashboards(canvas);
        let result = change(canvas);
        let after = open_dashboards(canvas);
        if let Some(host) = host {
            for (id, gone) in before.iter().filter(|(id, _)| !after.contains_key(*id)) {
                self.audit_close(host, id, gone, cause, false);
            }
        }
        self.save_pinned(canvas);
        result
    }

    /// The app is exiting: session and ephemeral dashboards end here (pinned ones are restored
    /// at the next start, so they are not closed).
    pub fn session_ended(&self, host: &Host, canvas: &Canvas) {
        for (id, open) in open_dashboards(canvas).iter().filter(|(_, d)| d.persistence != DashboardPersistence::Pinned) {
            // Written before returning: the process ends next.
            self.audit_close(host, id, open, "the session ended", true);
        }
    }

    fn audit_close(&self, host: &Host, id: &str, gone: &OpenDashboard, cause: &str, wait: bool) {
        let server = lock(&self.servers).remove(id);
        let origin = allowlist::origin_of(&gone.url).ok();
        let event = DashboardEvent {
            action: "close",
            server: server.as_deref(),
            dashboard_id: Some(id),
            url: Some(&gone.url),
            token: gone.token.as_deref(),
            origin: origin.as_deref(),
            outcome: "ok",
            detail: Some(format!("{cause} (tab {})", gone.tab.0)),
            ..Default::default()
        };
        if !wait {
            return self.audit(host, &event);
        }
        if let Err(e) = audit_dashboard(host, &event) {
            eprintln!("mcp-canvas: could not record dashboard:close in the audit log: {e}");
        }
    }

    /// Audits the dashboards a call opened or updated, with whether their origin is allowed.
    pub fn opened_by_call(&self, host: &Host, canvas: &Canvas, server: &str, call_id: &str, applied: &AppliedOutcome) {
        let list = self.current();
        for (tab, action) in applied.opened.iter().map(|t| (t, "open")).chain(applied.updated.iter().map(|t| (t, "update"))) {
            let Some(TabContent::Dashboard(d)) = canvas.tab(*tab).map(|t| &t.content) else { continue };
            lock(&self.servers).insert(d.dashboard_id.clone(), server.to_owned());
            let (origin, outcome, detail) = match list.check(&d.url) {
                Ok(origin) => (Some(origin), "ok", None),
                Err(allowlist::Refusal::NotAllowed(origin)) => {
                    (Some(origin.clone()), "refused", Some(allowlist::Refusal::NotAllowed(origin).to_string()))
                }
                Err(refusal) => (None, "refused", Some(refusal.to_string())),
            };
            self.audit(
                host,
                &DashboardEvent {
                    action,
                    server: Some(server),
                    call_id: Some(call_id),
                    dashboard_id: Some(&d.dashboard_id),
                    url: Some(&d.url),
                    token: d.token.as_deref(),
                    origin: origin.as_deref(),
                    outcome,
                    detail,
                },
            );
        }
    }

    /// Reopens the dashboards pinned in an earlier run (their tokens were never saved: the tool
    /// sends a fresh one when called again).
    pub fn restore(&self, host: Option<&Host>, canvas: &mut Canvas) {
        let Some(path) = &self.pinned_path else { return };
        let saved = match read_pinned(path) {
            Ok(saved) => saved,
            Err(reason) => {
                eprintln!("mcp-canvas: {reason}; no pinned dashboards restored");
                return;
            }
        };
        let tabs = canvas.restore_pinned(&saved);
        *lock(&self.saved) = canvas.pinned_dashboards().into_iter().map(strip_secrets).collect();
        if let Some(host) = host {
            for tab in tabs {
                let Some(TabContent::Dashboard(d)) = canvas.tab(tab).map(|t| &t.content) else { continue };
                let origin = allowlist::origin_of(&d.url).ok();
                self.audit(
                    host,
                    &DashboardEvent {
                        action: "restore",
                        dashboard_id: Some(&d.dashboard_id),
                        url: Some(&d.url),
                        origin: origin.as_deref(),
                        outcome: "ok",
                        detail: Some("pinned in an earlier run".into()),
                        ..Default::default()
                    },
                );
            }
        }
    }

    /// Saves the pinned dashboards when they changed: written and synced on another thread (the
    /// blocking pool, or a thread of its own on the window's thread), never the caller's.
    fn save_pinned(&self, canvas: &Canvas) {
        let Some(path) = &self.pinned_path else { return };
        let pinned: Vec<PinnedDashboard> = canvas.pinned_dashboards().into_iter().map(strip_secrets).collect();
        {
            let mut saved = lock(&self.saved);
            // Unchanged, and written (a list whose write failed is still unwritten: tried again).
            if *saved == pinned && lock(&self.unwritten).is_none() {
                return;
            }
            *saved = pinned.clone();
        }
        *lock(&self.unwritten) = Some(pinned);
        let (path, writing, unwritten) = (path.clone(), self.writing.clone(), self.unwritten.clone());
        let write = move || {
            if let Err(e) = write_unwritten(&path, &writing, &unwritten) {
                eprintln!("mcp-canvas: {e} (tried again at the next change or at exit)");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(write)),
            Err(_) => drop(std::thread::spawn(write)),
        }
    }

    /// Writes what is not written yet now, on this thread (the app is exiting). A list whose write
    /// failed is kept as unwritten, so a later flush tries it again.
    pub fn flush_pinned(&self) -> Result<(), String> {
        match &self.pinned_path {
            Some(path) => write_unwritten(path, &self.writing, &self.unwritten),
            None => Ok(()),
        }
    }

    /// Audits `event` without waiting for SQLite: this runs on the window's thread (canvas
    /// intents, allowlist edits) and on async workers (a call's outcome shown).
    fn audit(&self, host: &Host, event: &DashboardEvent<'_>) {
        audit_dashboard_in_background(host, event);
    }
}

/// Decides the navigations of the window and its frames (the shell calls it from Tauri's
/// `on_navigation` hook, which WebKitGTK runs for subframes too).
#[derive(Clone)]
pub struct NavigationGuard(Arc<RwLock<Allowlist>>);

impl NavigationGuard {
    /// Whether the window (or a frame in it) may navigate to `url`; a refusal is printed.
    pub fn allows(&self, url: &Url) -> bool {
        let allowed = navigation_allowed(&self.0.read().unwrap_or_else(|p| p.into_inner()), url);
        if !allowed {
            eprintln!("mcp-canvas: navigation to {} refused (not an allowlisted dashboard origin)", allowlist::redact_url(url.as_str(), None));
        }
        allowed
    }
}

/// Whether the window (or a frame in it) may navigate to `url`.
pub fn navigation_allowed(allowlist: &Allowlist, url: &Url) -> bool {
    match url.scheme() {
        "http" | "https" => url.host_str().is_some_and(|h| APP_HOSTS.contains(&h)) || allowlist.check(url.as_str()).is_ok(),
        scheme => APP_SCHEMES.contains(&scheme),
    }
}

fn open_dashboards(canvas: &Canvas) -> HashMap<String, OpenDashboard> {
    canvas
        .panes()
        .iter()
        .flat_map(|p| &p.tabs)
        .filter_map(|t| match &t.content {
            TabContent::Dashboard(d) => Some((
                d.dashboard_id.clone(),
                OpenDashboard { tab: t.id, url: d.url.clone(), token: d.token.clone(), persistence: d.persistence },
            )),
            TabContent::Artifact(_) | TabContent::App(_) => None,
        })
        .collect()
}

/// A pinned dashboard as it may be written to disk: no token-like query parameters.
fn strip_secrets(mut pinned: PinnedDashboard) -> PinnedDashboard {
    pinned.url = allowlist::url_without_secrets(&pinned.url);
    pinned
}

fn read_pinned(path: &Path) -> Result<Vec<PinnedDashboard>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let file: PinnedFile = serde_json::from_str(&text).map_err(|e| format!("{} is not valid: {e}", path.display()))?;
    // Whatever the file says, only http(s) URLs come back, stripped again; the allowlist still
    // decides whether they load.
    let http = |url: &str| Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
    Ok(file.pinned.into_iter().filter(|p| http(&p.url)).map(strip_secrets).collect())
}

/// Writes the latest unwritten list, if any is left: one writer at a time, each taking the
/// latest, so the file ends with the last list whatever order the writers run in. A list that
/// could not be written is put back as unwritten (unless a newer one is waiting), so the next
/// writer tries it again.
fn write_unwritten(path: &Path, writing: &Mutex<()>, unwritten: &Mutex<Option<Vec<PinnedDashboard>>>) -> Result<(), String> {
    let _one = lock(writing);
    let Some(pinned) = lock(unwritten).take() else { return Ok(()) };
    write_pinned(path, &pinned).map_err(|e| {
        lock(unwritten).get_or_insert(pinned);
        format!("cannot save pinned dashboards to {}: {e}", path.display())
    })
}

fn write_pinned(path: &Path, pinned: &[PinnedDashboard]) -> std::io::Result<()> {
    use std::io::Write as _;
    let text = serde_json::to_string_pretty(&PinnedFile { pinned: pinned.to_vec() }).expect("pinned dashboards serialize");
    let tmp = path.with_file_name(format!(".{PINNED_FILE}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_lets_only_the_app_and_allowed_origins_load() {
        let list = Allowlist::new(["http://127.0.0.1:8765"]);
        let ok = |u: &str| navigation_allowed(&list, &Url::parse(u).unwrap());
        for allowed in ["tauri://localhost/", "artifact://localhost/demo_1/sanitized", "about:blank", "about:srcdoc", "http://tauri.localhost/", "http://127.0.0.1:8765/dashboard?token=x"] {
            assert!(ok(allowed), "{allowed}");
        }
        for refused in ["http://127.0.0.1:8766/", "https://evil.com/", "http://localhost:8765/", "file:///etc/passwd", "data:text/html,x", "blob:tauri://localhost/x", "http://user@127.0.0.1:8765/"] {
            assert!(!ok(refused), "{refused}");
        }
    }

    #[test]
    fn pinned_dashboards_are_saved_without_tokens() {
        let dir = tempfile_dir();
        let path = dir.join(PINNED_FILE);
        let pinned = vec![strip_secrets(PinnedDashboard {
            dashboard_id: "d".into(),
            url: "http://127.0.0.1:8765/dashboard?token=s3cret&view=cpu".into(),
            title: Some("T".into()),
        })];
        write_pinned(&path, &pinned).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("s3cret") && text.contains("view=cpu"), "{text}");
        assert_eq!(read_pinned(&path).unwrap(), pinned);
        std::fs::write(&path, r#"{"pinned": [{"dashboard_id": "x", "url": "javascript:alert(1)", "title": null}]}"#).unwrap();
        assert!(read_pinned(&path).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn pinned_dashboards_survive_a_restart_without_their_tokens() {
        let dir = tempfile_dir();
        let at = |dir: &Path| Dashboards {
            allowlist: Arc::new(RwLock::new(Allowlist::default())),
            settings_path: Some(dir.join("settings.toml")),
            pinned_path: Some(dir.join(PINNED_FILE)),
            saved: Mutex::new(Vec::new()),
            unwritten: Arc::default(),
            writing: Arc::default(),
            servers: Mutex::new(HashMap::new()),
        };
        let first_run = at(&dir);
        let mut canvas = Canvas::new();
        let pinned = PinnedDashboard { dashboard_id: "p".into(), url: "http://127.0.0.1:8765/dashboard?token=s3cret".into(), title: Some("P".into()) };
        first_run.change(None, &mut canvas, "test", |c| c.restore_pinned(&[pinned]));
        first_run.flush_pinned().unwrap();
        let text = std::fs::read_to_string(dir.join(PINNED_FILE)).unwrap();
        assert!(text.contains("\"dashboard_id\": \"p\"") && !text.contains("s3cret"), "{text}");

        let second_run = at(&dir);
        let mut canvas = Canvas::new();
        second_run.restore(None, &mut canvas);
        let restored = canvas.pinned_dashboards();
        assert_eq!(restored.len(), 1);
        assert_eq!(restored[0].url, "http://127.0.0.1:8765/dashboard");
        // Closed by the user: gone from the file, not restored again.
        let tab = canvas.panes()[0].tabs[0].id;
        second_run.change(None, &mut canvas, "test", |c| c.close_tab(tab)).unwrap();
        second_run.flush_pinned().unwrap();
        let mut canvas = Canvas::new();
        at(&dir).restore(None, &mut canvas);
        assert_eq!(canvas.tab_count(), 0);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_list_that_could_not_be_written_is_written_by_the_next_flush() {
        let dir = tempfile_dir().join("unwritable");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(PINNED_FILE);
        // The file's path is a directory: the write (a rename onto it) fails.
        std::fs::create_dir_all(path.join("in-the-way")).unwrap();
        let dashboards = Dashboards {
            allowlist: Arc::new(RwLock::new(Allowlist::default())),
            settings_path: Some(dir.join("settings.toml")),
            pinned_path: Some(path.clone()),
            saved: Mutex::new(Vec::new()),
            unwritten: Arc::default(),
            writing: Arc::default(),
            servers: Mutex::new(HashMap::new()),
        };
        let mut canvas = Canvas::new();
        let pinned = PinnedDashboard { dashboard_id: "p".into(), url: "http://127.0.0.1:8765/dashboard".into(), title: Some("P".into()) };
        dashboards.change(None, &mut canvas, "test", |c| c.restore_pinned(&[pinned]));
        // Whether the background write ran first or not, the list is still unwritten.
        let error = dashboards.flush_pinned().unwrap_err();
        assert!(error.contains(PINNED_FILE), "{error}");
        {
            // No writer is between taking the list and putting it back meanwhile.
            let _one = lock(&dashboards.writing);
            assert!(lock(&dashboards.unwritten).is_some(), "the failed list is kept for the next try");
        }
        std::fs::remove_dir_all(&path).unwrap();
        dashboards.flush_pinned().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"dashboard_id\": \"p\""), "{text}");
        let _ = std::fs::remove_dir_all(dir);
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mcp-canvas-dashboards-{}-{:?}", std::process::id(), std::thread::current().id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

/// An allowlist edit that failed: a refused origin is the user's to fix, anything else the file's.
fn allowlist_error(e: allowlist::AllowlistError) -> CommandError {
    let kind = if matches!(e, allowlist::AllowlistError::Refused { .. }) { ErrorKind::Refused } else { ErrorKind::Config };
    CommandError::new(kind, e.to_string())
}
