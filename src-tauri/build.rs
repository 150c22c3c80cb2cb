//! Builds the Tauri context from the root `tauri.conf.json` and declares the app's commands (from
//! `src/command_list.rs`, the one list), so that the capability files in `capabilities/` are
//! enforced for them.

include!("src/command_list.rs");

macro_rules! command_names {
    ($( $(#[doc = $doc:literal])* $kind:ident $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty ; )*) => {
        &[$( stringify!($name) ),*]
    };
}

/// Every command the window may invoke.
const COMMANDS: &[&str] = for_each_command!(command_names);

fn main() {
    let ui = std::path::Path::new("../ui/dist/index.html");
    println!("cargo:rerun-if-changed=../ui/dist");
    println!("cargo:rerun-if-changed=src/command_list.rs");
    if !ui.is_file() {
        panic!("ui/dist/index.html is missing: build the UI first with `scripts/setup.sh`, or `cd ui && npm ci && npm run build`");
    }
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri build script failed");
}
