//! Builds the Tauri context from the root `tauri.conf.json` and declares the app's commands, so
//! that the capability files in `capabilities/` are enforced for them.

/// Every command `src/commands.rs` registers. A command missing here is unreachable from the UI.
const COMMANDS: &[&str] = &[
    "list_servers",
    "list_tools",
    "call_tool",
    "canvas_view",
    "canvas_intent",
    "dashboard_access",
    "allowlist_view",
    "allowlist_add",
    "allowlist_remove",
    "answer_elicitation",
    "answer_confirmation",
    "cancel_call",
    "artifacts_query",
    "artifacts_sources",
    "artifacts_usage",
    "artifact_record",
    "artifact_set_pinned",
    "artifact_remove",
    "artifact_open",
    "artifact_save_as",
    "artifact_open_external",
    "server_statuses",
    "restart_server",
    "server_log",
    "stop_server",
    "set_server_timeout",
    "settings_view",
    "settings_set",
];

fn main() {
    let ui = std::path::Path::new("../ui/dist/index.html");
    println!("cargo:rerun-if-changed=../ui/dist");
    if !ui.is_file() {
        panic!("ui/dist/index.html is missing: build the UI first with `scripts/setup.sh`, or `cd ui && npm ci && npm run build`");
    }
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri build script failed");
}
