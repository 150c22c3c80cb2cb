//! MCP Canvas, the desktop app: a thin Tauri shell over `mcp-canvas-host`.
//!
//! This crate only wires things to the window: the commands the UI invokes (`commands.rs`), the
//! `artifact:` URI scheme that serves stored artifacts to the webview (`artifact_scheme.rs`), and
//! live dashboards — origin allowlist, navigation guard, audit, pinned ones (`dashboards.rs`) —
//! servers' elicitation requests as dialogs (`elicitation.rs`), and the app link the proxy talks
//! to: its confirmations (`confirmation.rs`) and its calls shown in the canvas (`app_link.rs`);
//! both dialogs ask the window through `window_questions.rs`.
//! Everything else lives in `crates/` and is tested without a window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod app_link;
mod artifact_commands;
mod artifact_scheme;
mod commands;
mod confirmation;
mod dashboards;
mod elicitation;
mod layout;
mod server_commands;
mod settings_commands;
mod window_questions;
mod window_state;

use std::{sync::Arc, time::Duration};

use mcp_canvas_host::{data_dir, Host, HostOptions};

use crate::{app_link::WindowRequests, confirmation::DialogConfirmation, elicitation::DialogElicitation};

/// What the window talks to. `Err` when the data dir could not be opened: the window still opens
/// and shows the reason instead of the app vanishing.
pub(crate) type HostState = Result<Arc<Host>, String>;

fn open_host(elicitation: Arc<DialogElicitation>) -> HostState {
    let data_dir = data_dir::resolve(None).map_err(|e| e.to_string())?;
    Host::open(HostOptions { data_dir, call_timeout: Duration::from_secs(120), session: None })
        // Servers' questions to the user become dialogs in the window.
        .map(|host| Arc::new(host.with_elicitation(elicitation)))
        .map_err(|e| e.to_string())
}

fn main() {
    let elicitation = Arc::new(DialogElicitation::default());
    let confirmation = Arc::new(DialogConfirmation::default());
    let requests = Arc::new(WindowRequests::new(elicitation.clone(), confirmation.clone()));
    let host = open_host(elicitation.clone());
    if let Err(reason) = &host {
        eprintln!("mcp-canvas: {reason}");
    }
    let store = host.as_ref().ok().map(|h| h.store().clone());
    let linked_host = host.as_ref().ok().cloned();
    if let Ok(host) = &host {
        // Housekeeping off the start-up path: old sessions, quota, orphaned blobs.
        let host = host.clone();
        std::thread::spawn(move || {
            if let Err(e) = host.tidy_store() {
                eprintln!("mcp-canvas: tidying the artifact store failed: {e}");
            }
        });
    }
    // Pinned dashboards of the last run come back (without their tokens) before the window asks.
    let dashboards = dashboards::Dashboards::new(host.as_deref().ok());
    // The tabs and panes as the user left them (artifacts deleted since are left out).
    let canvas = commands::CanvasState::new(layout::load(host.as_deref().ok()));
    dashboards.restore(host.as_deref().ok(), &mut canvas.lock());
    let scheme_host = host.as_ref().ok().cloned();
    let app = tauri::Builder::default()
        .plugin(dashboards.navigation_guard())
        // Native "Save as…" dialogs, opened from Rust only (no dialog permission for the window).
        .plugin(tauri_plugin_dialog::init())
        // The window comes back at the size and place the user left it (no JS API, no permission).
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .on_window_event({
            let saver = window_state::SaveOnChange::default();
            move |window, event| saver.on_event(tauri::Manager::app_handle(window), event)
        })
        .manage(host)
        .manage(canvas)
        .manage(dashboards)
        .manage(elicitation.clone())
        .manage(confirmation.clone())
        .manage(commands::RunningCalls::default())
        .register_asynchronous_uri_scheme_protocol(artifact_scheme::SCHEME, move |_ctx, request, responder| {
            let store = store.clone();
            // Read per request: the user may change it in Settings while the app runs.
            let remote_images = scheme_host.as_ref().is_some_and(|h| h.settings().render.allow_remote_images);
            // Reading a blob is file I/O: keep it off the main thread.
            std::thread::spawn(move || responder.respond(artifact_scheme::respond(store.as_deref(), remote_images, &request)));
        })
        .invoke_handler(tauri::generate_handler![
            commands::list_servers,
            commands::list_tools,
            commands::call_tool,
            commands::canvas_view,
            commands::canvas_intent,
            commands::dashboard_access,
            commands::allowlist_view,
            commands::allowlist_add,
            commands::allowlist_remove,
            commands::answer_elicitation,
            commands::answer_confirmation,
            commands::cancel_call,
            artifact_commands::artifacts_query,
            artifact_commands::artifacts_sources,
            artifact_commands::artifacts_usage,
            artifact_commands::artifact_record,
            artifact_commands::artifact_set_pinned,
            artifact_commands::artifact_remove,
            artifact_commands::artifact_open,
            artifact_commands::artifact_save_as,
            artifact_commands::artifact_open_external,
            server_commands::server_statuses,
            server_commands::restart_server,
            server_commands::server_log,
            server_commands::stop_server,
            server_commands::set_server_timeout,
            settings_commands::settings_view,
            settings_commands::settings_set
        ])
        .build(tauri::generate_context!("../tauri.conf.json"))
        .expect("the Tauri application could not be built");
    elicitation.attach(app.handle().clone());
    layout::keep_saved(app.handle().clone());
    if let Ok(host) = tauri::Manager::state::<HostState>(&app).inner() {
        settings_commands::apply_theme(app.handle(), &host.settings());
    }
    confirmation.attach(app.handle().clone());
    requests.attach(app.handle().clone());
    // Servers' list_changed notifications reach the window, which re-lists their tools.
    if let Some(host) = &linked_host {
        server_commands::forward_changes(host, app.handle().clone());
    }
    // The proxy on the same data dir asks the user and shows its calls through this window.
    let app_link = linked_host.and_then(|host| app_link::serve(&host, requests));
    app.run(move |handle, event| {
        if let tauri::RunEvent::Exit = event {
            if let Some(task) = &app_link {
                task.abort();
            }
            use tauri::Manager;
            if let Ok(host) = handle.state::<HostState>().inner().clone() {
                // Session and ephemeral dashboards end with the session; pinned ones come back.
                handle.state::<dashboards::Dashboards>().session_ended(&host, &handle.state::<commands::CanvasState>().lock());
                layout::save(&host, &handle.state::<commands::CanvasState>().lock().layout());
                tauri::async_runtime::block_on(host.shutdown());
            }
        }
    });
}
