//! What a server offers besides tools, as the window's commands: its resources and templates
//! (read one into the canvas, watch one so its tab stays live), its prompts (fill one in, the
//! messages into the canvas), and argument completion for both. Reads go through the host's
//! normalize → store path and reach the canvas exactly like a tool result.

use std::{collections::HashMap, sync::Mutex, time::Duration};

use mcp_canvas_host::{artifact_files, error::{command_error, join_error}, resources::READ_RESOURCE_TOOL, skills::READ_SKILL_TOOL};
use mcp_canvas_wire::{offers::{CompletionTarget, PromptRead, PromptView, ResourceList, ResourceRead, SkillList, SkillRead, Suggestions}, CallOutcome};
use mcp_canvas_client::trace::{ProtocolFilter, ProtocolPage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use mcp_canvas_wire::CommandError;

use crate::{window::AppEvent, App};

/// A watched resource is read again at most this often, however often it changes.
pub const WATCH_MIN_INTERVAL: Duration = Duration::from_millis(500);

/// The watches running, by (server, URI), and what the last read of each resource showed.
#[derive(Default)]
pub struct Watches {
    tasks: Mutex<HashMap<(String, String), tokio::task::AbortHandle>>,
    /// The artifacts the last read of (server, URI) showed: a watch's next read takes their tabs.
    shown: Mutex<HashMap<(String, String), Vec<String>>>,
}

impl Drop for Watches {
    fn drop(&mut self) {
        for (_, task) in self.tasks.get_mut().map(std::mem::take).unwrap_or_default() {
            task.abort();
        }
    }
}

/// What became of a watched resource (the `resource-watch` event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ResourceWatchEvent {
    /// Server name.
    pub server: String,
    /// The URI watched.
    pub uri: String,
    /// `updated` (read again and shown), `failed` (read again and refused: `detail`), `ended` (the
    /// server or connection ended the watch).
    pub state: String,
    /// How many times it was read again since the watch began.
    pub reads: u32,
    /// Why, for `failed` and `ended`.
    pub detail: Option<String>,
    /// For `updated`: the id of the re-read, the call the tabs it now shows were opened (or
    /// shown again) by (`CanvasTab::opened_by`), so the window knows them exactly.
    pub read_id: Option<String>,
}

impl App {
    /// `server`'s resources and templates (every page).
    pub async fn server_resources(&self, server: String) -> Result<ResourceList, CommandError> {
        self.host()?.resources(&server).await.map_err(command_error)
    }

    /// Reads `uri` of `server`, stores it and shows it in the canvas: the user asked to open it,
    /// so it opens in a tab of its own (or its tab is shown), replacing nothing
    /// ([`App::show_read`]).
    pub async fn resource_read(&self, server: String, uri: String) -> Result<ResourceRead, CommandError> {
        self.read_and_show(server, uri, false).await
    }

    /// A read of `uri`, shown as the user's Open, or (`again`: its watch heard it changed) in the
    /// tabs of the last read of it.
    async fn read_and_show(&self, server: String, uri: String, again: bool) -> Result<ResourceRead, CommandError> {
        let read = self.host()?.read_resource(&server, &uri).await.map_err(command_error)?;
        let key = (server.clone(), uri);
        let previous = if again { self.watches.shown.lock().unwrap().get(&key).cloned() } else { None };
        self.show_read(&CallOutcome { call_id: read.read_id.clone(), server, tool: READ_RESOURCE_TOOL.to_owned(), outcome: read.outcome.clone() }, previous.as_deref());
        self.watches.shown.lock().unwrap().insert(key, read.outcome.artifacts.iter().map(|a| a.id.clone()).collect());
        Ok(read)
    }

    /// Suggestions for one argument of a template or prompt while the user types.
    pub async fn complete_argument(&self, server: String, target: CompletionTarget, argument: String, value: String, context: HashMap<String, String>) -> Result<Suggestions, CommandError> {
        self.host()?.complete(&server, &target, &argument, &value, context).await.map_err(command_error)
    }

    /// `server`'s prompts (every page).
    pub async fn server_prompts(&self, server: String) -> Result<Vec<PromptView>, CommandError> {
        self.host()?.prompts(&server).await.map_err(command_error)
    }

    /// Fills in prompt `name`; its messages are stored and shown in the canvas.
    pub async fn prompt_read(&self, server: String, name: String, arguments: Map<String, Value>) -> Result<PromptRead, CommandError> {
        let read = self.host()?.read_prompt(&server, &name, arguments).await.map_err(command_error)?;
        self.show_read(&CallOutcome { call_id: read.read_id.clone(), server, tool: mcp_canvas_host::prompts::GET_PROMPT_TOOL.to_owned(), outcome: read.outcome.clone() }, None);
        Ok(read)
    }

    /// Keeps `uri`'s tab live: each time the server says it changed, it is read again (at most
    /// every [`WATCH_MIN_INTERVAL`]) and shown in the tab of the read before
    /// ([`mcp_canvas_canvas::Canvas::refresh_read`]); each re-read is a `resource-watch` event.
    /// Watching what is already watched does nothing.
    pub async fn resource_watch(self: &std::sync::Arc<Self>, server: String, uri: String) -> Result<(), CommandError> {
        let key = (server.clone(), uri.clone());
        if self.watches.tasks.lock().unwrap().get(&key).is_some_and(|task| !task.is_finished()) {
            return Ok(());
        }
        let mut watch = self.host()?.watch_resource(&server, &uri).await.map_err(command_error)?;
        let app = std::sync::Arc::downgrade(self);
        let task = tokio::spawn(async move {
            let mut reads = 0;
            let detail = loop {
                if watch.changed().await.is_none() {
                    break Some("the server or its connection ended the watch".to_owned());
                }
                let Some(app) = app.upgrade() else { return };
                reads += 1;
                let (state, detail, read_id) = match app.read_and_show(server.clone(), uri.clone(), true).await {
                    Ok(read) => ("updated", None, Some(read.read_id)),
                    Err(e) => ("failed", Some(e.message), None),
                };
                app.window.emit_or_log(AppEvent::ResourceWatch(ResourceWatchEvent { server: server.clone(), uri: uri.clone(), state: state.to_owned(), reads, detail, read_id }));
                drop(app);
                tokio::time::sleep(WATCH_MIN_INTERVAL).await;
            };
            if let Some(app) = app.upgrade() {
                app.watches.tasks.lock().unwrap().remove(&(server.clone(), uri.clone()));
                app.window.emit_or_log(AppEvent::ResourceWatch(ResourceWatchEvent { server, uri, state: "ended".to_owned(), reads, detail, read_id: None }));
            }
        });
        // Another request may have started the same watch while this one subscribed: one wins.
        let mut watches = self.watches.tasks.lock().unwrap();
        if watches.get(&key).is_some_and(|other| !other.is_finished()) {
            task.abort();
        } else {
            watches.insert(key, task.abort_handle());
        }
        Ok(())
    }

    /// Stops watching `uri` (the server is told: unsubscribe, or the listen stream ends).
    pub fn resource_unwatch(&self, server: String, uri: String) -> Result<(), CommandError> {
        if let Some(task) = self.watches.tasks.lock().unwrap().remove(&(server, uri)) {
            task.abort();
        }
        Ok(())
    }

    /// `server`'s protocol log: the messages `filter` asks for, both ways, the oldest after
    /// `filter.after_seq` a bounded page at a time (the view asks again while the page says
    /// `more`); off the main thread: a page may be megabytes of text.
    pub async fn protocol_log(&self, server: String, filter: ProtocolFilter) -> Result<ProtocolPage, CommandError> {
        let host = self.shared()?;
        Ok(tokio::task::spawn_blocking(move || host.protocol_page(&server, &filter)).await.map_err(join_error)??)
    }

    /// Saves `server`'s protocol log as JSON lines where the user picks ("Save as…"); the path,
    /// or null when cancelled.
    pub async fn protocol_export(&self, server: String) -> Result<Option<String>, CommandError> {
        let host = self.host()?;
        host.protocol_page(&server, &ProtocolFilter { limit: Some(1), ..Default::default() })?;
        let dialog = crate::window::SaveDialog {
            title: format!("Save the protocol log of {server}"),
            file_name: artifact_files::safe_file_name(&format!("{server}-protocol.jsonl"), "protocol.jsonl"),
            extension: Some("jsonl".to_owned()),
        };
        let Some(path) = self.choose_save_path(dialog).await? else { return Ok(None) };
        // Megabytes of JSON lines, written and synced: on the blocking pool.
        let (host, written) = (self.shared()?, path.clone());
        tokio::task::spawn_blocking(move || host.protocol_export(&server, &written)).await.map_err(join_error)??;
        Ok(Some(path.display().to_string()))
    }

    /// `server`'s skills as it lists them (nothing of them is read).
    pub async fn server_skills(&self, server: String) -> Result<SkillList, CommandError> {
        Ok(self.host()?.skills(&server).await?)
    }

    /// Reads a skill's `SKILL.md` (`file` null) or one of its files, verified against the
    /// listing (size, digest, frontmatter) before it is stored and shown in the canvas.
    pub async fn skill_read(&self, server: String, skill: String, file: Option<String>) -> Result<SkillRead, CommandError> {
        let read = self.host()?.read_skill(&server, &skill, file.as_deref()).await?;
        self.show_read(&CallOutcome { call_id: read.read_id.clone(), server, tool: READ_SKILL_TOOL.to_owned(), outcome: read.outcome.clone() }, None);
        Ok(read)
    }
}
