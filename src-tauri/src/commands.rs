//! The commands the window may invoke, generated from the one list in `command_list.rs`: each is a
//! `#[tauri::command]` that calls the method of the same name, with the same arguments, on the
//! managed [`App`] (`mcp-canvas-app`, where what it does lives and is tested). The tests below
//! write the TypeScript wrappers (`ui/src/wire/commands.ts`) and check that
//! `capabilities/main.json` grants exactly these commands.

use std::sync::Arc;

use mcp_canvas_app::{apps::AppLaunch, App};
use mcp_canvas_wire::CommandError;
#[allow(unused_imports)]
use serde_json::{Map, Value};
#[allow(unused_imports)]
use std::collections::HashMap;
#[allow(unused_imports)]
use mcp_canvas_canvas::{CanvasIntent, CanvasView, FocusPlace, TabId};
#[allow(unused_imports)]
use mcp_canvas_config::{allowlist::{AllowlistView, DashboardAccess}, settings::StoreSettings, settings_edit::SettingsView};
use mcp_canvas_client::{health::ServerStatus, trace::{ProtocolFilter, ProtocolPage}};
use mcp_canvas_team::{SyncReport, TeamArtifact, TeamAuditQuery, TeamAuditSource, TeamLogEntry, TeamMember, TeamStatus};
use mcp_canvas_sampling::{sampler::{Approval, ExchangeRecord, Review}, SamplingSettings};
use mcp_canvas_wire::{offers::{CompletionTarget, PromptRead, PromptView, ResourceList, ResourceRead, SkillList, SkillRead, Suggestions}, CallOutcome, ElicitationAnswer, ServerView, SignInView, ToolView};
#[allow(unused_imports)]
use mcp_canvas_store::{ArtifactPage, ArtifactQuery, ArtifactRecord, ArtifactSource, SearchHit, SearchQuery, SearchResults, StorageUsage};

macro_rules! command_fn {
    ($(#[doc = $doc:literal])* async $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty) => {
        $(#[doc = $doc])*
        #[tauri::command]
        async fn $name(app: tauri::State<'_, Arc<App>>, $( $arg: $ty ),*) -> Result<$ret, CommandError> {
            app.$name($( $arg ),*).await
        }
    };
    ($(#[doc = $doc:literal])* sync $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty) => {
        $(#[doc = $doc])*
        #[tauri::command]
        fn $name(app: tauri::State<'_, Arc<App>>, $( $arg: $ty ),*) -> Result<$ret, CommandError> {
            app.$name($( $arg ),*)
        }
    };
    // The App's method is synchronous and does file or SQLite I/O: neither the main thread nor
    // an async worker runs it, tokio's blocking pool does.
    ($(#[doc = $doc:literal])* blocking $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty) => {
        $(#[doc = $doc])*
        #[tauri::command]
        async fn $name(app: tauri::State<'_, Arc<App>>, $( $arg: $ty ),*) -> Result<$ret, CommandError> {
            let app = app.inner().clone();
            tokio::task::spawn_blocking(move || app.$name($( $arg ),*)).await.map_err(mcp_canvas_host::error::join_error)?
        }
    };
}

macro_rules! tauri_commands {
    ($( $(#[doc = $doc:literal])* $kind:ident $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty ; )*) => {
        $( command_fn!($(#[doc = $doc])* $kind $name ( $( $arg : $ty ),* ) -> $ret); )*

        /// The handler for every command in the list.
        pub fn handler() -> impl Fn(tauri::ipc::Invoke<tauri::Wry>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$( $name ),*]
        }
    };
}

for_each_command!(tauri_commands);

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_canvas_app::bindings::TsType;

    /// One command as the TypeScript wrappers need it.
    struct CommandDecl {
        name: &'static str,
        docs: &'static [&'static str],
        args: Vec<(&'static str, TsType)>,
        ret: TsType,
    }

    macro_rules! command_decls {
        ($( $(#[doc = $doc:literal])* $kind:ident $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty ; )*) => {
            vec![$( CommandDecl {
                name: stringify!($name),
                docs: &[$( $doc ),*],
                args: vec![$( (stringify!($arg), TsType::of::<$ty>()) ),*],
                ret: TsType::of::<$ret>(),
            } ),*]
        };
    }

    fn commands() -> Vec<CommandDecl> {
        for_each_command!(command_decls)
    }

    fn camel(snake: &str) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in snake.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    }

    fn jsdoc(docs: &[&str], indent: &str) -> String {
        if docs.is_empty() {
            return String::new();
        }
        let lines: Vec<&str> = docs.iter().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect();
        let mut out = format!("{indent}/**\n");
        for line in lines {
            out.push_str(format!("{indent} * {line}").trim_end());
            out.push('\n');
        }
        out.push_str(&format!("{indent} */\n"));
        out
    }

    /// `ui/src/wire/commands.ts`: the commands as typed functions over an `invoke`, and the events
    /// with their payload types.
    fn commands_ts() -> String {
        let commands = commands();
        let events = mcp_canvas_app::event_decls();
        let mut imports: Vec<(String, std::path::PathBuf)> = commands
            .iter()
            .flat_map(|c| c.args.iter().map(|(_, t)| t).chain([&c.ret]))
            .chain(events.iter().map(|e| &e.payload))
            .flat_map(|t| t.imports.clone())
            .collect();
        imports.sort();
        imports.dedup();
        let mut ts = String::from(
            "// Generated from src-tauri/src/command_list.rs and mcp-canvas-app's AppEvent list by\n\
             // `cargo test -p mcp-canvas export_bindings`. Do not edit this file manually.\n",
        );
        for (name, path) in imports {
            let path = path.with_extension("");
            ts.push_str(&format!("import type {{ {name} }} from \"./{}\";\n", path.display()));
        }
        ts.push_str(
            "\n/** Sends a command: Tauri's `invoke` (in `ipc.ts`, the only module that talks to Tauri), or a test's stand-in. */\n\
             export type Invoke = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;\n\n\
             /** The app's commands as typed functions (arguments sent with the camelCase keys Tauri expects).\n\
              * Each rejects with a `CommandError` (`wire/CommandError.ts`): a `kind` to act on and a `message`. */\n\
             export function commands(invoke: Invoke) {\n  return {\n",
        );
        for c in &commands {
            let params: Vec<String> = c.args.iter().map(|(a, t)| format!("{}: {}", param(a), t.name)).collect();
            let keys: Vec<String> = c.args.iter().map(|(a, _)| if camel(a) == param(a) { camel(a) } else { format!("{}: {}", camel(a), param(a)) }).collect();
            let ret = if c.ret.name == "null" { "void".to_owned() } else { c.ret.name.clone() };
            let args = if keys.is_empty() { String::new() } else { format!(", {{ {} }}", keys.join(", ")) };
            ts.push_str(&jsdoc(c.docs, "    "));
            ts.push_str(&format!("    {}: ({}): Promise<{ret}> => invoke<{ret}>(\"{}\"{args}),\n", camel(c.name), params.join(", "), c.name));
        }
        ts.push_str("  };\n}\n\n/** Every event the window hears: name → payload. */\nexport type AppEvents = {\n");
        for e in &events {
            ts.push_str(&jsdoc(e.docs, "  "));
            ts.push_str(&format!("  \"{}\": {};\n", e.name, e.payload.name));
        }
        ts.push_str("};\n\n/** The event names. */\nexport const EVENTS = {\n");
        for e in &events {
            ts.push_str(&format!("  {}: \"{}\",\n", camel(&e.name.replace('-', "_")), e.name));
        }
        ts.push_str("} as const satisfies Record<string, keyof AppEvents>;\n");
        ts
    }

    /// A parameter name TypeScript accepts (`arguments` is reserved in strict code).
    fn param(arg: &str) -> String {
        match camel(arg).as_str() {
            "arguments" | "eval" => format!("{}Text", camel(arg)),
            other => other.to_owned(),
        }
    }

    #[test]
    fn export_bindings_commands() {
        let dir = std::env::var("TS_RS_EXPORT_DIR").expect("TS_RS_EXPORT_DIR is set by .cargo/config.toml");
        let dir = std::path::Path::new(&dir);
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("commands.ts"), commands_ts()).unwrap();
    }

    /// `capabilities/main.json` grants every command and nothing else (plus listening to events).
    /// `UPDATE_CAPABILITIES=1 cargo test -p mcp-canvas export_bindings` rewrites its list.
    #[test]
    fn export_bindings_capabilities_grant_exactly_the_commands() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("capabilities/main.json");
        let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let expected: Vec<String> = commands()
            .iter()
            .map(|c| format!("allow-{}", c.name.replace('_', "-")))
            .chain(["core:event:allow-listen".to_owned(), "core:event:allow-unlisten".to_owned()])
            .collect();
        let granted: Vec<String> = serde_json::from_value(file["permissions"].clone()).unwrap();
        if granted != expected && std::env::var_os("UPDATE_CAPABILITIES").is_some() {
            file["permissions"] = serde_json::json!(expected);
            std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap() + "\n").unwrap();
            return;
        }
        assert_eq!(granted, expected, "capabilities/main.json is stale: `UPDATE_CAPABILITIES=1 cargo test -p mcp-canvas export_bindings` rewrites it from command_list.rs");
    }

    #[test]
    fn every_command_is_named_once() {
        let mut names: Vec<&str> = commands().iter().map(|c| c.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
