//! A resource that changes, so a client's resource watching can be tried: `demo://notes/scratch`,
//! a markdown note shared by every client of this demo process (over HTTP, every session), and
//! the tool `write_note` that replaces it and tells every client watching it — through their `subscriptions/listen` stream when it names the URI
//! (2026-07-28), or with `notifications/resources/updated` after `resources/subscribe` (before).

use rmcp::{
    model::{CallToolResult, ContentBlock, JsonObject, ReadResourceResult, Resource, ResourceContents, ResourceUpdatedNotificationParam, SubscriptionFilter},
    schemars,
    service::SubscriptionSink,
    tool, tool_router, ErrorData, Peer, RoleServer,
};
use serde::Deserialize;

use super::{
    arguments::{parse as parse_args, schema},
    DemoServer,
};

/// The note's URI.
pub(super) const NOTE_URI: &str = "demo://notes/scratch";

/// The note and who watches it.
#[derive(Default)]
pub(super) struct Notes {
    text: String,
    /// Connections (by [`DemoServer`]'s `connection` number) that sent `resources/subscribe` for
    /// the note (before 2026-07-28).
    subscribers: Vec<(u64, Peer<RoleServer>)>,
    /// `subscriptions/listen` streams that name the note (2026-07-28), numbered (request ids
    /// repeat across sessions).
    sinks: Vec<(u64, SubscriptionSink)>,
}

/// The process's note.
pub(super) fn shared() -> std::sync::Arc<std::sync::Mutex<Notes>> {
    static NOTES: std::sync::OnceLock<std::sync::Arc<std::sync::Mutex<Notes>>> = std::sync::OnceLock::new();
    NOTES.get_or_init(Default::default).clone()
}

/// Whether a listen stream watches the note.
pub(super) fn watches(sink: &SubscriptionSink) -> bool {
    sink.accepted().resource_subscriptions.iter().flatten().any(|uri| uri == NOTE_URI)
}

impl Notes {
    fn current(&self) -> &str {
        if self.text.is_empty() {
            "# Scratch note\n\nNothing written yet: call `write_note`.\n"
        } else {
            &self.text
        }
    }
}

pub(super) fn resource(notes: &Notes) -> Resource {
    Resource::new(NOTE_URI, "scratch.md")
        .with_title("Scratch note")
        .with_description("A note `write_note` replaces; subscribe to see it change")
        .with_mime_type("text/markdown")
        .with_size(notes.current().len() as u64)
}

pub(super) fn read(notes: &Notes) -> ReadResourceResult {
    ReadResourceResult::new(vec![ResourceContents::text(notes.current(), NOTE_URI).with_mime_type("text/markdown")])
}

/// Whether the filter a client asked for may have the note in it (what the demo accepts).
pub(super) fn accepted(requested: &SubscriptionFilter) -> Option<Vec<String>> {
    let uris: Vec<String> = requested.resource_subscriptions.iter().flatten().filter(|uri| *uri == NOTE_URI).cloned().collect();
    (!uris.is_empty()).then_some(uris)
}

impl DemoServer {
    pub(super) fn subscribe_to_note(&self, uri: &str, peer: Peer<RoleServer>) -> Result<(), ErrorData> {
        if uri != NOTE_URI {
            return Err(ErrorData::invalid_params(format!("only {NOTE_URI} changes; `{uri}` cannot be subscribed to"), None));
        }
        let mut notes = self.notes.lock().unwrap();
        // Subscribing twice is one subscription.
        if !notes.subscribers.iter().any(|(c, _)| *c == self.connection) {
            notes.subscribers.push((self.connection, peer));
        }
        Ok(())
    }

    pub(super) fn unsubscribe_from_note(&self) {
        let connection = self.connection;
        self.notes.lock().unwrap().subscribers.retain(|(c, _)| *c != connection);
    }

    pub(super) fn watch_note(&self, sink: SubscriptionSink) {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let number = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.notes.lock().unwrap().sinks.push((number, sink));
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteNoteArgs {
    /// The note's new markdown.
    #[schemars(length(min = 1, max = 100000))]
    pub text: String,
}

#[tool_router(router = notes_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        name = "write_note",
        description = "Replaces the scratch note (the resource demo://notes/scratch) and tells the \
            clients watching it that it changed. Says how many it told.",
        input_schema = schema::<WriteNoteArgs>(),
        annotations(destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn write_note(&self, args: JsonObject) -> Result<CallToolResult, ErrorData> {
        let args: WriteNoteArgs = match parse_args(args) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        let (subscribers, sinks) = {
            let mut notes = self.notes.lock().unwrap();
            notes.text = args.text;
            (notes.subscribers.clone(), notes.sinks.clone())
        };
        let mut told = 0;
        for (_, peer) in subscribers {
            if peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(NOTE_URI)).await.is_ok() {
                told += 1;
            }
        }
        let mut closed = Vec::new();
        for (number, sink) in sinks {
            if sink.notify_resource_updated(NOTE_URI).await.is_ok() {
                told += 1;
            } else {
                closed.push(number);
            }
        }
        // A closed stream goes.
        self.notes.lock().unwrap().sinks.retain(|(number, _)| !closed.contains(number));
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("Wrote the note; told {told} watcher(s)."))]))
    }
}
