//! The app without a window: a recorder stands in for it (`Window`), a real host and store live
//! in a temporary data dir.

use std::{
    path::Path,
    sync::{Arc, Mutex},
    time::Duration,
};

use mcp_canvas_app::{
    questions::{Answer, Asked, Question, QuestionKind, Questions},
    App, AppEvent, EmitError, Window, WindowSlot,
};
use mcp_canvas_canvas::{CanvasIntent, CanvasView, PinnedDashboard, TabContent, TabId};
use mcp_canvas_config::allowlist::DashboardAccess;
use mcp_canvas_host::{app_link::AppRequests, Host, HostOptions};
use mcp_canvas_wire::{CallOutcome, ElicitationAnswer, ElicitationChoice};
use mcp_canvas_store::{NewArtifact, Persistence};
use serde_json::json;

/// The window, as a list of what it heard.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<AppEvent>>,
    closed: bool,
}

impl Window for Recorder {
    fn emit(&self, event: AppEvent) -> Result<(), EmitError> {
        self.events.lock().unwrap().push(event);
        Ok(())
    }

    fn is_open(&self) -> bool {
        !self.closed
    }
}

impl Recorder {
    fn take(&self) -> Vec<AppEvent> {
        std::mem::take(&mut self.events.lock().unwrap())
    }

    fn canvases(&self) -> Vec<CanvasView> {
        self.take().into_iter().filter_map(|e| if let AppEvent::CanvasChanged(view) = e { Some(view) } else { None }).collect()
    }
}

fn app_at(dir: &Path) -> (Arc<App>, Arc<Recorder>) {
    let app = App::new(|frontends| {
        Host::open(HostOptions { data_dir: dir.to_owned(), call_timeout: Duration::from_secs(600), session: None })
            .map(|host| Arc::new(frontends.install(host)))
            .map_err(|e| e.to_string())
    });
    let recorder = Arc::new(Recorder::default());
    app.attach(recorder.clone());
    (Arc::new(app), recorder)
}

fn store_png(app: &App, name: &str) -> String {
    let host = app.host().unwrap();
    let new = NewArtifact { name, mime: "image/png", server: "demo", tool: "t", call_id: "c1", session_id: "s", description: None, persistence: Persistence::Session, now_ms: 1 };
    // Bytes of its own (the same bytes from the same server are the same artifact).
    let bytes = [&b"\x89PNG\r\n\x1a\n not really "[..], name.as_bytes()].concat();
    host.store().put(new, &bytes[..]).unwrap().id
}

fn outcome(call_id: &str, artifact: &str, mode: &str) -> CallOutcome {
    serde_json::from_value(json!({
        "call_id": call_id, "server": "demo", "tool": "render_chart",
        "summary": "one chart", "results": null, "texts": [],
        "artifacts": [{
            "id": artifact, "name": format!("{artifact}.png"), "mime": "image/png", "size": 10, "sha256": "00",
            "description": null, "viewer": "image", "source": "content[0]", "audience": "both",
            "pages": null, "width": null, "height": null
        }],
        "display": { "open_canvas": true, "primary": artifact, "mode": mode, "viewer": "image" },
        "dashboard": null, "needs_input": null, "error": null, "kind": null, "warnings": [], "meta": null
    }))
    .unwrap()
}

fn artifact_ids(view: &CanvasView) -> Vec<Vec<String>> {
    view.panes
        .iter()
        .map(|p| {
            p.tabs
                .iter()
                .map(|t| match &t.content {
                    TabContent::Artifact(a) => a.artifact_id.clone(),
                    TabContent::Dashboard(d) => d.dashboard_id.clone(),
                    TabContent::App(a) => format!("app:{}", a.app_id),
                })
                .collect()
        })
        .collect()
}

#[test]
fn an_applied_outcome_reaches_the_window_as_one_pushed_canvas() {
    let dir = tempfile::tempdir().unwrap();
    let (app, window) = app_at(dir.path());
    app.apply_outcome(&outcome("call-1", "demo_aaa", "replace"));
    let pushed = window.canvases();
    assert_eq!(pushed.len(), 1, "one change, one push");
    assert_eq!(artifact_ids(&pushed[0]), vec![vec!["demo_aaa".to_owned()]]);
    assert_eq!(pushed[0], app.canvas_view().unwrap(), "what was pushed is the state");

    app.apply_outcome(&outcome("call-2", "demo_bbb", "split"));
    let pushed = window.canvases();
    assert_eq!(artifact_ids(&pushed[0]), vec![vec!["demo_aaa".to_owned()], vec!["demo_bbb".to_owned()]]);
}

#[test]
fn intents_push_the_new_canvas_and_a_refused_one_pushes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (app, window) = app_at(dir.path());
    app.apply_outcome(&outcome("call-1", "demo_aaa", "replace"));
    app.apply_outcome(&outcome("call-2", "demo_bbb", "append"));
    window.take();
    let tab = app.canvas_view().unwrap().panes[0].tabs[0].id;
    app.canvas_intent(CanvasIntent::CloseTab { tab }).unwrap();
    let pushed = window.canvases();
    assert_eq!(artifact_ids(&pushed[0]), vec![vec!["demo_bbb".to_owned()]]);
    let refused = app.canvas_intent(CanvasIntent::CloseTab { tab: TabId(9999) }).unwrap_err();
    assert!(refused.message.contains("9999"), "{refused}");
    assert!(window.take().is_empty());
}

#[tokio::test]
async fn opening_and_deleting_a_stored_artifact_push_the_canvas() {
    let dir = tempfile::tempdir().unwrap();
    let (app, window) = app_at(dir.path());
    let id = store_png(&app, "chart.png");
    app.artifact_open(id.clone()).await.unwrap();
    assert_eq!(artifact_ids(&window.canvases()[0]), vec![vec![id.clone()]]);
    app.artifact_remove(id.clone()).await.unwrap();
    assert_eq!(window.canvases()[0].panes[0].tabs.len(), 0, "the deleted artifact's tab closed");
    assert!(app.artifact_open(id).await.is_err());
    assert!(window.take().is_empty());
}

#[test]
fn a_proxied_call_is_applied_then_announced() {
    let dir = tempfile::tempdir().unwrap();
    let (app, window) = app_at(dir.path());
    app.show(outcome("proxy-1", "demo_ccc", "replace"), None);
    let events = window.take();
    assert!(matches!(&events[..], [AppEvent::CanvasChanged(view), AppEvent::ProxiedCall(call)] if artifact_ids(view) == vec![vec!["demo_ccc".to_owned()]] && call.call_id == "proxy-1"), "{events:?}");
}

fn pinned_dashboard(app: &App) -> TabId {
    let pinned = PinnedDashboard { dashboard_id: "d1".into(), url: "http://127.0.0.1:8765/dashboard?token=t0k3n".into(), title: Some("D".into()) };
    app.canvas().restore_pinned(&[pinned])[0]
}

#[test]
fn a_dashboard_of_an_origin_not_on_the_allowlist_is_refused_until_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let (app, _window) = app_at(dir.path());
    let tab = pinned_dashboard(&app);
    match app.dashboard_access(tab).unwrap() {
        DashboardAccess::Refused { origin, can_allow, .. } => {
            assert_eq!(origin.as_deref(), Some("http://127.0.0.1:8765"));
            assert!(can_allow);
        }
        allowed => panic!("refused by default, got {allowed:?}"),
    }
    let view = app.allowlist_add("http://127.0.0.1:8765".into(), Some(tab)).unwrap();
    assert_eq!(view.origins, vec!["http://127.0.0.1:8765".to_owned()]);
    match app.dashboard_access(tab).unwrap() {
        DashboardAccess::Allowed { src, .. } => assert_eq!(src, "http://127.0.0.1:8765/dashboard?token=t0k3n"),
        refused => panic!("allowed now, got {refused:?}"),
    }
    // Another origin (another port) still is not.
    assert!(!app.navigation_guard().allows(&"http://127.0.0.1:8766/".parse().unwrap()));
    assert!(app.navigation_guard().allows(&"http://127.0.0.1:8765/x".parse().unwrap()));
    app.allowlist_remove("http://127.0.0.1:8765".into()).unwrap();
    assert!(matches!(app.dashboard_access(tab).unwrap(), DashboardAccess::Refused { .. }));
    assert!(app.dashboard_access(TabId(9999)).unwrap_err().message.contains("no tab"));
}

#[test]
fn the_layout_is_saved_at_exit_and_comes_back_without_deleted_artifacts() {
    let dir = tempfile::tempdir().unwrap();
    let (kept, gone) = {
        let (app, _window) = app_at(dir.path());
        let kept = store_png(&app, "kept.png");
        let gone = store_png(&app, "gone.png");
        app.apply_outcome(&outcome("c1", &kept, "replace"));
        app.apply_outcome(&outcome("c2", &gone, "split"));
        app.exiting();
        app.host().unwrap().store().remove(&gone).unwrap();
        (kept, gone)
    };
    let (app, _window) = app_at(dir.path());
    let ids = artifact_ids(&app.canvas_view().unwrap()).concat();
    assert_eq!(ids, vec![kept], "{gone} was deleted since");
}

#[tokio::test]
async fn the_scheme_serves_an_artifact_with_its_mime_type_and_csp_and_404_for_an_unknown_id() {
    let dir = tempfile::tempdir().unwrap();
    let (app, _window) = app_at(dir.path());
    let id = store_png(&app, "chart.png");
    let get = |path: &str, origin: Option<&str>| {
        let mut request = http::Request::builder().uri(format!("artifact://localhost/{path}"));
        if let Some(origin) = origin {
            request = request.header(http::header::ORIGIN, origin);
        }
        app.artifact_response(&request.body(Vec::new()).unwrap())
    };
    let response = get(&id, Some("tauri://localhost"));
    assert_eq!(response.status(), http::StatusCode::OK);
    assert_eq!(response.headers()[http::header::CONTENT_TYPE], "image/png");
    let csp = response.headers()[http::header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'") && csp.contains("sandbox"), "{csp}");
    assert_eq!(response.headers()[http::header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(response.headers()[http::header::ACCESS_CONTROL_ALLOW_ORIGIN], "tauri://localhost");
    assert_eq!(response.body().as_slice(), b"\x89PNG\r\n\x1a\n not really chart.png");
    // Another origin (a dashboard, a sandboxed document) may not read it.
    assert!(get(&id, Some("null")).headers().get(http::header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    assert_eq!(get("demo_000000000000", None).status(), http::StatusCode::NOT_FOUND);
    assert_eq!(get("../etc", None).status(), http::StatusCode::BAD_REQUEST);
    assert_eq!(get(&format!("{id}/nonsense"), None).status(), http::StatusCode::NOT_FOUND);
    assert_eq!(get(&format!("{id}/sanitized"), None).status(), http::StatusCode::BAD_REQUEST, "a PNG is not a document");
}

#[test]
fn unknown_servers_are_refused_before_the_host_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (app, _window) = app_at(dir.path());
    let refused = app.set_server_timeout("nope".into(), Some(3.0)).unwrap_err();
    assert!(refused.message.contains("no server named `nope`"), "{refused}");
}

#[test]
fn a_call_token_that_is_not_running_cannot_be_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (app, _window) = app_at(dir.path());
    assert!(app.cancel_call("t1".into()).unwrap_err().message.contains("no call with the token t1"));
}

// The question queue.

fn queue(window: Option<Arc<Recorder>>, timeout: Duration) -> Arc<Questions> {
    let slot = WindowSlot::default();
    if let Some(window) = window {
        slot.attach(window);
    }
    Arc::new(Questions::with_timeout(slot, timeout))
}

fn confirm_question() -> Question {
    Question::Confirm { server: "demo".into(), tool: "purge_cache".into(), arguments: serde_json::Map::new(), on_behalf_of: "the MCP Canvas proxy".into() }
}

/// Waits until the queue has a pending question and returns its id.
async fn pending_id(questions: &Questions) -> (String, QuestionKind) {
    for _ in 0..200 {
        if let Some(open) = questions.pending().into_iter().next() {
            return open;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("no question became pending");
}

#[tokio::test]
async fn a_question_is_pending_until_answered_and_its_id_then_unknown() {
    let window = Arc::new(Recorder::default());
    let questions = queue(Some(window.clone()), Duration::from_secs(60));
    let asker = tokio::spawn({
        let questions = questions.clone();
        async move { questions.ask(confirm_question()).await }
    });
    let (id, kind) = pending_id(&questions).await;
    assert_eq!(kind, QuestionKind::Confirm);
    assert!(id.starts_with('c'), "{id}");
    assert!(matches!(&window.take()[..], [AppEvent::ConfirmRequest(prompt)] if prompt.id == id && prompt.tool == "purge_cache"));
    // An answer of another kind does not fit, and the question stays open.
    let wrong = questions.answer(&id, Answer::Elicitation(ElicitationAnswer { action: ElicitationChoice::Accept, content: None })).unwrap_err();
    assert!(wrong.message.contains("does not fit"), "{wrong}");
    assert_eq!(questions.pending().len(), 1);
    questions.answer(&id, Answer::Confirm(true)).unwrap();
    assert_eq!(asker.await.unwrap(), Asked::Answered(Answer::Confirm(true)));
    assert!(questions.pending().is_empty());
    assert!(window.take().is_empty(), "an answered question needs no closed event");
    let unknown = questions.answer(&id, Answer::Confirm(false)).unwrap_err();
    assert!(unknown.message.contains("no longer open"), "{unknown}");
    assert!(questions.answer("e42", Answer::Confirm(false)).is_err());
}

#[tokio::test]
async fn a_question_whose_asker_stops_waiting_is_closed_in_the_window() {
    let window = Arc::new(Recorder::default());
    let questions = queue(Some(window.clone()), Duration::from_secs(60));
    let asker = tokio::spawn({
        let questions = questions.clone();
        async move { questions.ask(Question::Form(form_request())).await }
    });
    let (id, kind) = pending_id(&questions).await;
    assert_eq!(kind, QuestionKind::Form);
    asker.abort();
    let _ = asker.await;
    assert!(questions.pending().is_empty());
    let events = window.take();
    assert!(matches!(&events[..], [AppEvent::ElicitationRequest(_), AppEvent::ElicitationClosed(closed)] if *closed == id), "{events:?}");
    assert!(questions.answer(&id, Answer::Elicitation(ElicitationAnswer { action: ElicitationChoice::Cancel, content: None })).is_err());
}

#[tokio::test]
async fn an_unanswered_question_times_out_and_is_closed() {
    let window = Arc::new(Recorder::default());
    let questions = queue(Some(window.clone()), Duration::from_millis(50));
    assert_eq!(questions.ask(confirm_question()).await, Asked::TimedOut);
    assert!(matches!(&window.take()[..], [AppEvent::ConfirmRequest(_), AppEvent::ConfirmClosed(_)]));
    assert!(!questions.confirm("demo", "purge_cache", &serde_json::Map::new(), "the proxy").await, "no answer means no");
}

#[tokio::test]
async fn without_a_window_nothing_is_asked() {
    let questions = queue(None, Duration::from_secs(60));
    assert!(matches!(questions.ask(confirm_question()).await, Asked::Unavailable(reason) if reason.contains("not ready")));
    let closed = Arc::new(Recorder { closed: true, ..Recorder::default() });
    let questions = queue(Some(closed.clone()), Duration::from_secs(60));
    assert!(matches!(questions.ask(confirm_question()).await, Asked::Unavailable(reason) if reason.contains("not open")));
    assert!(questions.pending().is_empty() && closed.take().is_empty());
}

#[tokio::test]
async fn form_questions_come_with_their_fields_and_answers_reach_the_host_handler() {
    use mcp_canvas_elicitation::{ElicitationHandler, FormAnswer};
    let window = Arc::new(Recorder::default());
    let questions = queue(Some(window.clone()), Duration::from_secs(60));
    let handler = Arc::new(mcp_canvas_app::elicitation::DialogElicitation::new(questions.clone()));
    let asker = tokio::spawn({
        let handler = handler.clone();
        async move { handler.form(&form_request()).await }
    });
    let (id, _) = pending_id(&questions).await;
    let events = window.take();
    let AppEvent::ElicitationRequest(prompt) = &events[0] else { panic!("{events:?}") };
    let prompt = serde_json::to_value(prompt).unwrap();
    assert_eq!(prompt["mode"], "form");
    assert_eq!(prompt["fields"][0]["name"], "name");
    let content = json!({ "name": "Ada" }).as_object().unwrap().clone();
    questions.answer(&id, Answer::Elicitation(ElicitationAnswer { action: ElicitationChoice::Accept, content: Some(content.clone()) })).unwrap();
    assert_eq!(asker.await.unwrap(), FormAnswer::Accept(content));
}

fn form_request() -> mcp_canvas_elicitation::FormRequest {
    mcp_canvas_elicitation::FormRequest {
        server: "demo".into(),
        message: "Who are you?".into(),
        schema: json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] }).as_object().unwrap().clone(),
        attempt: 1,
        problems: Vec::new(),
    }
}

#[test]
fn every_event_has_its_own_name_and_is_sent_as_its_payload() {
    let events = mcp_canvas_app::event_decls();
    let mut names: Vec<_> = events.iter().map(|e| e.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), events.len());
    let event = AppEvent::ConfirmClosed("c1".into());
    assert_eq!(event.name(), "confirm-closed");
    assert_eq!(serde_json::to_value(&event).unwrap(), json!("c1"));
    let canvas = events.iter().find(|e| e.name == "canvas-changed").unwrap();
    assert_eq!(canvas.payload.name, "CanvasView");
}

#[test]
fn an_open_the_user_asks_for_opens_a_tab_beside_the_last_calls_and_no_call_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let (app, window) = app_at(dir.path());
    app.apply_outcome(&outcome("call-1", "demo_aaa", "replace"));
    // A resource opened from the server's panel (its read's id as the call).
    app.show_read(&outcome("read-1", "demo_bbb", "replace"), None);
    app.show_read(&outcome("read-2", "demo_ccc", "replace"), None);
    let pushed = window.canvases();
    assert_eq!(artifact_ids(pushed.last().unwrap()), vec![vec!["demo_aaa".to_owned(), "demo_bbb".to_owned(), "demo_ccc".to_owned()]]);
    // The same resource again shows its tab.
    app.show_read(&outcome("read-3", "demo_bbb", "replace"), None);
    let view = app.canvas_view().unwrap();
    assert_eq!(view.panes[0].tabs.len(), 3);
    assert_eq!(view.panes[0].active().map(|t| t.label.as_str()), Some("demo_bbb.png"));
    // The next call replaces what the previous call opened, not what the user opened.
    app.apply_outcome(&outcome("call-2", "demo_ddd", "replace"));
    assert_eq!(artifact_ids(&app.canvas_view().unwrap()), vec![vec!["demo_ddd".to_owned(), "demo_bbb".to_owned(), "demo_ccc".to_owned()]]);
    // A watched resource read again takes its tab's place.
    app.show_read(&outcome("read-4", "demo_eee", "replace"), Some(&["demo_ccc".to_owned()]));
    assert_eq!(artifact_ids(&app.canvas_view().unwrap()), vec![vec!["demo_ddd".to_owned(), "demo_bbb".to_owned(), "demo_eee".to_owned()]]);
}

#[test]
fn an_apps_json_document_opens_behind_the_app() {
    let dir = tempfile::tempdir().unwrap();
    let (app, _window) = app_at(dir.path());
    let mut call = outcome("call-1", "demo_doc", "replace");
    call.outcome.artifacts[0].viewer = Some(mcp_canvas_contract::Viewer::Json);
    call.outcome.artifacts[0].mime = "application/json".into();
    let view = mcp_canvas_wire::AppCall { resource_uri: Some("ui://demo/view.html".into()), tool_title: Some("Chart".into()), arguments: json!({}), result: json!({ "content": [] }) };
    let in_front = |app: &App| {
        let canvas = app.canvas_view().unwrap();
        matches!(canvas.panes[0].active().map(|t| &t.content), Some(TabContent::App(_)))
    };
    // The App opened as the call started (as `call_tool` opens it), then the result came.
    let tab = mcp_canvas_canvas::AppTab { app_id: "call-1".into(), server: "demo".into(), tool: "render_chart".into(), tool_title: Some("Chart".into()), resource_uri: "ui://demo/view.html".into() };
    app.canvas().open_app("call-1", &tab);
    app.apply_call(&call, Some(&view));
    assert_eq!(artifact_ids(&app.canvas_view().unwrap()), vec![vec!["app:call-1".to_owned(), "demo_doc".to_owned()]]);
    assert!(in_front(&app), "the App stays in front: {:?}", app.canvas_view());
    // The App opened with its result (a proxied call).
    let call = CallOutcome { call_id: "call-2".into(), ..call };
    app.apply_call(&call, Some(&view));
    assert_eq!(artifact_ids(&app.canvas_view().unwrap()), vec![vec!["app:call-2".to_owned(), "demo_doc".to_owned()]]);
    assert!(in_front(&app));
}
