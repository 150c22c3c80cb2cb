//! The protocol view: each server's JSON-RPC messages both ways, kept by the host across
//! reconnects (`mcp_canvas_client::trace`: bounded, redacted, base64 as notes), and the trace file every
//! message also goes to (the CLI's `--trace FILE`).

use std::{collections::HashMap, path::Path, sync::Arc};

use mcp_canvas_client::trace::{ProtocolFilter, ProtocolLog, ProtocolPage, TraceFile};

use crate::{error::HostError, host::Host};

/// Every server's log, and the trace file.
#[derive(Default)]
pub(crate) struct ProtocolLogs {
    logs: std::sync::Mutex<HashMap<String, Arc<ProtocolLog>>>,
    trace: Option<TraceFile>,
}

impl Host {
    /// Every message to and from every server is also appended to `path` as a JSON line (created
    /// when missing), redacted and with base64 runs as notes, as the protocol view shows them.
    pub fn with_trace(mut self, path: &Path) -> Result<Self, HostError> {
        let file = TraceFile::create(path).map_err(|e| HostError::Input(format!("cannot write the trace file {}: {e}", path.display())))?;
        self.protocol.trace = Some(file);
        Ok(self)
    }

    /// `server`'s protocol log (created empty on first use; kept across reconnects).
    pub(crate) fn protocol_log(&self, server: &str) -> Arc<ProtocolLog> {
        let trace = self.protocol.trace.clone();
        self.protocol.logs.lock().unwrap().entry(server.to_owned()).or_insert_with(|| Arc::new(ProtocolLog::new(server, trace))).clone()
    }

    /// The messages of `server` that `filter` asks for: the oldest after `filter.after_seq`, a
    /// bounded page at a time; a reader asks again after the page's `through_seq` while it says
    /// `more`, so a burst between two reads is read whole (and `missed` counts what the log's
    /// bound dropped first).
    pub fn protocol_page(&self, server: &str, filter: &ProtocolFilter) -> Result<ProtocolPage, HostError> {
        self.require_server(server)?;
        Ok(self.protocol_log(server).page(filter))
    }

    /// Writes every kept message of `server` to `path` as JSON lines; how many.
    pub fn protocol_export(&self, server: &str, path: &Path) -> Result<usize, HostError> {
        self.require_server(server)?;
        let failed = |e: std::io::Error| HostError::Input(format!("cannot write {}: {e}", path.display()));
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(failed)?);
        let count = self.protocol_log(server).export(&mut out).map_err(failed)?;
        std::io::Write::flush(&mut out).map_err(failed)?;
        Ok(count)
    }

    fn require_server(&self, server: &str) -> Result<(), HostError> {
        match self.server_entry(server) {
            Some(_) => Ok(()),
            None => Err(self.unknown_server(server)),
        }
    }
}
