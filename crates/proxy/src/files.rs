//! A model's files by path: `proxy.toml`'s `file_folders` lists the folders whose files a model
//! may send to a tool's file arguments. A path inside one of them (after resolving `..` and
//! symlinks) is stored as an artifact and given to the model, then sent by reference like any
//! other; any other path is refused by name before anything is read.

use std::path::{Path, PathBuf};

use mcp_canvas_host::{files_in, Host};
use serde_json::{Map, Value};

/// `arguments` with each file argument's path (inside `folders`) replaced by the reference of
/// the stored file; references and `data:` URIs are left as they are.
pub fn paths_to_references(host: &Host, params: &[files_in::FileParam], folders: &[PathBuf], mut arguments: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let roots: Vec<PathBuf> = folders.iter().filter_map(|f| f.canonicalize().ok()).collect();
    for param in params {
        let Some(value) = arguments.get_mut(&param.name) else { continue };
        let items: Vec<&mut Value> = match value {
            Value::Array(items) if param.multiple => items.iter_mut().collect(),
            other => vec![other],
        };
        for item in items {
            let Value::String(text) = item else { continue };
            if text.starts_with("data:") || files_in::reference_id(text).is_some() {
                continue;
            }
            let path = inside(Path::new(text.as_str()), &roots).ok_or_else(|| {
                format!(
                    "`{}`: {text} is not a file reference and not a file in the folders proxy.toml's file_folders lists ({})",
                    param.name,
                    if folders.is_empty() { "none".to_owned() } else { folders.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ") }
                )
            })?;
            let record = files_in::store_local_file(host.store(), &path, host.session_id(), Host::now_ms())?;
            host.store().share_with_model(std::slice::from_ref(&record.id), Host::now_ms()).map_err(|e| e.to_string())?;
            *text = record.id;
        }
    }
    Ok(arguments)
}

/// `path` resolved (`..`, symlinks), if it is a file inside one of `roots` (resolved too).
fn inside(path: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let resolved = path.canonicalize().ok()?;
    (resolved.is_file() && roots.iter().any(|root| resolved.starts_with(root))).then_some(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_the_folders_after_resolving() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("reports");
        std::fs::create_dir(&allowed).unwrap();
        std::fs::write(allowed.join("q3.csv"), "a,b\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), allowed.join("link.txt")).unwrap();
        let roots = vec![allowed.canonicalize().unwrap()];
        assert!(inside(&allowed.join("q3.csv"), &roots).is_some());
        assert!(inside(&allowed.join("../secret.txt"), &roots).is_none(), "`..` out of the folder");
        assert!(inside(&allowed.join("link.txt"), &roots).is_none(), "a symlink out of the folder");
        assert!(inside(&allowed, &roots).is_none(), "a folder is not a file");
        assert!(inside(&allowed.join("missing.csv"), &roots).is_none());
    }
}
