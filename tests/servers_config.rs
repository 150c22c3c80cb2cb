//! `mcp-canvas-cli servers list | import | export` against the fixture configs in
//! `fixtures/server_configs/` (Claude Desktop, VS Code JSONC with inputs and variables, Cursor
//! with url + headers, malformed files). The import cases are data: `cases.json` there.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
};

use mcp_canvas_e2e::binary;
use serde_json::{json, Value};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// A fresh data dir, HOME and current dir for one scenario.
struct Sandbox {
    _dir: tempfile::TempDir,
    data: PathBuf,
    home: PathBuf,
    cwd: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (data, home, cwd) = (dir.path().join("data"), dir.path().join("home"), dir.path().join("cwd"));
        for d in [&data, &home, &cwd] {
            std::fs::create_dir_all(d).unwrap();
        }
        Self { _dir: dir, data, home, cwd }
    }

    fn cli(&self, args: &[&str], env: &BTreeMap<String, String>) -> Run {
        let mut command = Command::new(binary("mcp-canvas-cli"));
        command.arg("--data-dir").arg(&self.data).args(args).current_dir(&self.cwd).env("HOME", &self.home).env_remove("MCP_CANVAS_DATA_DIR");
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("MCP_FIXTURE_") {
                command.env_remove(key);
            }
        }
        command.envs(env);
        let output = command.output().expect("cli runs");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Run {
        self.cli(args, &BTreeMap::new())
    }

    fn servers_json(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.data.join("servers.json")).unwrap()).unwrap()
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server_configs")
}

fn fixture(name: &str) -> String {
    fixtures().join(name).display().to_string()
}

/// Replaces `{fixtures}` and `{home}` in every string of `value`.
fn expand(value: &Value, home: &Path) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("{fixtures}", &fixtures().display().to_string()).replace("{home}", &home.display().to_string())),
        Value::Array(items) => Value::Array(items.iter().map(|v| expand(v, home)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), expand(v, home))).collect()),
        other => other.clone(),
    }
}

fn strings(value: &Value) -> Vec<String> {
    value.as_array().map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect()).unwrap_or_default()
}

#[test]
fn fixture_imports_match_cases_json() {
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(fixtures().join("cases.json")).unwrap()).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let sandbox = Sandbox::new();
        let case = expand(case, &sandbox.home);
        let name = case["name"].as_str().unwrap();
        let file = fixture(case["file"].as_str().unwrap());
        let env: BTreeMap<String, String> = serde_json::from_value(case.get("env").cloned().unwrap_or(json!({}))).unwrap();
        let extra = strings(&case["args"]);
        let mut args = vec!["servers", "import", file.as_str()];
        args.extend(extra.iter().map(String::as_str));
        let before = sandbox.run(&["servers", "list"]);
        assert_eq!(before.code, 0, "{name}: {}", before.stderr);
        let original = sandbox.servers_json();

        let plain = sandbox.cli(&args, &env);
        args.push("--json");
        let json = sandbox.cli(&args, &env);
        for secret in strings(&case["never_printed"]) {
            for out in [&plain.stdout, &plain.stderr, &json.stdout, &json.stderr] {
                assert!(!out.contains(&secret), "{name}: `{secret}` was printed: {out}");
            }
        }

        let expected_exit = case["exit"].as_i64().unwrap() as i32;
        assert_eq!(plain.code, expected_exit, "{name}: stdout {} stderr {}", plain.stdout, plain.stderr);
        assert_eq!(json.code, expected_exit, "{name} --json: stdout {} stderr {}", json.stdout, json.stderr);

        if expected_exit != 0 {
            assert_eq!(plain.stderr.lines().count(), 1, "{name}: want one line, got: {}", plain.stderr);
            assert!(plain.stderr.starts_with("error: "), "{name}: {}", plain.stderr);
            for needle in strings(&case["error"]) {
                assert!(plain.stderr.contains(&needle), "{name}: `{needle}` not in: {}", plain.stderr);
            }
            let error: Value = serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{name}: --json error is JSON ({e}): {}", json.stdout));
            assert_eq!(error["error"]["code"], "IMPORT_FAILED", "{name}");
            assert_eq!(format!("error: {}\n", error["error"]["message"].as_str().unwrap()), plain.stderr, "{name}");
            assert_eq!(sandbox.servers_json(), original, "{name}: a failed import writes nothing");
            continue;
        }

        // The plain run imported; the --json run reports the same servers as unchanged.
        let report: Value = serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{name}: report is JSON ({e}): {}", json.stdout));
        assert_eq!(report["format"], case["format"], "{name}");
        assert_eq!(report["written"], false, "{name}: nothing left to write");
        let expected_servers = case["servers"].as_object().unwrap();
        let mut reported = 0;
        for server in report["servers"].as_array().unwrap() {
            let server_name = server["name"].as_str().unwrap();
            let Some(expected) = expected_servers.get(server_name) else { continue };
            reported += 1;
            let status = expected["status"].as_str().unwrap();
            let again = if status == "added" { "unchanged" } else { status };
            assert_eq!(server["status"], again, "{name}/{server_name}: {server}");
            let word = plain.stdout.lines().find(|l| l.split_whitespace().nth(1) == Some(server_name)).map(|l| l.split_whitespace().next().unwrap());
            assert_eq!(word, Some(status), "{name}/{server_name} in the plain report: {}", plain.stdout);
            assert_eq!(server["transport"], expected["transport"], "{name}/{server_name}");
            assert_eq!(server["unknown_keys"], expected["unknown_keys"], "{name}/{server_name}");
            if let Some(reason) = expected["reason"].as_str() {
                assert!(server["reason"].as_str().unwrap_or("").contains(reason), "{name}/{server_name}: {server}");
                assert!(plain.stdout.contains(reason), "{name}/{server_name}: reason not shown: {}", plain.stdout);
            }
            let notes = strings(&server["notes"]).join("\n");
            for note in strings(&expected["notes"]) {
                assert!(notes.contains(&note), "{name}/{server_name}: `{note}` not in notes: {notes}");
                assert!(plain.stdout.contains(&note), "{name}/{server_name}: note not shown: {}", plain.stdout);
            }
            let unknown = strings(&expected["unknown_keys"]);
            if !unknown.is_empty() {
                let kept = format!("unknown keys kept: {}", unknown.join(", "));
                assert!(plain.stdout.contains(&kept), "{name}/{server_name}: `{kept}` not in: {}", plain.stdout);
            }
        }
        assert_eq!(reported, expected_servers.len(), "{name}: every expected server is reported: {report}");
        let warnings = strings(&report["warnings"]).join("\n");
        for warning in strings(&case["warnings"]) {
            assert!(warnings.contains(&warning), "{name}: `{warning}` not in {warnings}");
            assert!(plain.stderr.contains(&format!("warning: {warning}")), "{name}: {}", plain.stderr);
        }

        let written = sandbox.servers_json();
        assert_eq!(written["mcpServers"]["demo"], original["mcpServers"]["demo"], "{name}: existing servers are kept");
        for (server_name, entry) in case["entries"].as_object().unwrap() {
            assert_eq!(&written["mcpServers"][server_name], entry, "{name}/{server_name}");
        }
        for (server_name, expected) in expected_servers {
            if expected["status"] == "skipped" {
                assert_eq!(written["mcpServers"].get(server_name), None, "{name}/{server_name} was skipped");
            }
        }
    }
}

#[test]
fn conflicts_are_kept_unless_replace() {
    let sandbox = Sandbox::new();
    assert_eq!(sandbox.run(&["servers", "import", &fixture("claude_desktop_config.json")]).code, 0);

    let changed = sandbox.cwd.join("changed.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(fixtures().join("claude_desktop_config.json")).unwrap()).unwrap();
    config["mcpServers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"] = json!("ghp_other_secret");
    config["mcpServers"]["github"]["args"] = json!(["run"]);
    config["mcpServers"]["filesystem"]["type"] = json!("stdio"); // same definition, spelled out
    config["mcpServers"]["demo"] = json!({"command": "somewhere-else"});
    std::fs::write(&changed, config.to_string()).unwrap();
    let before = sandbox.servers_json();

    let run = sandbox.run(&["servers", "import", changed.to_str().unwrap()]);
    assert_eq!(run.code, 0, "conflicts are reported, not failures: {}", run.stderr);
    let line = |name: &str| run.stdout.lines().find(|l| l.split_whitespace().nth(1) == Some(name)).unwrap_or_else(|| panic!("{name}: {}", run.stdout)).to_owned();
    assert!(line("github").starts_with("  conflict"), "{}", run.stdout);
    assert!(line("github").contains("differs from the existing entry in args, env.GITHUB_PERSONAL_ACCESS_TOKEN"), "{}", line("github"));
    assert!(line("github").contains("--replace"), "{}", line("github"));
    assert!(line("demo").starts_with("  conflict"), "{}", run.stdout);
    assert!(line("filesystem").starts_with("  unchanged"), "{}", run.stdout);
    assert!(!run.stdout.contains("ghp_"), "no values in the report: {}", run.stdout);
    assert!(run.stdout.contains("servers.json unchanged"), "{}", run.stdout);
    assert_eq!(sandbox.servers_json(), before, "conflicts leave servers.json alone");

    let dry = sandbox.run(&["servers", "import", changed.to_str().unwrap(), "--replace", "--dry-run", "--json"]);
    let report: Value = serde_json::from_str(&dry.stdout).unwrap();
    assert_eq!((report["dry_run"].clone(), report["written"].clone()), (json!(true), json!(false)));
    assert!(report["servers"].as_array().unwrap().iter().any(|s| s["name"] == "github" && s["status"] == "replaced"));
    assert_eq!(sandbox.servers_json(), before, "a dry run writes nothing");

    let run = sandbox.run(&["servers", "import", changed.to_str().unwrap(), "--replace"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = sandbox.servers_json();
    assert_eq!(after["mcpServers"]["github"]["args"], json!(["run"]));
    assert_eq!(after["mcpServers"]["demo"]["command"], "somewhere-else");
    assert_eq!(after["mcpServers"]["filesystem"], before["mcpServers"]["filesystem"]);
    assert!(run.stdout.contains("2 replaced") && run.stdout.contains("servers.json updated"), "{}", run.stdout);
}

#[test]
fn export_then_import_gives_the_same_entries() {
    let source = Sandbox::new();
    let env = BTreeMap::from([
        ("MCP_FIXTURE_NOTES_TOKEN".to_owned(), "t1".to_owned()),
        ("MCP_FIXTURE_LOCAL_KEY".to_owned(), "t2".to_owned()),
        ("MCP_FIXTURE_LOG_DIR".to_owned(), "/l".to_owned()),
    ]);
    for args in [
        vec!["servers", "import", &fixture("claude_desktop_config.json")],
        vec!["servers", "import", &fixture("cursor_mcp.json")],
        vec!["servers", "import", &fixture("vscode/.vscode/mcp.json"), "--input", "api-key=k"],
        vec!["servers", "import", &fixture("mixed_entries.json")],
    ] {
        let run = source.cli(&args, &env);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }
    // Our own keys outside `mcpServers` are not exported.
    let mut with_setting = source.servers_json();
    with_setting["theme"] = json!("dark");
    std::fs::write(source.data.join("servers.json"), with_setting.to_string()).unwrap();

    let export = source.run(&["servers", "export"]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    let exported: Value = serde_json::from_str(&export.stdout).expect("export prints JSON");
    assert_eq!(exported.as_object().unwrap().keys().collect::<Vec<_>>(), ["mcpServers"]);
    let servers = &exported["mcpServers"];
    assert_eq!(servers["github"].get("type"), None, "stdio entries carry no type");
    assert_eq!(servers["github"]["command"], "docker");
    assert_eq!(servers["remote-notes"]["type"], "http");
    assert_eq!(servers["remote-notes"]["headers"]["X-Team"], "canvas");
    assert_eq!(servers["sqlite"]["alwaysAllow"], json!(["read_query"]), "unknown keys go along");
    assert!(export.stderr.contains("server `legacy` is exported as it is, but is unusable"), "{}", export.stderr);
    assert!(export.stderr.contains("Claude Desktop's config file runs stdio servers only"), "{}", export.stderr);

    let out = source.cwd.join("mcp.json");
    let written = source.run(&["servers", "export", "--out", out.to_str().unwrap(), "--json"]);
    assert_eq!(written.code, 0, "{}", written.stderr);
    let report: Value = serde_json::from_str(&written.stdout).unwrap();
    assert_eq!(report["file"], out.display().to_string());
    assert!(report["servers"].as_array().unwrap().contains(&json!("github")));
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(on_disk, exported);
    let again = source.run(&["servers", "export", "--out", out.to_str().unwrap()]);
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("already exists; pass --force"), "{}", again.stderr);
    assert_eq!(source.run(&["servers", "export", "--out", out.to_str().unwrap(), "--force"]).code, 0);

    let target = Sandbox::new();
    let run = target.run(&["servers", "import", out.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    for server in report["servers"].as_array().unwrap() {
        let want = if server["name"] == "demo" { "unchanged" } else { "added" };
        assert_eq!(server["status"], want, "{server}");
    }
    assert_eq!(target.servers_json()["mcpServers"], source.servers_json()["mcpServers"], "export → import is lossless");
    let back = target.run(&["servers", "import", out.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_str(&back.stdout).unwrap();
    assert!(report["servers"].as_array().unwrap().iter().all(|s| s["status"] == "unchanged"), "{report}");
}

#[test]
fn list_json_and_bad_arguments() {
    let sandbox = Sandbox::new();
    let list = sandbox.run(&["servers", "list", "--json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let servers: Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(servers, json!([{"name": "demo", "transport": "stdio", "target": "mcp-canvas-demo", "problem": null, "timeout_seconds": null, "sign_in": null}]));

    let run = sandbox.run(&["servers", "import", &fixture("mixed_entries.json")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let servers: Value = serde_json::from_str(&sandbox.run(&["servers", "list", "--json"]).stdout).unwrap();
    let ws = servers.as_array().unwrap().iter().find(|s| s["name"] == "ws").unwrap();
    assert_eq!(ws["transport"], "invalid");
    assert!(ws["problem"].as_str().unwrap().contains("unknown `type`"), "{ws}");

    let secret_arg = "sk-no-equals-sign";
    let run = sandbox.run(&["servers", "import", &fixture("vscode/.vscode/mcp.json"), "--input", secret_arg]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "error: --input #1 is not ID=VALUE\n", "the argument is not echoed");

    let stdin = Command::new(binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(&sandbox.data)
        .args(["servers", "import", "-", "--json"])
        .stdin(std::fs::File::open(fixtures().join("claude_desktop_config.json")).unwrap())
        .output()
        .unwrap();
    assert!(stdin.status.success(), "{}", String::from_utf8_lossy(&stdin.stderr));
    let report: Value = serde_json::from_slice(&stdin.stdout).unwrap();
    assert_eq!(report["source"], "stdin");
    assert_eq!(report["servers"].as_array().unwrap().len(), 3);
}
