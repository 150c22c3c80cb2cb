//! What a server announces: its log messages (`notifications/message`, kept and appended to its
//! log) and that one of its lists changed (`notifications/*/list_changed`).

use std::{
    collections::VecDeque,
    io::Write as _,
    path::PathBuf,
    sync::Mutex,
};

#[allow(deprecated)]
use rmcp::model::LoggingMessageNotificationParam;
use serde::Serialize;
use serde_json::Value;

/// Which list a server said changed (on the wire: `tools`, `resources`, `prompts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ChangedList {
    /// `notifications/tools/list_changed` (the host re-lists them on next use).
    Tools,
    /// `notifications/resources/list_changed`.
    Resources,
    /// `notifications/prompts/list_changed`.
    Prompts,
}

/// A server said one of its lists changed (see [`crate::Host::changes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerChange {
    /// The server's configured name.
    pub server: String,
    /// Which list.
    pub list: ChangedList,
}

/// One `notifications/message` (MCP logging) from a server.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerMessage {
    /// When it arrived, milliseconds since the Unix epoch.
    pub time_ms: i64,
    /// `debug` … `emergency`.
    pub level: String,
    /// The server's logger name, when it gave one.
    pub logger: Option<String>,
    /// What it logged (any JSON; usually a string).
    pub data: Value,
}

/// A server's log messages: the last [`ServerMessages::KEEP`] in memory, all of them appended to
/// its log file (next to what it wrote on stderr).
#[derive(Debug)]
pub struct ServerMessages {
    recent: Mutex<VecDeque<ServerMessage>>,
    log_path: PathBuf,
}

impl ServerMessages {
    /// How many messages are kept in memory.
    pub const KEEP: usize = 200;

    /// Messages for the server logging to `log_path`.
    pub fn new(log_path: PathBuf) -> Self {
        Self { recent: Mutex::new(VecDeque::new()), log_path }
    }

    /// The messages kept, oldest first.
    pub fn recent(&self) -> Vec<ServerMessage> {
        self.recent.lock().unwrap().iter().cloned().collect()
    }

    #[allow(deprecated)]
    pub(crate) fn record(&self, params: LoggingMessageNotificationParam) {
        let level = serde_json::to_value(params.level).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_else(|| "info".to_owned());
        let message = ServerMessage { time_ms: now_ms(), level, logger: params.logger, data: params.data };
        let text = match &message.data {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let logger = message.logger.as_deref().map(|l| format!(" {l}")).unwrap_or_default();
        let line = format!("[mcp {}{logger}] {text}\n", message.level);
        if let Some(parent) = self.log_path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(&self.log_path) {
            let _ = file.write_all(line.as_bytes());
        }
        let mut recent = self.recent.lock().unwrap();
        if recent.len() == Self::KEEP {
            recent.pop_front();
        }
        recent.push_back(message);
    }
}


fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

#[cfg(test)]
#[allow(deprecated)]
mod tests {
    use super::*;
    use rmcp::model::LoggingLevel;
    use serde_json::json;

    #[test]
    fn log_messages_are_kept_and_appended_to_the_server_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs").join("demo.log");
        let messages = ServerMessages::new(path.clone());
        messages.record(LoggingMessageNotificationParam::new(LoggingLevel::Warning, json!("disk almost full")).with_logger("storage"));
        messages.record(LoggingMessageNotificationParam::new(LoggingLevel::Info, json!({"step": 2})));
        let recent = messages.recent();
        assert_eq!(recent.len(), 2);
        assert_eq!((recent[0].level.as_str(), recent[0].logger.as_deref()), ("warning", Some("storage")));
        assert_eq!(recent[1].data, json!({"step": 2}));
        let log = std::fs::read_to_string(&path).unwrap();
        assert_eq!(log, "[mcp warning storage] disk almost full\n[mcp info] {\"step\":2}\n");
        for i in 0..ServerMessages::KEEP + 5 {
            messages.record(LoggingMessageNotificationParam::new(LoggingLevel::Debug, json!(i)));
        }
        assert_eq!(messages.recent().len(), ServerMessages::KEEP);
        assert_eq!(messages.recent().last().unwrap().data, json!(ServerMessages::KEEP + 4));
    }

}
