//! Every message through a transport, recorded in the server's protocol log
//! ([`mcp_canvas_trace::ProtocolLog`]) on its way: what is sent before it goes, what is received
//! as rmcp gets it (a stdio answer's spilled base64 runs are already out of it).

use std::{borrow::Cow, future::Future, sync::Arc};

use mcp_canvas_trace::{Direction, ProtocolLog};
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
        if let Ok(value) = serde_json::to_value(&item) {
            self.log.record(Direction::Sent, &value, None);
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let Ok(value) = serde_json::to_value(&message) {
            self.log.record(Direction::Received, &value, None);
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
