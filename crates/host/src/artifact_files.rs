//! Stored artifacts leaving the store as files for the desktop app: a file name that is safe to
//! create, and the verified copy that "Open with the system application" hands to the platform's
//! opener. Types that would run or render active content there are refused: the user can still
//! "Save as…" them and decide.

use std::{
    path::{Path, PathBuf},
    time::{Duration, SystemTime},
};

use mcp_canvas_store::{ArtifactRecord, ArtifactStore};

/// Where the copies for the system application go, inside the data dir (never a shared temp dir,
/// where another user could plant a link in the way).
pub const OPENED_DIR: &str = "opened";

/// Copies older than this are removed when the next one is made.
const KEEP_COPIES: Duration = Duration::from_secs(24 * 60 * 60);

/// File extensions the platform opener would run (or hand to an interpreter) instead of showing.
const LAUNCHER_EXTENSIONS: &[&str] = &[
    "app", "appimage", "apk", "application", "bash", "bat", "bin", "cmd", "com", "command", "cpl", "csh", "deb", "desktop", "dmg", "exe", "fish",
    "gadget", "hta", "htm", "html", "inf", "ins", "jar", "js", "jse", "ksh", "lnk", "mht", "mhtml", "msc", "msi", "msp", "pif", "pkg", "pl", "ps1",
    "psm1", "py", "pyw", "rb", "reg", "rpm", "run", "scf", "scpt", "scr", "sct", "sh", "shtml", "svg", "svgz", "url", "vb", "vbe", "vbs", "workflow",
    "ws", "wsc", "wsf", "wsh", "xht", "xhtml", "zsh",
];

/// MIME types the platform opener would run, or open in a browser where their scripts run.
const LAUNCHER_MIMES: &[&str] = &[
    "application/x-executable",
    "application/x-sharedlib",
    "application/x-elf",
    "application/x-mach-binary",
    "application/x-msdownload",
    "application/x-msdos-program",
    "application/vnd.microsoft.portable-executable",
    "application/x-ms-shortcut",
    "application/x-desktop",
    "application/x-sh",
    "application/x-shellscript",
    "application/x-bat",
    "application/x-msi",
    "application/java-archive",
    "application/javascript",
    "text/javascript",
    "application/x-python-code",
    "text/x-python",
    "text/x-shellscript",
    "text/html",
    "application/xhtml+xml",
    "image/svg+xml",
    "application/hta",
];

/// `name` reduced to something safe to create in a directory we own: no path separators, no
/// control characters, no leading dots, at most 120 bytes (the extension kept); `fallback` when
/// nothing is left.
pub fn safe_file_name(name: &str, fallback: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') { '_' } else { c })
        .collect();
    let cleaned = cleaned.trim().trim_start_matches('.').trim_end_matches(['.', ' ']).to_owned();
    let cleaned = if cleaned.is_empty() { fallback.to_owned() } else { cleaned };
    if cleaned.len() <= 120 {
        return cleaned;
    }
    let (stem, extension) = match cleaned.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.len() <= 16 => (stem, Some(ext)),
        _ => (cleaned.as_str(), None),
    };
    let budget = 120 - extension.map_or(0, |e| e.len() + 1);
    let mut cut = budget.min(stem.len());
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    match extension {
        Some(ext) => format!("{}.{ext}", &stem[..cut]),
        None => stem[..cut].to_owned(),
    }
}

/// Why the system application may not open this artifact (it would run a program or active
/// content), or `None` when it may.
pub fn refuse_opening(record: &ArtifactRecord) -> Option<String> {
    let mime = record.mime.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let extension = Path::new(&record.name).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let by_extension = extension.as_deref().filter(|e| LAUNCHER_EXTENSIONS.contains(e));
    if LAUNCHER_MIMES.contains(&mime.as_str()) || by_extension.is_some() {
        let what = by_extension.map_or_else(|| mime.clone(), |e| format!(".{e}"));
        return Some(format!(
            "'{}' ({what}) is not opened with the system application: it could run a program or scripts there. Save it with \"Save as…\" and open it yourself if you trust it.",
            record.name
        ));
    }
    None
}

/// Why an artifact is not handed to the system's opener.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Its type may run code (a program, a script, active content).
    #[error("{0}")]
    Refused(String),
    /// The store could not give a verified copy.
    #[error(transparent)]
    Store(#[from] mcp_canvas_store::StoreError),
    /// The copy could not be made.
    #[error("{0}")]
    Copy(String),
}

/// A verified copy of artifact `id` at `<data_dir>/opened/<id>/<safe name>`, for the platform's
/// opener. Refused for types [`refuse_opening`] names. Copies older than a day are removed first.
pub fn copy_for_opening(store: &ArtifactStore, data_dir: &Path, id: &str) -> Result<PathBuf, OpenError> {
    let record = store.get(id)?;
    if let Some(reason) = refuse_opening(&record) {
        return Err(OpenError::Refused(reason));
    }
    let root = data_dir.join(OPENED_DIR);
    remove_old_copies(&root, KEEP_COPIES);
    // The id is `[A-Za-z0-9_-]` by construction; checked anyway since it names a directory.
    if record.id.is_empty() || !record.id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(OpenError::Refused(format!("`{}` is not an artifact id", record.id)));
    }
    let dir = root.join(&record.id);
    std::fs::create_dir_all(&dir).map_err(|e| OpenError::Copy(format!("could not create {}: {e}", dir.display())))?;
    let path = dir.join(safe_file_name(&record.name, &record.id));
    store.export(&record.id, &path)?;
    #[cfg(unix)]
    {
        // Readable by the user only, and never executable.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(|e| OpenError::Copy(format!("could not set the permissions of {}: {e}", path.display())))?;
    }
    Ok(path)
}

fn remove_old_copies(root: &Path, keep: Duration) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let old = entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| now.duration_since(t).unwrap_or_default() > keep);
        if old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_canvas_store::{NewArtifact, Persistence};

    use super::*;

    fn put(store: &ArtifactStore, name: &str, mime: &str, bytes: &[u8]) -> ArtifactRecord {
        let new = NewArtifact { name, mime, server: "demo", tool: "t", call_id: "c", session_id: "s", description: None, persistence: Persistence::Session, now_ms: 1 };
        store.put(new, bytes).unwrap()
    }

    #[test]
    fn file_names_are_safe_to_create() {
        assert_eq!(safe_file_name("report.pdf", "x"), "report.pdf");
        assert_eq!(safe_file_name("../../etc/passwd", "x"), "_.._etc_passwd");
        assert_eq!(safe_file_name("a\\b:c*?.txt", "x"), "a_b_c__.txt");
        assert_eq!(safe_file_name(".hidden", "x"), "hidden");
        assert_eq!(safe_file_name("..", "demo_1"), "demo_1");
        assert_eq!(safe_file_name("  ", "demo_1"), "demo_1");
        assert_eq!(safe_file_name("line\nbreak.csv", "x"), "line_break.csv");
        let long = format!("{}.xlsx", "é".repeat(100));
        let safe = safe_file_name(&long, "x");
        assert!(safe.len() <= 120 && safe.ends_with(".xlsx"), "{safe}");
    }

    #[test]
    fn programs_and_active_content_are_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        for (name, mime) in [
            ("setup.exe", "application/octet-stream"),
            ("run.sh", "text/plain"),
            ("launcher.desktop", "application/octet-stream"),
            ("page.html", "text/html"),
            ("drawing", "image/svg+xml"),
            ("a.out", "application/x-executable"),
            ("Tool.JAR", "application/zip"),
        ] {
            let record = put(&store, name, mime, name.as_bytes());
            let reason = refuse_opening(&record).unwrap_or_else(|| panic!("{name} would be opened"));
            assert!(reason.contains("Save as"), "{reason}");
            assert!(copy_for_opening(&store, dir.path(), &record.id).is_err());
        }
        for (name, mime) in [("data.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), ("clip.mp4", "video/mp4"), ("a.zip", "application/zip")] {
            assert_eq!(refuse_opening(&put(&store, name, mime, name.as_bytes())), None, "{name}");
        }
    }

    #[test]
    fn the_copy_is_verified_private_and_named_after_the_artifact() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let record = put(&store, "../Q3 numbers.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", b"PK fake workbook");
        let path = copy_for_opening(&store, dir.path(), &record.id).unwrap();
        assert_eq!(path, dir.path().join(OPENED_DIR).join(&record.id).join("_Q3 numbers.xlsx"));
        assert_eq!(std::fs::read(&path).unwrap(), b"PK fake workbook");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        // Again: the same place, still right.
        assert_eq!(copy_for_opening(&store, dir.path(), &record.id).unwrap(), path);
        assert!(copy_for_opening(&store, dir.path(), "demo_nothere").unwrap_err().to_string().contains("demo_nothere"));
        // Old copies go.
        remove_old_copies(&dir.path().join(OPENED_DIR), Duration::ZERO);
        assert!(!path.exists());
    }
}
