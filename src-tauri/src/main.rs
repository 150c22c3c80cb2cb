//! MCP Canvas, the desktop app: Tauri wiring only, over `mcp-canvas-app` (what the window does,
//! tested without one) and `mcp-canvas-host`.
//!
//! Here: the commands, generated from the one list in `command_list.rs` (`commands.rs`), the
//! app's `Window` over Tauri — events, theme, save dialogs (`window.rs`), the `artifact:` scheme
//! handed to `App::artifact_response`, the navigation guard plugin around
//! `App::navigation_guard`, the app link served for the proxy (`app_link.rs`), and the window's
//! size and place (`window_state.rs`).
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[macro_use]
mod command_list;
mod app_link;
mod commands;
mod window;
mod window_state;

use std::{sync::Arc, time::Duration};

use mcp_canvas_app::{apps, artifact_scheme, App, Frontends, HostState};
use mcp_canvas_config::data_dir;
use mcp_canvas_host::{Host, HostOptions};

fn open_host(frontends: Frontends) -> HostState {
    let data_dir = data_dir::resolve(None).map_err(|e| e.to_string())?;
    Host::open(HostOptions { data_dir, call_timeout: Duration::from_secs(120), session: None })
        // Servers' questions and sampling requests to the user become dialogs in the window.
        .map(|host| Arc::new(frontends.install(host)))
        .map_err(|e| e.to_string())
}

fn main() {
    let app = Arc::new(App::new(open_host));
    if let Err(reason) = app.host() {
        eprintln!("mcp-canvas: {reason}");
    }
    if let Some(host) = app.shared_host() {
        // With a team store: upload what earlier runs left queued, and retry while it is away.
        let team_host = host.clone();
        tauri::async_runtime::spawn(async move { team_host.keep_team_store_in_sync() });
        // Housekeeping off the start-up path: old sessions, quota, orphaned blobs.
        std::thread::spawn(move || {
            if let Err(e) = host.tidy_store() {
                eprintln!("mcp-canvas: tidying the artifact store failed: {e}");
            }
        });
    }
    let guard = app.navigation_guard();
    let scheme_app = app.clone();
    let tauri_app = tauri::Builder::default()
        // Every navigation of the window and its frames: the app's own, or an allowlisted dashboard.
        .plugin(tauri::plugin::Builder::<tauri::Wry>::new("dashboard-guard").on_navigation(move |_webview, url| guard.allows(url)).build())
        // Native "Save as…" dialogs, opened from Rust only (no dialog permission for the window).
        .plugin(tauri_plugin_dialog::init())
        // The window comes back at the size and place the user left it (no JS API, no permission).
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .on_window_event({
            let saver = window_state::SaveOnChange::default();
            move |window, event| saver.on_event(tauri::Manager::app_handle(window), event)
        })
        .manage(app.clone())
        .register_asynchronous_uri_scheme_protocol(artifact_scheme::SCHEME, move |_ctx, request, responder| {
            let app = scheme_app.clone();
            // Reading a blob is file I/O: keep it off the main thread.
            std::thread::spawn(move || responder.respond(app.artifact_response(&request)));
        })
        .register_asynchronous_uri_scheme_protocol(apps::SCHEME, {
            let app = app.clone();
            move |_ctx, request, responder| {
                let app = app.clone();
                // The view may have to be read from its server first.
                tauri::async_runtime::spawn(async move { responder.respond(app.app_response(&request).await) });
            }
        })
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!("../tauri.conf.json"))
        .expect("the Tauri application could not be built");
    app.attach(Arc::new(window::TauriWindow(tauri_app.handle().clone())));
    app.keep_layout_saved();
    // Servers' list_changed notifications reach the window, which re-lists their tools.
    if let Some(forward) = app.forward_server_changes() {
        tauri::async_runtime::spawn(forward);
    }
    // The proxy on the same data dir asks the user and shows its calls through this window.
    let app_link = app_link::serve(&app);
    tauri_app.run(move |_handle, event| {
        if let tauri::RunEvent::Exit = event {
            if let Some(task) = &app_link {
                task.abort();
            }
            app.exiting();
            if let Some(host) = app.shared_host() {
                tauri::async_runtime::block_on(host.shutdown());
            }
        }
    });
}
