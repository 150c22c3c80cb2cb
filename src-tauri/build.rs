//! Builds the Tauri context from the root `tauri.conf.json` and declares the app's commands, so
//! that the capability files in `capabilities/` are enforced for them.

/// Every command `src/commands.rs` registers. A command missing here is unreachable from the UI.
const COMMANDS: &[&str] = &["list_servers", "list_tools", "call_tool"];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri build script failed");
}
