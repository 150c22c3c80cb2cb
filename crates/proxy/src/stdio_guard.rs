//! Stdin/stdout for the stdio proxy, as rmcp's transport, with a guard in front: rmcp skips a
//! line it cannot parse without a word, but an AI host that sends garbage deserves a JSON-RPC
//! error. Every line from the AI host is checked as it is parsed (once); a line that is not JSON
//! gets `-32700 Parse error`, JSON that is not a JSON-RPC message MCP knows gets `-32600 Invalid
//! Request` (with its `id` when it has one), and only the rest reaches rmcp. Each reply is
//! written whole under one lock, so replies never interleave.

use std::{borrow::Cow, future::Future, sync::Arc};

use rmcp::{
    model::ClientJsonRpcMessage,
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
    RoleServer,
};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};

/// Longest line accepted from the AI host (requests are small; this only bounds memory).
const MAX_LINE: usize = 64 << 20;

/// rmcp's transport over the AI host's stdin and stdout, guarded (see the module docs).
pub struct Guarded<R, W> {
    read: BufReader<R>,
    write: Arc<tokio::sync::Mutex<Option<W>>>,
    /// The line being read; kept across cancelled `receive` calls (rmcp polls it in a `select!`).
    line: Vec<u8>,
    /// The rest of an over-long line is being skipped (it was answered already).
    skipping: bool,
    /// Error replies still being written; `close` waits for them (the AI host's last line may
    /// be garbage followed by the end of its input), and so does whoever holds [`Replies`]
    /// when rmcp drops the transport without closing it (a failed handshake).
    replies: Replies,
}

/// The error replies of a [`Guarded`] still being written.
#[derive(Clone, Default)]
pub struct Replies(Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>);

impl Replies {
    fn push(&self, reply: tokio::task::JoinHandle<()>) {
        let mut replies = self.0.lock().unwrap();
        replies.retain(|reply| !reply.is_finished());
        replies.push(reply);
    }

    /// Waits until every reply so far is written.
    pub async fn written(&self) {
        let replies = std::mem::take(&mut *self.0.lock().unwrap());
        for reply in replies {
            let _ = reply.await;
        }
    }
}

impl<R: AsyncRead + Send + Unpin, W: AsyncWrite + Send + Unpin + 'static> Guarded<R, W> {
    /// The transport over `input` and `output`.
    pub fn new(input: R, output: W) -> Self {
        Self { read: BufReader::with_capacity(64 * 1024, input), write: Arc::new(tokio::sync::Mutex::new(Some(output))), line: Vec::new(), skipping: false, replies: Replies::default() }
    }

    /// Its error replies being written, to wait for after the transport is gone.
    pub fn replies(&self) -> Replies {
        self.replies.clone()
    }

    /// Reads to the end of the current line; `false` at the end of input.
    async fn read_line(&mut self) -> std::io::Result<bool> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(!self.line.is_empty());
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let end = newline.map_or(available.len(), |at| at + 1);
            if !self.skipping {
                self.line.extend_from_slice(&available[..end]);
            }
            self.read.consume(end);
            if newline.is_some() {
                if std::mem::take(&mut self.skipping) {
                    continue;
                }
                return Ok(true);
            }
            if self.line.len() >= MAX_LINE {
                // Too long: answer once and drop the rest of the line.
                self.line.clear();
                self.skipping = true;
                self.reply(error_line(Value::Null, -32600, &format!("Invalid Request: a message longer than {MAX_LINE} bytes")));
            }
        }
    }

    /// Writes `line` on its own task: a cancelled `receive` must not cut a reply in half.
    fn reply(&self, line: Vec<u8>) {
        let write = self.write.clone();
        self.replies.push(tokio::spawn(async move {
            let _ = write_line(&write, &line).await;
        }));
    }
}

async fn write_line<W: AsyncWrite + Unpin>(write: &tokio::sync::Mutex<Option<W>>, line: &[u8]) -> std::io::Result<()> {
    let mut write = write.lock().await;
    let Some(write) = write.as_mut() else {
        return Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "stdout is closed"));
    };
    write.write_all(line).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for Guarded<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "stdio".into()
    }

    fn send(&mut self, item: TxJsonRpcMessage<RoleServer>) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            line.push(b'\n');
            write_line(&write, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) | Err(_) => return None,
            }
            let line = std::mem::take(&mut self.line);
            if line.len() > MAX_LINE {
                self.reply(error_line(Value::Null, -32600, &format!("Invalid Request: a message longer than {MAX_LINE} bytes")));
                continue;
            }
            match check(&line) {
                Check::Blank => {}
                Check::Pass(message) => return Some(*message),
                Check::Reply(reply) => self.reply(reply),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.replies.written().await;
        if let Some(mut write) = self.write.lock().await.take() {
            let _ = write.shutdown().await;
        }
        Ok(())
    }
}

enum Check {
    Blank,
    Pass(Box<ClientJsonRpcMessage>),
    Reply(Vec<u8>),
}

fn check(line: &[u8]) -> Check {
    let text = String::from_utf8_lossy(line);
    if text.trim().is_empty() {
        return Check::Blank;
    }
    let value: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => return Check::Reply(error_line(Value::Null, -32700, &format!("Parse error: {e}"))),
    };
    let id = value.get("id").filter(|id| id.is_string() || id.is_number()).cloned().unwrap_or(Value::Null);
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(message) => Check::Pass(Box::new(message)),
        Err(e) => Check::Reply(error_line(id, -32600, &format!("Invalid Request: not a JSON-RPC message MCP knows ({e})"))),
    }
}

fn error_line(id: Value, code: i64, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })).expect("errors serialize");
    line.push(b'\n');
    line
}


#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Option<Value> {
        match check(line.as_bytes()) {
            Check::Reply(bytes) => Some(serde_json::from_slice(&bytes).unwrap()),
            Check::Pass(_) | Check::Blank => None,
        }
    }

    #[test]
    fn garbage_gets_json_rpc_errors_and_messages_pass() {
        assert_eq!(reply("not json\n").unwrap()["error"]["code"], -32700);
        assert_eq!(reply("not json\n").unwrap()["id"], Value::Null);
        let invalid = reply(r#"{"jsonrpc":"2.0","id":7,"params":{}}"#).unwrap();
        assert_eq!((invalid["id"].clone(), invalid["error"]["code"].clone()), (json!(7), json!(-32600)));
        assert_eq!(reply(r#"[1, 2]"#).unwrap()["error"]["code"], -32600);
        assert!(matches!(check(b"  \n"), Check::Blank));
        assert!(reply(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#).is_none());
        assert!(reply(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_none());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn garbage_right_before_the_end_of_input_is_still_answered() {
        let (mut host_in, proxy_in) = tokio::io::duplex(1024);
        let (proxy_out, mut host_out) = tokio::io::duplex(1024);
        let mut guarded = Guarded::new(proxy_in, proxy_out);
        host_in.write_all(b"not json\n").await.unwrap();
        drop(host_in);
        assert!(Transport::<RoleServer>::receive(&mut guarded).await.is_none(), "the end of input");
        Transport::<RoleServer>::close(&mut guarded).await.unwrap();
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut host_out, &mut written).await.unwrap();
        let answer: Value = serde_json::from_str(written.trim()).unwrap_or_else(|e| panic!("one reply, got {written:?}: {e}"));
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
    }
}
