//! The official conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `scripts/setup.sh --tests`, run under the Node 22 installed beside it) against
//! `mcp-canvas-conformance`, our host behind a small adapter (`tests/conformance_adapter.rs`, a binary of this package): every client
//! scenario the suite lists that is not an `[extension]` — the core ones and the OAuth ones —
//! at each protocol version it names of 2025-11-25 and 2026-07-28 (else at its own).
//!
//! The list comes from the installed suite itself (`list`), so a newer pin brings its new
//! scenarios in; fewer than the pinned version has is a failure, not a silent skip. The skills
//! extension's scenarios (`sep-2640-client-*`) run too, and must pass by verifying, not by never
//! asking; so do the auth extensions' (`auth/client-credentials-*`, `auth/dpop*`,
//! `auth/enterprise-managed-authorization`, `auth/wif-jwt-bearer`), every check a SUCCESS.

use std::{path::PathBuf, process::Command};

use mcp_canvas_e2e::npm::{installed, node22};

/// Must match the version `scripts/setup.sh --tests` installs.
const CONFORMANCE_VERSION: &str = "0.2.0-alpha.12";
/// How many non-extension client scenarios that version has (11 core, 27 auth).
const SCENARIOS_AT_LEAST: usize = 38;

fn suite() -> PathBuf {
    installed("@modelcontextprotocol/conformance", CONFORMANCE_VERSION).join("dist/index.js")
}

/// `(scenario, versions it names)` for every client scenario that is not an extension.
fn client_scenarios() -> Vec<(String, Vec<String>)> {
    let output = Command::new(node22()).arg(suite()).arg("list").output().unwrap();
    assert!(output.status.success(), "conformance list failed: {}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    let client = text.split("Client scenarios").nth(1).expect("the list has client scenarios");
    let client = client.split("\n\n").next().unwrap_or(client);
    client
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|entry| {
            let (name, tags) = entry.split_once(" [")?;
            let tags: Vec<String> = tags.trim_end_matches(']').split(',').map(str::to_owned).collect();
            (!tags.iter().any(|t| t == "extension")).then(|| (name.to_owned(), tags))
        })
        .collect()
}

/// Runs one scenario; `Err(report)` when it did not pass.
fn run(scenario: &str, version: Option<&str>) -> Result<String, String> {
    let results = tempfile::tempdir().unwrap();
    let mut command = Command::new(node22());
    command.arg(suite()).args(["client", "--scenario", scenario, "--timeout", "120000", "--command"]).arg(mcp_canvas_e2e::binary("mcp-canvas-conformance")).arg("-o").arg(results.path());
    if let Some(version) = version {
        command.args(["--spec-version", version]);
    }
    let output = command.output().unwrap();
    let report = format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if !(output.status.success() && report.contains("OVERALL: PASSED")) {
        return Err(report);
    }
    let run = walk(results.path()).into_iter().find(|p| p.ends_with("checks.json")).and_then(|p| p.parent().map(PathBuf::from));
    let read = |name: &str| run.as_ref().and_then(|run| std::fs::read_to_string(run.join(name)).ok()).unwrap_or_default();
    let (said, complained) = (read("stdout.txt"), read("stderr.txt"));
    if said.starts_with(&format!("{scenario}: ")) {
        return Ok(said.trim().to_owned());
    }
    // Scenarios where the right move is to refuse (a wrong `iss`, poisoned metadata, a resource
    // that is not the server) pass with the adapter's error; it must be a sign-in that stopped.
    let refused = complained.lines().rev().find(|l| l.starts_with(&format!("{scenario}: "))).unwrap_or_default();
    if refused.contains("signing in") || refused.contains("sign in") {
        return Ok(format!("refused: {refused}"));
    }
    Err(format!("the suite passed it, but the adapter neither finished nor refused a sign-in:\nstdout: {said}\nstderr: {complained}"))
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// Every non-extension client scenario passes. `sse-retry` measures the reconnect delay (500 ms,
/// accepted up to 700 ms, a failure past 1 s), so on a loaded machine a late reconnect gets more
/// tries; a reconnect too early (a client that ignored `retry`) fails at once.
#[test]
fn every_client_scenario_passes() {
    let scenarios = client_scenarios();
    assert!(scenarios.len() >= SCENARIOS_AT_LEAST, "the suite lists {} non-extension client scenarios, expected at least {SCENARIOS_AT_LEAST}: {scenarios:?}", scenarios.len());
    assert!(scenarios.iter().filter(|(name, _)| name.starts_with("auth/")).count() >= 27, "the OAuth scenarios are among them: {scenarios:?}");
    let mut failures = Vec::new();
    let mut runs = 0;
    for (scenario, tags) in &scenarios {
        let current: Vec<&str> = ["2025-11-25", "2026-07-28"].into_iter().filter(|v| tags.iter().any(|t| t == v)).collect();
        let versions: Vec<Option<&str>> = if current.is_empty() { vec![None] } else { current.into_iter().map(Some).collect() };
        for version in versions {
            runs += 1;
            let attempts = if scenario == "sse-retry" { 4 } else { 1 };
            for attempt in 1..=attempts {
                match run(scenario, version) {
                    Ok(said) => {
                        eprintln!("conformance {scenario} @ {}: passed ({said})", version.unwrap_or("its version"));
                        break;
                    }
                    Err(report) if attempt < attempts && (report.contains("reconnected slightly late") || report.contains("reconnected very late")) && !report.contains("reconnected too early") => {
                        eprintln!("conformance {scenario}: late reconnect on a busy machine, trying again");
                    }
                    Err(report) => {
                        eprintln!("conformance {scenario} @ {}: FAILED\n{report}", version.unwrap_or("its version"));
                        failures.push(format!("{scenario} @ {}", version.unwrap_or("its version")));
                        break;
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {runs} conformance runs failed: {failures:?}", failures.len());
    eprintln!("conformance: {runs} runs of {} client scenarios passed", scenarios.len());
}

/// The skills extension's client scenarios (SEP-2640): the suite passes a client that never asks
/// for skills (its checks are then SKIPPED), so each check must be a SUCCESS here — the adapter
/// lists the skills, loads each, and refuses a SKILL.md whose digest, size or frontmatter is not
/// the listing's, reading none of its other files.
#[test]
fn skills_scenarios_pass_because_skills_are_read_and_verified() {
    let listed = Command::new(node22()).arg(suite()).arg("list").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let scenarios: Vec<&str> = listed.lines().filter_map(|l| l.trim().strip_prefix("- ")).filter_map(|e| e.split(' ').next()).filter(|n| n.starts_with("sep-2640-client-")).collect();
    assert!(scenarios.len() >= 4, "the suite lists the skills scenarios: {scenarios:?}");
    for scenario in scenarios {
        let results = tempfile::tempdir().unwrap();
        let output = Command::new(node22())
            .arg(suite())
            .args(["client", "--scenario", scenario, "--timeout", "120000", "--command"])
            .arg(mcp_canvas_e2e::binary("mcp-canvas-conformance"))
            .arg("-o")
            .arg(results.path())
            .output()
            .unwrap();
        let report = format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success() && report.contains("OVERALL: PASSED"), "{scenario}: {report}");
        let checks = walk(results.path()).into_iter().find(|p| p.ends_with("checks.json")).expect("checks.json");
        let checks: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&checks).unwrap()).unwrap();
        let skills: Vec<(&str, &str)> = checks.as_array().unwrap().iter().filter_map(|c| Some((c["id"].as_str()?, c["status"].as_str()?))).filter(|(id, _)| id.starts_with("sep-2640-")).collect();
        assert!(!skills.is_empty() && skills.iter().all(|(_, status)| *status == "SUCCESS"), "{scenario}: every skills check must succeed, not be skipped: {skills:?}\n{report}");
        let said = std::fs::read_to_string(checks_dir(results.path()).join("stdout.txt")).unwrap_or_default();
        if scenario != "sep-2640-client-no-prefetch" {
            assert!(said.contains("refused pdf-processing"), "{scenario}: the tampered skill is refused by name: {said}");
        }
        eprintln!("conformance {scenario}: passed ({})", said.trim());
    }
}

fn checks_dir(results: &std::path::Path) -> PathBuf {
    walk(results).into_iter().find(|p| p.ends_with("checks.json")).and_then(|p| p.parent().map(PathBuf::from)).unwrap_or_default()
}

/// The auth extensions' client scenarios (client credentials with a secret and with
/// `private_key_jwt`, DPoP with and without server nonces, enterprise-managed authorization,
/// workload identity federation): each passes with every check a SUCCESS — the adapter
/// configures the server as a user would (`oauth.grant`, `oauth.dpop`, the key in the token
/// store) and MCP Canvas gets its token with that grant.
#[test]
fn auth_extension_scenarios_pass() {
    let listed = Command::new(node22()).arg(suite()).arg("list").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let scenarios: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter(|e| e.starts_with("auth/") && e.contains("[extension]"))
        .filter_map(|e| e.split(' ').next())
        .collect();
    assert!(scenarios.len() >= 6, "the suite lists the auth extension scenarios: {scenarios:?}");
    let mut failures = Vec::new();
    for scenario in &scenarios {
        let results = tempfile::tempdir().unwrap();
        let output = Command::new(node22())
            .arg(suite())
            .args(["client", "--scenario", scenario, "--timeout", "120000", "--command"])
            .arg(mcp_canvas_e2e::binary("mcp-canvas-conformance"))
            .arg("-o")
            .arg(results.path())
            .output()
            .unwrap();
        let report = format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let checks = walk(results.path()).into_iter().find(|p| p.ends_with("checks.json"));
        let checks: Vec<(String, String)> = checks
            .and_then(|p| serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(p).ok()?).ok())
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|c| Some((c["id"].as_str()?.to_owned(), c["status"].as_str()?.to_owned())))
            .collect();
        let said = std::fs::read_to_string(checks_dir(results.path()).join("stdout.txt")).unwrap_or_default();
        let not_passed: Vec<&(String, String)> = checks.iter().filter(|(_, status)| status != "SUCCESS" && status != "INFO").collect();
        if output.status.success() && report.contains("OVERALL: PASSED") && !checks.is_empty() && not_passed.is_empty() && said.starts_with(&format!("{scenario}: connected")) {
            eprintln!("conformance {scenario}: passed, {} checks ({})", checks.len(), said.trim());
        } else {
            let complained = std::fs::read_to_string(checks_dir(results.path()).join("stderr.txt")).unwrap_or_default();
            eprintln!("conformance {scenario}: FAILED; checks not passed: {not_passed:?}\n{report}\nstdout: {said}\nstderr: {complained}");
            failures.push(scenario.to_string());
        }
    }
    assert!(failures.is_empty(), "{} of {} auth extension scenarios failed: {failures:?}", failures.len(), scenarios.len());
}
