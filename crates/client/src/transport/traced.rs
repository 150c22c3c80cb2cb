//! Every message through a transport, recorded in the server's protocol log
//! ([`crate::trace::ProtocolLog`]) on its way: what is sent before it goes, what is received
//! as rmcp gets it (a stdio answer's spilled base64 runs are already out of it).

use std::{borrow::Cow, future::Future, sync::Arc};

use crate::trace::{Direction, ProtocolLog};
use rmcp::{
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
    RoleClient,
};

/// `T`, with each message recorded in `log`.
pub struct Traced<T> {
    inner: T,
    log: Arc<ProtocolLog>,
}

impl<T> Traced<T> {
    /// Wraps `inner`.
    pub fn new(inner: T, log: Arc<ProtocolLog>) -> Self {
        Self { inner, log }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Traced<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        record(&self.log, Direction::Sent, &item);
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        record(&self.log, Direction::Received, &message);
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Records `message`; whatever goes wrong in the record (a bug in shaping a message for the
/// view) is logged and never reaches the connection, which goes on.
fn record(log: &ProtocolLog, direction: Direction, message: &impl serde::Serialize) {
    let recorded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Serialized once: its length is the size on the wire, and the log shortens the text
        // before it parses anything.
        if let Ok(text) = serde_json::to_string(message) {
            log.record_serialized(direction, &text);
        }
    }));
    if recorded.is_err() {
        tracing::warn!("a message could not be recorded in the protocol log; the connection goes on");
    }
}
