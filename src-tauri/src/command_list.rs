// Every command the window may invoke, declared once: name, arguments (named as in Rust; the
// window sends them camelCase) and what it resolves to (errors are `CommandError`: kind + message). `async` commands run
// on the async runtime, `sync` ones on the main thread, in order — only those that touch nothing
// but memory (a file or SQLite would freeze the window) —, `blocking` ones (a synchronous App
// method that reads or writes a file or the store) on tokio's blocking pool.
//
// From this one list come: the app manifest's command list (`build.rs`, through `include!`), the
// `#[tauri::command]` functions and their handler (`commands.rs`; each calls the method of the
// same name on `mcp_canvas_app::App`), the typed TypeScript wrappers (`ui/src/wire/commands.ts`)
// and the check that `capabilities/main.json` grants exactly these (`commands.rs`' tests).
// A type named here must be in scope in `commands.rs` and derive `ts_rs::TS`.
//
// `for_each_command!(m)` expands to `m! { <the list> }`.
macro_rules! for_each_command {
    ($m:ident) => {
        $m! {
            /// The configured servers.
            async list_servers() -> Vec<ServerView>;
            /// A server's tools (starts it when needed).
            async list_tools(server: String) -> Vec<ToolView>;
            /// Calls a tool. `arguments` is the JSON text the user typed; `confirmed`: the user saw
            /// the exact arguments and agreed to run a tool that may change data; `call_token` names
            /// the call for its `call-progress` events and `cancel_call`. The outcome is applied to
            /// the canvas (`canvas-changed`) before the promise resolves.
            async call_tool(server: String, tool: String, arguments: String, confirmed: bool, call_token: String) -> CallOutcome;
            async app_launch(app_id: String) -> AppLaunch;
            async app_call_tool(app_id: String, name: String, arguments: Value) -> Value;
            async app_read_resource(app_id: String, uri: String) -> Value;
            async app_open_link(app_id: String, url: String) -> bool;
            /// `ui/download-file` from an App: asked first, then stored and opened in the canvas.
            async app_download_file(app_id: String, contents: Vec<Value>) -> Value;
            /// `sampling/createMessage` from an App's view: the server's policy, approval and transcript.
            async app_create_message(app_id: String, request: Value) -> Value;
            async app_view_tool(app_id: String, tool: String, arguments: Value, result: Value) -> CallOutcome;
            sync app_update_model_context(app_id: String, context: Value) -> ();
            sync app_event(app_id: String, action: String, details: Value) -> ();
            /// The canvas (panes, tabs) as it is now; afterwards it arrives as `canvas-changed`.
            sync canvas_view() -> CanvasView;
            /// A user intent on the canvas (activate, close, move, split, pin...); the new canvas
            /// arrives as `canvas-changed`.
            sync canvas_intent(intent: CanvasIntent) -> ();
            /// Whether the dashboard in `tab` may load (its origin is allowlisted), and its iframe `src` then.
            blocking dashboard_access(tab: TabId) -> DashboardAccess;
            /// The dashboard origin allowlist (re-read from settings.toml).
            blocking allowlist_view() -> AllowlistView;
            /// Allows an origin (the user confirmed); `tab`: the dashboard that asked, for the audit log.
            blocking allowlist_add(origin: String, tab: Option<TabId>) -> AllowlistView;
            /// Stops allowing an origin.
            blocking allowlist_remove(origin: String) -> AllowlistView;
            /// The user's answer to the question `id` of an `elicitation-request`.
            sync answer_elicitation(id: String, answer: ElicitationAnswer) -> ();
            /// The user's decision on the confirmation `id` of a `confirm-request`.
            sync answer_confirmation(id: String, confirmed: bool) -> ();
            /// The user's decision on the sampling request `id` of a `sampling-request`: approve
            /// (possibly edited, another model, review the completion) or reject with a reason.
            sync answer_sampling(id: String, approval: Approval) -> ();
            /// The user's decision on the completion `id` of a `sampling-review`.
            sync answer_sampling_review(id: String, review: Review) -> ();
            /// A server's sampling transcript (every server's for null), newest first.
            async sampling_log(server: Option<String>) -> Vec<ExchangeRecord>;
            /// `[sampling]` as in effect: providers, the default policy, per-server policies.
            sync sampling_settings_view() -> SamplingSettings;
            /// Replaces `[sampling]` in settings.toml whole (refused, nothing written, when a
            /// policy names a missing provider or a provider has no models); in effect at once.
            blocking sampling_settings_set(sampling: SamplingSettings) -> SamplingSettings;
            /// Stores a provider's API key in the OS keyring (null deletes it); settings.toml only
            /// records that the key is there. The key is never sent back.
            async sampling_set_key(provider: String, key: Option<String>) -> SamplingSettings;
            /// Cancels the running call started with `call_token`; its `call_tool` then fails as cancelled.
            sync cancel_call(call_token: String) -> ();
            /// One page of stored artifacts, across sessions, filtered and sorted as asked.
            async artifacts_query(query: ArtifactQuery) -> ArtifactPage;
            /// Full-text search over every stored artifact: hits with where they are and snippets.
            async artifacts_search(query: SearchQuery) -> SearchResults;
            /// The server/tool pairs that produced stored artifacts, with counts.
            async artifacts_sources() -> Vec<ArtifactSource>;
            /// Bytes stored and pinned, against the quota.
            async artifacts_usage() -> StorageUsage;
            /// The team store's state (null with a local store): bucket, catalog, pending uploads.
            async team_status() -> Option<TeamStatus>;
            /// One page (100) of the team's artifacts this member may see, newest first.
            async team_artifacts(member: Option<String>, offset: u32) -> Vec<TeamArtifact>;
            /// Full-text search over the team's artifacts this member may see (team store only).
            async team_search(query: SearchQuery) -> Vec<SearchHit>;
            /// The team's members and their artifact counts.
            async team_members() -> Vec<TeamMember>;
            /// The team's audit trail this member may see: every member's calls and sampling
            /// exchanges, newest first, filtered as asked (a call naming a teammate's private
            /// artifact is not there).
            async team_audit(query: TeamAuditQuery) -> Vec<TeamLogEntry>;
            /// The members, servers and tools in the team's audit trail (the view's filters).
            async team_audit_sources() -> Vec<TeamAuditSource>;
            /// Keeps one of my team artifacts to myself, or shares it again.
            async team_set_private(id: String, keep_private: bool) -> ();
            /// Uploads what is queued now.
            async team_sync() -> SyncReport;
            /// `[store]` as settings.toml says (in effect from the next start).
            sync store_settings_view() -> StoreSettings;
            /// Replaces `[store]` (refused, nothing written, when a team store lacks its bucket,
            /// catalog or team, or the catalog URL carries a password); in effect at the next start.
            blocking store_settings_set(store: StoreSettings) -> StoreSettings;
            /// Keeps the team catalog's password in the OS keyring; it is never sent back.
            async store_set_password(password: String) -> ();
            /// One artifact's catalog record.
            async artifact_record(id: String) -> ArtifactRecord;
            /// Lets AI hosts' models behind the proxy find and send on a file, or takes it back.
            async artifact_set_model_shared(id: String, shared: bool) -> ();
            /// Whether AI hosts' models may find and send on a file.
            async artifact_model_shared(id: String) -> bool;
            /// Pins or unpins an artifact.
            async artifact_set_pinned(id: String, pinned: bool) -> ArtifactRecord;
            /// Deletes an artifact; its tabs close (`canvas-changed`).
            async artifact_remove(id: String) -> ();
            /// Opens a stored artifact in the focused pane (`canvas-changed`).
            async artifact_open(id: String) -> ();
            /// Opens a stored artifact with its viewer at a search hit (a page, a row, a line).
            async artifact_open_at(id: String, place: FocusPlace, position: u32) -> ();
            /// Files for a tool's file argument, picked in the native open dialog (several for a
            /// list), stored as artifacts; empty when cancelled.
            async artifact_import_pick(multiple: bool) -> Vec<ArtifactRecord>;
            /// Files dropped from the desktop (their paths), stored as artifacts.
            async artifact_import_paths(paths: Vec<String>) -> Vec<ArtifactRecord>;
            /// "Save as…" through a native dialog opened by Rust; the path written, or null when cancelled.
            async artifact_save_as(id: String) -> Option<String>;
            /// Opens a private copy with the system application; the copy's path.
            async artifact_open_external(id: String) -> String;
            /// Where each configured server stands, with its failures.
            async server_statuses() -> Vec<ServerStatus>;
            /// Stops a server and starts it again; fails with why it could not start.
            async restart_server(server: String) -> ();
            /// A server's sign-in state (OAuth; null for servers that do not sign in).
            async sign_in_state(server: String) -> Option<SignInView>;
            /// Signs in to a server in the system browser (`sign-in-started` carries the page's
            /// URL); resolves when the browser came back and the server accepted the token.
            async sign_in(server: String) -> SignInView;
            /// Forgets a server's tokens.
            async sign_out(server: String) -> SignInView;
            /// The end of a server's log (64 KB at most).
            async server_log(server: String) -> String;
            /// Stops a server now; its next use starts it again.
            async stop_server(server: String) -> ();
            /// Sets a server's own call timeout in servers.json (null: the default).
            blocking set_server_timeout(server: String, seconds: Option<f64>) -> ();
            /// A server's resources and resource templates (every page).
            async server_resources(server: String) -> ResourceList;
            /// Reads a resource (or a `resource_link`'s URI): stored, and shown in the canvas as a
            /// tool result would be (`canvas-changed` before the promise resolves).
            async resource_read(server: String, uri: String) -> ResourceRead;
            /// Keeps a resource's tab live: read again each time the server says it changed
            /// (`resource-watch` events); watching what is already watched does nothing.
            async resource_watch(server: String, uri: String) -> ();
            /// Stops watching a resource.
            sync resource_unwatch(server: String, uri: String) -> ();
            /// Suggestions for a template variable or prompt argument as the user types (a slow
            /// or failing server gives none, with a note).
            async complete_argument(server: String, target: CompletionTarget, argument: String, value: String, context: HashMap<String, String>) -> Suggestions;
            /// A server's prompts (every page).
            async server_prompts(server: String) -> Vec<PromptView>;
            /// Fills in a prompt: its messages stored (a Markdown transcript, images and resources
            /// beside it) and shown in the canvas; the Markdown and JSON come back for copying.
            async prompt_read(server: String, name: String, arguments: Map<String, Value>) -> PromptRead;
            /// A server's skills (`io.modelcontextprotocol/skills`) as it lists them; nothing is read.
            async server_skills(server: String) -> SkillList;
            /// Reads a skill's SKILL.md (`file` null) or one of its files, verified against the
            /// listing (size, digest, frontmatter), then stored and shown in the canvas; a file
            /// that does not match is refused and nothing of it is shown.
            async skill_read(server: String, skill: String, file: Option<String>) -> SkillRead;
            /// A server's protocol log: its JSON-RPC messages both ways (time, direction, method,
            /// size, latency; redacted, base64 as notes), filtered by method and call.
            async protocol_log(server: String, filter: ProtocolFilter) -> ProtocolPage;
            /// Saves a server's protocol log as JSON lines through a "Save as…" dialog; the path,
            /// or null when cancelled.
            async protocol_export(server: String) -> Option<String>;
            /// The settings in effect.
            sync settings_view() -> SettingsView;
            /// Changes one setting (`section.name`); null restores its default.
            blocking settings_set(key: String, value: Option<String>) -> SettingsView;
        }
    };
}
