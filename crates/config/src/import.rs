//! Importing server definitions from other MCP hosts' config files into `servers.json`, and
//! exporting ours as an `mcp.json` that Claude Desktop and Cursor read.
//!
//! Formats are told apart by content, not by file name:
//! - `{"mcpServers": {...}}`: Claude Desktop, Cursor, our own `servers.json` and our export.
//! - `{"servers": {...}, "inputs": [...]}`: VS Code's `mcp.json` (also the `"mcp"` section of a
//!   VS Code `settings.json`).
//!
//! Every file is read as JSONC (comments and trailing commas allowed, see [`strip_jsonc`]);
//! strict JSON passes through unchanged.
//!
//! Decisions:
//! - Variables (`${env:NAME}`, `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`,
//!   `${pathSeparator}`, `${/}`, `${input:ID}`) are substituted in every string of a server
//!   entry, whatever the format. A variable without a value (unset environment variable, input
//!   with no `--input` value that is a password or has no default) fails the whole import, with
//!   one message listing every missing value and the servers using it, before anything is
//!   written: a half-substituted entry would only fail later, at spawn time, with a worse
//!   message. A `${...}` we do not know (e.g. `${command:...}`) is kept literally and noted.
//! - Values substituted from inputs and the environment are written into `servers.json` (that is
//!   the point of importing) but never appear in reports, notes or errors: those name servers,
//!   keys and variables only.
//! - Types are normalized: stdio entries have no `type` (the Claude Desktop form), Streamable
//!   HTTP entries (`http`, `streamable-http`, `streamableHttp`, or a `url` with no `type`) get
//!   `type: "http"`. `sse` and unknown types are imported as they are, so nothing is lost, with a
//!   note saying why the entry cannot be used (the same reason `servers list` shows).
//! - A server entry that is not an object, or whose known keys have the wrong JSON type, is
//!   skipped with the reason. Unknown keys are kept in [`ServerEntry::other`] and listed.
//! - Merging never overwrites a different existing definition unless asked (`replace`).
//!   Definitions are compared after normalizing `type`, so `"type": "stdio"` equals no type.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::servers::{Endpoint, ServerEntry, ServersConfig};

/// Which kind of file a config came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceFormat {
    /// `{"mcpServers": {...}}`: Claude Desktop, Cursor, MCP Canvas.
    McpServers,
    /// `{"servers": {...}, "inputs": [...]}`: VS Code.
    VsCode,
}

impl SourceFormat {
    /// How the format is named to people.
    pub fn label(self) -> &'static str {
        match self {
            Self::McpServers => "mcpServers: Claude Desktop / Cursor",
            Self::VsCode => "VS Code",
        }
    }
}

/// A VS Code `inputs` entry: a value VS Code would prompt for.
#[derive(Debug, Clone, PartialEq)]
struct InputDecl {
    kind: String,
    password: bool,
    default: Option<String>,
    options: Vec<String>,
}

/// A parsed config file, before variables are substituted.
#[derive(Debug, Clone)]
pub struct Source {
    /// What kind of file it is.
    pub format: SourceFormat,
    servers: Map<String, Value>,
    inputs: BTreeMap<String, InputDecl>,
    /// Things in the file that are not imported (top-level keys, bad `inputs` entries).
    pub warnings: Vec<String>,
}

impl Source {
    /// Server names in the file, sorted.
    pub fn server_names(&self) -> Vec<&str> {
        self.servers.keys().map(String::as_str).collect()
    }
}

/// What variables expand to. Deliberately not `Debug`: it holds secrets.
pub struct Variables {
    /// `${workspaceFolder}`.
    pub workspace_folder: PathBuf,
    /// `${userHome}`; `None` when there is no home directory.
    pub user_home: Option<PathBuf>,
    /// `${env:NAME}`.
    pub env: BTreeMap<String, String>,
    /// `${input:ID}` values given by the user (`--input ID=VALUE`).
    pub inputs: BTreeMap<String, String>,
}

impl Variables {
    /// Variables from this process: its environment and the user's home directory.
    pub fn from_process(workspace_folder: PathBuf, inputs: BTreeMap<String, String>) -> Self {
        let env = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect();
        Self { workspace_folder, user_home: dirs::home_dir(), env, inputs }
    }
}

/// One server from the file after substitution: its entry, or why it was skipped.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The name it is defined under.
    pub name: String,
    /// The entry, or why it cannot be imported.
    pub entry: Result<ServerEntry, String>,
    /// Keys we do not use (kept in [`ServerEntry::other`]).
    pub unknown_keys: Vec<String>,
    /// Things worth knowing: defaults used, unknown variables kept, why the entry is unusable.
    pub notes: Vec<String>,
}

/// What happened to one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ImportStatus {
    /// New name, entry added.
    Added,
    /// The same definition already exists.
    Unchanged,
    /// A different definition exists under the name and was kept.
    Conflict,
    /// A different definition existed and was overwritten (`replace`).
    Replaced,
    /// Not imported; see the reason.
    Skipped,
}

impl ImportStatus {
    /// The lowercase word used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Unchanged => "unchanged",
            Self::Conflict => "conflict",
            Self::Replaced => "replaced",
            Self::Skipped => "skipped",
        }
    }
}

/// The report line for one server. Holds no substituted values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerReport {
    /// Server name.
    pub name: String,
    /// What happened.
    pub status: ImportStatus,
    /// `stdio`, `http`, or `invalid` for an entry kept but unusable; absent when skipped.
    pub transport: Option<String>,
    /// Why it was skipped, or how it conflicts.
    pub reason: Option<String>,
    /// Keys we do not use, preserved in the entry.
    pub unknown_keys: Vec<String>,
    /// Other things worth knowing.
    pub notes: Vec<String>,
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    /// The file imported.
    pub source: String,
    /// Its format.
    pub format: SourceFormat,
    /// The `servers.json` merged into.
    pub config: String,
    /// Whether `servers.json` was written (false when nothing changed or on a dry run).
    pub written: bool,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// One line per server in the file.
    pub servers: Vec<ServerReport>,
    /// File-level notes: keys not imported, unused `--input` values.
    pub warnings: Vec<String>,
}

impl ImportReport {
    /// How many servers ended with `status`.
    pub fn count(&self, status: ImportStatus) -> usize {
        self.servers.iter().filter(|s| s.status == status).count()
    }
}

/// Blanks out `//` and `/* */` comments and trailing commas outside strings, so `serde_json`
/// reads JSONC (VS Code's format). Written by hand rather than pulling in a JSONC crate: it is a
/// four-state scan (code, string, line comment, block comment), and blanking with spaces instead
/// of deleting keeps every byte offset, so parse errors still point at the right line and
/// column of the user's file. Strict JSON comes back unchanged. A leading BOM is dropped.
pub fn strip_jsonc(text: &str) -> Result<String, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, i: usize| {
        if !matches!(out[i], b'\n' | b'\r') {
            out[i] = b' ';
        }
    };
    let mut pending_comma: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                pending_comma = None;
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    blank(&mut out, i);
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let line = text[..i].matches('\n').count() + 1;
                let Some(len) = text[i + 2..].find("*/") else {
                    return Err(format!("a /* comment opened on line {line} is never closed").into());
                };
                for j in i..i + 2 + len + 2 {
                    blank(&mut out, j);
                }
                i += 2 + len + 2;
            }
            b',' => {
                pending_comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(comma) = pending_comma.take() {
                    out[comma] = b' ';
                }
                i += 1;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                pending_comma = None;
                i += 1;
            }
        }
    }
    // Only whole comments (every byte of any multi-byte character) and ASCII commas were blanked.
    Ok(String::from_utf8(out).expect("blanking whole comments keeps UTF-8 valid"))
}


/// Why a config file could not be imported: one line, saying what is wrong and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ImportError(pub String);

impl From<String> for ImportError {
    fn from(reason: String) -> Self {
        Self(reason)
    }
}

impl From<&str> for ImportError {
    fn from(reason: &str) -> Self {
        Self(reason.to_owned())
    }
}

/// Parses a config file's text (JSON or JSONC) and tells its format from the content.
/// Errors are one line, without the file name.
pub fn parse_source(text: &str) -> Result<Source, ImportError> {
    if text.trim().is_empty() {
        return Err("the file is empty".into());
    }
    let stripped = strip_jsonc(text)?;
    let value: Value = serde_json::from_str(&stripped).map_err(|e| format!("not valid JSON ({e})"))?;
    let Value::Object(mut top) = value else {
        return Err(format!("expected a JSON object at the top level, found {}", mcp_canvas_contract::json_type_name(&value)).into());
    };
    let mut warnings = Vec::new();
    // A VS Code settings.json keeps the same thing under "mcp".
    let unwrapped = !top.contains_key("mcpServers") && !top.contains_key("servers");
    if let Some(Value::Object(mcp)) = top.get("mcp").filter(|m| unwrapped && m.get("servers").is_some()) {
        let mcp = mcp.clone();
        let others = top.len() - 1;
        if others > 0 {
            warnings.push(format!("{others} other top-level key(s) of what looks like a VS Code settings.json were not imported"));
        }
        top = mcp;
    }
    let (format, servers) = match (top.remove("mcpServers"), top.remove("servers")) {
        (Some(_), Some(_)) => {
            return Err("has both `mcpServers` (Claude Desktop, Cursor) and `servers` (VS Code); cannot tell which to import".into());
        }
        (Some(Value::Object(servers)), None) => (SourceFormat::McpServers, servers),
        (None, Some(Value::Object(servers))) => (SourceFormat::VsCode, servers),
        (Some(other), None) => return Err(format!("`mcpServers` must be an object of servers by name, found {}", mcp_canvas_contract::json_type_name(&other)).into()),
        (None, Some(other)) => return Err(format!("`servers` must be an object of servers by name, found {}", mcp_canvas_contract::json_type_name(&other)).into()),
        (None, None) => {
            return Err("no `mcpServers` (Claude Desktop, Cursor) or `servers` (VS Code) object; is this an MCP config file?".into());
        }
    };
    let inputs = match top.remove("inputs") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Array(items)) => parse_inputs(items, &mut warnings),
        Some(other) => return Err(format!("`inputs` must be an array, found {}", mcp_canvas_contract::json_type_name(&other)).into()),
    };
    for key in top.keys() {
        warnings.push(format!("top-level key `{key}` is not a server definition; not imported"));
    }
    Ok(Source { format, servers, inputs, warnings })
}

fn parse_inputs(items: Vec<Value>, warnings: &mut Vec<String>) -> BTreeMap<String, InputDecl> {
    let mut inputs = BTreeMap::new();
    for (index, item) in items.into_iter().enumerate() {
        let Value::Object(item) = item else {
            warnings.push(format!("inputs[{index}] is not an object; ignored"));
            continue;
        };
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            warnings.push(format!("inputs[{index}] has no `id`; ignored"));
            continue;
        };
        let options = item
            .get("options")
            .and_then(Value::as_array)
            .map(|options| {
                options
                    .iter()
                    .filter_map(|o| o.as_str().or_else(|| o.get("value").and_then(Value::as_str)))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let decl = InputDecl {
            kind: item.get("type").and_then(Value::as_str).unwrap_or("promptString").to_owned(),
            password: item.get("password").and_then(Value::as_bool).unwrap_or(false),
            default: item.get("default").and_then(Value::as_str).map(str::to_owned),
            options,
        };
        inputs.insert(id.to_owned(), decl);
    }
    inputs
}

/// A variable without a value, and the servers using it.
struct Missing {
    variable: String,
    fix: String,
    servers: Vec<String>,
}

/// Substitutes variables in one server's strings, collecting what is missing.
struct Substituter<'a> {
    vars: &'a Variables,
    decls: &'a BTreeMap<String, InputDecl>,
    server: &'a str,
    missing: &'a mut Vec<Missing>,
    used_inputs: &'a mut BTreeSet<String>,
    notes: Vec<String>,
}

impl Substituter<'_> {
    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Records that `variable` (e.g. `${input:key} (a password input)`) has no value, and how to
    /// give it one.
    fn missing(&mut self, variable: String, fix: String) {
        let server = self.server.to_owned();
        match self.missing.iter_mut().find(|m| m.variable == variable) {
            Some(m) if !m.servers.contains(&server) => m.servers.push(server),
            Some(_) => {}
            None => self.missing.push(Missing { variable, fix, servers: vec![server] }),
        }
    }

    fn value(&mut self, value: &mut Value) {
        match value {
            Value::String(s) if s.contains("${") => *s = self.string(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }

    fn string(&mut self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return out;
            };
            match self.lookup(&after[..end]) {
                Some(value) => out.push_str(&value),
                None => out.push_str(&rest[start..start + 2 + end + 1]),
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    fn lookup(&mut self, name: &str) -> Option<String> {
        if let Some(var) = name.strip_prefix("env:") {
            let value = self.vars.env.get(var).cloned();
            if value.is_none() {
                self.missing(format!("${{env:{var}}}"), format!("{var} is not set in the environment"));
            }
            return value;
        }
        if let Some(id) = name.strip_prefix("input:") {
            return self.input(id);
        }
        match name {
            "userHome" => {
                let home = self.vars.user_home.as_ref().map(|h| h.display().to_string());
                if home.is_none() {
                    self.missing("${userHome}".into(), "there is no home directory (set HOME)".into());
                }
                home
            }
            "workspaceFolder" => {
                let folder = self.vars.workspace_folder.display().to_string();
                self.note(format!("${{workspaceFolder}} is {folder}"));
                Some(folder)
            }
            "workspaceFolderBasename" => {
                let name = self.vars.workspace_folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                self.note(format!("${{workspaceFolderBasename}} is {name}"));
                Some(name)
            }
            "pathSeparator" | "/" => Some(std::path::MAIN_SEPARATOR.to_string()),
            other => {
                self.note(format!("`${{{other}}}` is not a variable MCP Canvas knows; kept as is"));
                None
            }
        }
    }

    fn input(&mut self, id: &str) -> Option<String> {
        let decl = self.decls.get(id);
        if let Some(value) = self.vars.inputs.get(id) {
            self.used_inputs.insert(id.to_owned());
            if let Some(decl) = decl.filter(|d| !d.options.is_empty() && !d.options.contains(value)) {
                let options = decl.options.join(", ");
                self.missing(format!("${{input:{id}}}"), format!("the value given is not one of its options ({options})"));
                return None;
            }
            return Some(value.clone());
        }
        let hint = format!("pass --input {id}=VALUE");
        match decl {
            None => self.missing(format!("${{input:{id}}} (not declared in `inputs`)"), hint),
            Some(d) if d.password => self.missing(format!("${{input:{id}}} (a password input)"), hint),
            Some(InputDecl { default: Some(default), .. }) => {
                self.note(format!("input `{id}`: used its default"));
                return Some(default.clone());
            }
            Some(d) if d.kind == "command" => {
                self.missing(format!("${{input:{id}}} (a VS Code command input, which only VS Code can run)"), hint)
            }
            Some(_) => self.missing(format!("${{input:{id}}} (no default)"), hint),
        }
        None
    }
}

/// Substitutes variables and turns each server of `source` into an entry (or a skip reason).
/// Fails, listing every missing value, when any variable has no value. Also returns warnings
/// about `--input` values no server used.
pub fn resolve(source: &Source, vars: &Variables) -> Result<(Vec<Imported>, Vec<String>), ImportError> {
    let mut missing = Vec::new();
    let mut used_inputs = BTreeSet::new();
    let mut imported = Vec::new();
    for (name, value) in &source.servers {
        let mut value = value.clone();
        let mut substituter =
            Substituter { vars, decls: &source.inputs, server: name, missing: &mut missing, used_inputs: &mut used_inputs, notes: Vec::new() };
        substituter.value(&mut value);
        let mut notes = substituter.notes;
        let mut unknown_keys = Vec::new();
        let entry = if name.trim().is_empty() {
            Err("the server name is empty".to_owned())
        } else {
            match value {
                Value::Object(map) => build_entry(map, &mut unknown_keys, &mut notes),
                other => Err(format!("the definition is {}, not an object", mcp_canvas_contract::json_type_name(&other))),
            }
        };
        if let Some(problem) = entry.as_ref().ok().and_then(|e| e.endpoint().err()) {
            notes.push(format!("kept, but cannot be used until fixed: {problem}"));
        }
        imported.push(Imported { name: name.clone(), entry, unknown_keys, notes });
    }
    // Sorted, whether or not serde_json keeps the file's key order (its `preserve_order` feature).
    imported.sort_by(|a, b| a.name.cmp(&b.name));
    if !missing.is_empty() {
        let missing: Vec<String> = missing
            .iter()
            .map(|m| {
                let servers = m.servers.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
                format!("{}, used by {servers}: {}", m.variable, m.fix)
            })
            .collect();
        return Err(format!("{} value(s) missing: {}", missing.len(), missing.join("; ")).into());
    }
    let warnings = vars
        .inputs
        .keys()
        .filter(|id| !used_inputs.contains(*id))
        .map(|id| format!("--input `{id}` is not used by any server in the file"))
        .collect();
    Ok((imported, warnings))
}

fn scalar_string(value: Value, what: &str, notes: &mut Vec<String>) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        Value::Number(_) | Value::Bool(_) => {
            notes.push(format!("{what} was {}; imported as a string", mcp_canvas_contract::json_type_name(&value)));
            Ok(value.to_string())
        }
        other => Err(format!("{what} must be a string, found {}", mcp_canvas_contract::json_type_name(&other))),
    }
}

fn build_entry(map: Map<String, Value>, unknown_keys: &mut Vec<String>, notes: &mut Vec<String>) -> Result<ServerEntry, String> {
    let mut entry = ServerEntry { command: None, ..ServerEntry::stdio("") };
    for (key, value) in map {
        let known = matches!(key.as_str(), "type" | "command" | "args" | "env" | "cwd" | "url" | "headers");
        if !known {
            unknown_keys.push(key.clone());
            entry.other.insert(key, value);
            continue;
        }
        if value.is_null() {
            continue;
        }
        let string = |value: Value| match value {
            Value::String(s) => Ok(s),
            other => Err(format!("`{key}` must be a string, found {}", mcp_canvas_contract::json_type_name(&other))),
        };
        match key.as_str() {
            "type" => entry.kind = Some(string(value)?),
            "command" => entry.command = Some(string(value)?),
            "cwd" => entry.cwd = Some(string(value)?),
            "url" => entry.url = Some(string(value)?),
            "args" => {
                let Value::Array(items) = value else {
                    return Err(format!("`args` must be an array of strings, found {}", mcp_canvas_contract::json_type_name(&value)));
                };
                entry.args = items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| scalar_string(item, &format!("`args[{i}]`"), notes))
                    .collect::<Result<_, _>>()?;
            }
            "env" | "headers" => {
                let Value::Object(items) = value else {
                    return Err(format!("`{key}` must be an object of strings, found {}", mcp_canvas_contract::json_type_name(&value)));
                };
                let items = items
                    .into_iter()
                    .map(|(name, item)| Ok((name.clone(), scalar_string(item, &format!("`{key}.{name}`"), notes)?)))
                    .collect::<Result<BTreeMap<_, _>, String>>()?;
                if key == "env" {
                    entry.env = items;
                } else {
                    entry.headers = items;
                }
            }
            _ => unreachable!("known keys are matched above"),
        }
    }
    unknown_keys.sort();
    entry.kind = entry.normalized_kind();
    Ok(entry)
}

impl ServerEntry {
    /// The `type` in the normal form we write: none for stdio, `http` for Streamable HTTP
    /// (whatever alias, or a bare `url`), anything else (`sse`, unknown) as it is.
    pub fn normalized_kind(&self) -> Option<String> {
        match self.kind.as_deref() {
            None if self.command.is_none() && self.url.is_some() => Some("http".into()),
            None => None,
            Some("stdio") if self.command.is_some() => None,
            Some("http" | "streamable-http" | "streamableHttp") => Some("http".into()),
            Some(other) => Some(other.to_owned()),
        }
    }

    /// The entry with its `type` normalized ([`Self::normalized_kind`]).
    pub fn normalized(&self) -> Self {
        Self { kind: self.normalized_kind(), ..self.clone() }
    }

    /// Whether two entries define the same server (`type` compared in normal form).
    pub fn same_definition(&self, other: &Self) -> bool {
        self.normalized() == other.normalized()
    }

    /// `stdio`, `http`, or `invalid`.
    pub fn transport(&self) -> &'static str {
        match self.endpoint() {
            Ok(Endpoint::Stdio { .. }) => "stdio",
            Ok(Endpoint::Http { .. }) => "http",
            Err(_) => "invalid",
        }
    }

    /// The keys in which `self` differs from `other`, naming `env`/`headers` entries and unknown
    /// keys but never their values.
    pub fn differences(&self, other: &Self) -> Vec<String> {
        let (a, b) = (self.normalized(), other.normalized());
        let mut differences = Vec::new();
        let mut field = |name: &str, differs: bool| {
            if differs {
                differences.push(name.to_owned());
            }
        };
        field("type", a.kind != b.kind);
        field("command", a.command != b.command);
        field("args", a.args != b.args);
        field("cwd", a.cwd != b.cwd);
        field("url", a.url != b.url);
        let mut keyed = |prefix: &str, x: &BTreeMap<String, String>, y: &BTreeMap<String, String>| {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys.into_iter().filter(|k| x.get(*k) != y.get(*k)) {
                differences.push(format!("{prefix}.{key}"));
            }
        };
        keyed("env", &a.env, &b.env);
        keyed("headers", &a.headers, &b.headers);
        let keys: BTreeSet<&String> = a.other.keys().chain(b.other.keys()).collect();
        for key in keys.into_iter().filter(|k| a.other.get(*k) != b.other.get(*k)) {
            differences.push(key.clone());
        }
        differences
    }
}

/// Merges `imported` into `config`: new names are added, identical definitions left alone,
/// different ones kept (a conflict) unless `replace`.
pub fn merge(config: &mut ServersConfig, imported: Vec<Imported>, replace: bool) -> Vec<ServerReport> {
    imported
        .into_iter()
        .map(|Imported { name, entry, unknown_keys, notes }| {
            let mut report = ServerReport { name: name.clone(), status: ImportStatus::Skipped, transport: None, reason: None, unknown_keys, notes };
            let entry = match entry {
                Ok(entry) => entry,
                Err(reason) => {
                    report.reason = Some(reason);
                    return report;
                }
            };
            report.transport = Some(entry.transport().to_owned());
            match config.servers.get(&name) {
                None => {
                    report.status = ImportStatus::Added;
                    config.servers.insert(name, entry);
                }
                Some(existing) if existing.same_definition(&entry) => report.status = ImportStatus::Unchanged,
                Some(existing) => {
                    let differs = existing.differences(&entry).join(", ");
                    if replace {
                        report.status = ImportStatus::Replaced;
                        report.reason = Some(format!("differed in {differs}; overwritten"));
                        config.servers.insert(name, entry);
                    } else {
                        report.status = ImportStatus::Conflict;
                        report.reason = Some(format!("differs from the existing entry in {differs}; kept the existing one (use --replace to overwrite)"));
                    }
                }
            }
            report
        })
        .collect()
}

/// `${workspaceFolder}` when none is given: the folder holding `.vscode/` (or `.cursor/`) for
/// `<folder>/.vscode/mcp.json`, else the current directory. `None` for stdin.
pub fn default_workspace_folder(file: Option<&Path>) -> PathBuf {
    let current = || std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let Some(file) = file else { return current() };
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_owned());
    let parent = file.parent();
    match parent.and_then(|p| p.file_name()).and_then(|n| n.to_str()) {
        Some(".vscode" | ".cursor") => parent.and_then(Path::parent).map(Path::to_owned).unwrap_or_else(current),
        _ => current(),
    }
}

/// Options of [`import_text`].
#[derive(Debug, Clone, Copy, Default)]
pub struct MergeOptions {
    /// Overwrite existing servers whose definition differs.
    pub replace: bool,
    /// Compute the report without writing `servers.json`.
    pub dry_run: bool,
}

/// Imports the config file text `text` (named `label` in messages) into the `servers.json` at
/// `config_path`, writing it atomically when something changed. The error is one line naming
/// `label`.
pub fn import_text(label: &str, text: &str, config_path: &Path, vars: &Variables, options: MergeOptions) -> Result<ImportReport, ImportError> {
    let fail = |reason: String| ImportError(format!("cannot import {label}: {reason}"));
    let source = parse_source(text).map_err(|e| fail(e.0))?;
    let (imported, input_warnings) = resolve(&source, vars).map_err(|e| fail(e.0))?;
    let mut config = ServersConfig::load_or_create(config_path).map_err(|e| e.to_string())?;
    let servers = merge(&mut config, imported, options.replace);
    let changed = servers.iter().any(|s| matches!(s.status, ImportStatus::Added | ImportStatus::Replaced));
    let written = changed && !options.dry_run;
    if written {
        config.save(config_path).map_err(|e| e.to_string())?;
    }
    let mut warnings = source.warnings.clone();
    warnings.extend(input_warnings);
    Ok(ImportReport {
        source: label.to_owned(),
        format: source.format,
        config: config_path.display().to_string(),
        written,
        dry_run: options.dry_run,
        servers,
        warnings,
    })
}

impl ServersConfig {
    /// The servers as an `mcp.json` (`{"mcpServers": {...}}`) for Claude Desktop and Cursor: stdio
    /// entries with `command`/`args`/`env`/`cwd` and no `type`, Streamable HTTP entries with
    /// `type: "http"`, `url` and `headers`. Unknown per-server keys go along; top-level keys of
    /// our own file do not (they are our settings, not server definitions). Also returns
    /// warnings: entries exported as they are although unusable, http entries Claude Desktop's
    /// file cannot run. The warnings hold no values.
    pub fn to_mcp_json(&self) -> (Value, Vec<String>) {
        let mut servers = Map::new();
        let mut warnings = Vec::new();
        let mut http = Vec::new();
        for (name, entry) in &self.servers {
            let entry = entry.normalized();
            match entry.endpoint() {
                Ok(Endpoint::Http { .. }) => http.push(format!("`{name}`")),
                Ok(Endpoint::Stdio { .. }) => {}
                Err(problem) => warnings.push(format!("server `{name}` is exported as it is, but is unusable: {problem}")),
            }
            servers.insert(name.clone(), serde_json::to_value(&entry).expect("server entry serializes"));
        }
        if !http.is_empty() {
            warnings.push(format!(
                "http server(s) {} are read by Cursor; Claude Desktop's config file runs stdio servers only (add remote servers there as connectors)",
                http.join(", ")
            ));
        }
        (Value::Object(Map::from_iter([("mcpServers".to_owned(), Value::Object(servers))])), warnings)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn vars() -> Variables {
        Variables {
            workspace_folder: PathBuf::from("/work/project"),
            user_home: Some(PathBuf::from("/home/ada")),
            env: BTreeMap::from([("TOKEN".to_owned(), "tok-123".to_owned())]),
            inputs: BTreeMap::new(),
        }
    }

    fn import(text: &str, vars: &Variables) -> Result<BTreeMap<String, Imported>, String> {
        let source = parse_source(text).map_err(|e| e.0)?;
        let (imported, _) = resolve(&source, vars).map_err(|e| e.0)?;
        Ok(imported.into_iter().map(|i| (i.name.clone(), i)).collect())
    }

    #[test]
    fn jsonc_comments_and_trailing_commas_are_blanked_outside_strings() {
        let text = "{\n  // a comment with \"quotes\"\n  \"a\": \"http://x/*y*/\", /* block\n over lines */ \"b\": [1, 2,],\n  \"c\": \"//not, a comment,]\",\n}\n";
        let stripped = strip_jsonc(text).unwrap();
        assert_eq!(stripped.len(), text.len(), "offsets are kept");
        assert_eq!(stripped.lines().count(), text.lines().count(), "lines are kept");
        let value: Value = serde_json::from_str(&stripped).unwrap();
        assert_eq!(value, json!({"a": "http://x/*y*/", "b": [1, 2], "c": "//not, a comment,]"}));
        let strict = r#"{"x": "a\"//b", "y": [1, {"z": "é,}"}]}"#;
        assert_eq!(strip_jsonc(strict).unwrap(), strict, "strict JSON is unchanged");
        assert!(strip_jsonc("{ /* open").unwrap_err().0.contains("never closed"));
        assert_eq!(strip_jsonc("\u{feff}{}").unwrap(), "{}");
        assert_eq!(strip_jsonc("{\"a\":1 // é ü\n}").unwrap(), format!("{{\"a\":1 {}\n}}", " ".repeat(8)));
    }

    #[test]
    fn format_is_told_by_content() {
        assert_eq!(parse_source(r#"{"mcpServers": {}}"#).unwrap().format, SourceFormat::McpServers);
        assert_eq!(parse_source(r#"{"servers": {}, "inputs": []}"#).unwrap().format, SourceFormat::VsCode);
        let settings = parse_source(r#"{"editor.fontSize": 12, "mcp": {"servers": {"a": {"command": "a"}}}}"#).unwrap();
        assert_eq!((settings.format, settings.server_names()), (SourceFormat::VsCode, vec!["a"]));
        assert_eq!(settings.warnings.len(), 1);
        for (text, says) in [
            ("", "empty"),
            ("[]", "top level, found an array"),
            ("{\"mcpServers\": ", "not valid JSON"),
            (r#"{"mcpServers": [], "x": 1}"#, "`mcpServers` must be an object"),
            (r#"{"servers": "x"}"#, "`servers` must be an object"),
            (r#"{"servers": {}, "mcpServers": {}}"#, "cannot tell"),
            (r#"{"theme": "dark"}"#, "no `mcpServers`"),
            (r#"{"servers": {}, "inputs": {}}"#, "`inputs` must be an array"),
        ] {
            let err = parse_source(text).unwrap_err().0;
            assert!(err.contains(says), "{text:?}: {err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
        let warned = parse_source(r#"{"mcpServers": {}, "globalShortcut": "x"}"#).unwrap();
        assert!(warned.warnings[0].contains("`globalShortcut`"), "{:?}", warned.warnings);
    }

    #[test]
    fn types_are_mapped_and_unknown_keys_kept() {
        let text = r#"{"mcpServers": {
            "plain": {"command": "x", "args": ["a", 3]},
            "explicit": {"type": "stdio", "command": "x"},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
            "alias": {"type": "streamableHttp", "url": "https://example.com/mcp"},
            "old": {"type": "sse", "url": "https://example.com/sse", "disabled": true},
            "odd": {"command": "x", "autoApprove": ["t"], "envFile": "${workspaceFolder}/.env"},
            "broken": {"command": "x", "args": "a b"},
            "nothing": 3
        }}"#;
        let got = import(text, &vars()).unwrap();
        let entry = |name: &str| got[name].entry.clone().unwrap();
        assert_eq!(entry("plain").kind, None);
        assert_eq!(entry("plain").args, ["a", "3"]);
        assert!(got["plain"].notes[0].contains("`args[1]` was a number"), "{:?}", got["plain"].notes);
        assert_eq!(entry("explicit"), ServerEntry::stdio("x"));
        assert_eq!(entry("remote").kind.as_deref(), Some("http"));
        assert_eq!(entry("remote").headers["Authorization"], "Bearer tok-123");
        assert_eq!(entry("remote").transport(), "http");
        assert_eq!(entry("alias").kind.as_deref(), Some("http"));
        assert_eq!(entry("old").kind.as_deref(), Some("sse"));
        assert_eq!(entry("old").transport(), "invalid");
        assert!(got["old"].notes.iter().any(|n| n.contains("HTTP+SSE")), "{:?}", got["old"].notes);
        assert_eq!(got["old"].unknown_keys, ["disabled"]);
        assert_eq!(got["odd"].unknown_keys, ["autoApprove", "envFile"]);
        assert_eq!(entry("odd").other["envFile"], "/work/project/.env");
        assert!(got["broken"].entry.as_ref().unwrap_err().contains("`args` must be an array of strings, found a string"));
        assert!(got["nothing"].entry.as_ref().unwrap_err().contains("a number, not an object"));
    }

    #[test]
    fn variables_and_inputs() {
        let text = r#"{
            "inputs": [
                {"type": "promptString", "id": "key", "password": true},
                {"type": "promptString", "id": "region", "default": "eu"},
                {"type": "pickString", "id": "mode", "options": ["fast", "slow"], "default": "fast"},
                {"type": "promptString", "id": "unused"}
            ],
            "servers": {"s": {"type": "stdio", "command": "${userHome}${/}bin/s",
                "args": ["--region=${input:region}", "--mode", "${input:mode}", "${workspaceFolderBasename}", "${command:pick}", "${oops"],
                "env": {"KEY": "${input:key}"}}}
        }"#;
        let err = import(text, &vars()).unwrap_err();
        assert!(err.contains("${input:key} (a password input), used by `s`: pass --input key=VALUE"), "{err}");

        let mut with_key = vars();
        with_key.inputs.insert("key".into(), "s3cret".into());
        with_key.inputs.insert("mode".into(), "slow".into());
        let got = import(text, &with_key).unwrap();
        let s = got["s"].entry.clone().unwrap();
        assert_eq!(s.command.as_deref(), Some("/home/ada/bin/s"));
        assert_eq!(s.args, ["--region=eu", "--mode", "slow", "project", "${command:pick}", "${oops"]);
        assert_eq!(s.env["KEY"], "s3cret");
        let notes = got["s"].notes.join("\n");
        assert!(notes.contains("input `region`: used its default") && notes.contains("`${command:pick}` is not a variable"), "{notes}");
        assert!(!notes.contains("s3cret"));

        with_key.inputs.insert("mode".into(), "turbo".into());
        let err = import(text, &with_key).unwrap_err();
        assert!(err.contains("${input:mode}, used by `s`: the value given is not one of its options (fast, slow)") && !err.contains("turbo"), "{err}");

        let env = r#"{"mcpServers": {"a": {"command": "${env:NOPE_A}"}, "b": {"url": "${env:NOPE_B}", "headers": {"X": "${input:tok}"}}}}"#;
        let err = import(env, &vars()).unwrap_err();
        assert!(err.starts_with("3 value(s) missing"), "{err}");
        assert!(err.contains("${env:NOPE_A}, used by `a`: NOPE_A is not set in the environment"), "{err}");
        assert!(err.contains("${input:tok} (not declared in `inputs`), used by `b`: pass --input tok=VALUE"), "{err}");

        let mut vars = vars();
        vars.inputs.insert("ghost".into(), "x".into());
        let (_, warnings) = resolve(&parse_source(r#"{"servers": {}}"#).unwrap(), &vars).unwrap();
        assert_eq!(warnings, ["--input `ghost` is not used by any server in the file"]);
    }

    #[test]
    fn merge_adds_keeps_conflicts_and_replaces() {
        let mut config = ServersConfig::first_run();
        let other = json!({"command": "y", "env": {"A": "1"}});
        config.servers.insert("other".into(), serde_json::from_value(other).unwrap());
        let text = r#"{"mcpServers": {
            "demo": {"type": "stdio", "command": "mcp-canvas-demo"},
            "other": {"command": "y", "env": {"A": "2", "B": "3"}, "x": 1},
            "new": {"command": "n"},
            "bad": []
        }}"#;
        let imported = || resolve(&parse_source(text).unwrap(), &vars()).unwrap().0;
        let report = merge(&mut config, imported(), false);
        let status: Vec<_> = report.iter().map(|r| (r.name.as_str(), r.status)).collect();
        assert_eq!(
            status,
            [("bad", ImportStatus::Skipped), ("demo", ImportStatus::Unchanged), ("new", ImportStatus::Added), ("other", ImportStatus::Conflict)]
        );
        let conflict = report[3].reason.as_deref().unwrap();
        assert!(conflict.contains("env.A, env.B, x") && conflict.contains("--replace"), "{conflict}");
        assert!(!conflict.contains('2'), "no values: {conflict}");
        assert_eq!(config.servers["other"].env["A"], "1", "kept");
        assert_eq!(config.servers["new"], ServerEntry::stdio("n"));

        let report = merge(&mut config, imported(), true);
        assert_eq!(report[3].status, ImportStatus::Replaced);
        assert_eq!(config.servers["other"].env["B"], "3");
        assert_eq!(report[2].status, ImportStatus::Unchanged);
    }

    #[test]
    fn export_is_normalized_and_imports_back_the_same() {
        let mut config = ServersConfig::first_run();
        let entries = json!({
            "files": {"type": "stdio", "command": "npx", "args": ["-y", "fs", "/tmp"], "env": {"A": "1"}, "cwd": "/tmp", "disabled": false},
            "remote": {"type": "streamable-http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
            "old": {"type": "sse", "url": "https://example.com/sse"}
        });
        for (name, entry) in entries.as_object().unwrap() {
            config.servers.insert(name.clone(), serde_json::from_value(entry.clone()).unwrap());
        }
        let (exported, warnings) = config.to_mcp_json();
        assert_eq!(exported["mcpServers"]["files"].get("type"), None);
        assert_eq!(exported["mcpServers"]["files"]["disabled"], false);
        assert_eq!(exported["mcpServers"]["remote"]["type"], "http");
        assert_eq!(exported["mcpServers"]["remote"]["headers"]["Authorization"], "Bearer t");
        assert!(warnings.iter().any(|w| w.contains("`old`") && w.contains("unusable")), "{warnings:?}");
        assert!(warnings.iter().any(|w| w.contains("`remote`") && w.contains("Cursor")), "{warnings:?}");

        let mut fresh = ServersConfig { servers: BTreeMap::new(), other: Map::new() };
        let imported = resolve(&parse_source(&exported.to_string()).unwrap(), &vars()).unwrap().0;
        assert!(merge(&mut fresh, imported, false).iter().all(|r| r.status == ImportStatus::Added));
        for (name, entry) in &config.servers {
            assert_eq!(fresh.servers[name], entry.normalized(), "{name}");
            assert!(fresh.servers[name].same_definition(entry));
        }
    }

    #[test]
    fn workspace_folder_defaults_to_the_folder_holding_dot_vscode() {
        assert_eq!(default_workspace_folder(Some(Path::new("/p/proj/.vscode/mcp.json"))), PathBuf::from("/p/proj"));
        assert_eq!(default_workspace_folder(Some(Path::new("/p/proj/.cursor/mcp.json"))), PathBuf::from("/p/proj"));
        assert_eq!(default_workspace_folder(Some(Path::new("/p/proj/mcp.json"))), std::env::current_dir().unwrap());
    }

    #[test]
    fn import_text_writes_only_when_something_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        let text = r#"{"mcpServers": {"a": {"command": "a"}}}"#;
        let dry = import_text("f.json", text, &path, &vars(), MergeOptions { dry_run: true, ..Default::default() }).unwrap();
        assert!(!dry.written && dry.count(ImportStatus::Added) == 1);
        assert!(!ServersConfig::load_or_create(&path).unwrap().servers.contains_key("a"));
        let report = import_text("f.json", text, &path, &vars(), MergeOptions::default()).unwrap();
        assert!(report.written);
        let again = import_text("f.json", text, &path, &vars(), MergeOptions::default()).unwrap();
        assert!(!again.written && again.count(ImportStatus::Unchanged) == 1);
        let err = import_text("f.json", "{", &path, &vars(), MergeOptions::default()).unwrap_err().0;
        assert!(err.starts_with("cannot import f.json: not valid JSON"), "{err}");
    }
}
