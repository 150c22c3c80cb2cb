//! Stdin/stdout for the stdio proxy, with a guard in front: rmcp skips a line it cannot parse
//! without a word, but an AI host that sends garbage deserves a JSON-RPC error. Every line from
//! the AI host is checked first; a line that is not JSON gets `-32700 Parse error`, JSON that is
//! not a JSON-RPC message MCP knows gets `-32600 Invalid Request` (with its `id` when it has
//! one), and only the rest reaches rmcp. One task writes stdout, so replies never interleave.

use rmcp::model::ClientJsonRpcMessage;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, BufReader};

/// Longest line accepted from the AI host (requests are small; this only bounds memory).
const MAX_LINE: usize = 64 << 20;

/// The reader and writer to give rmcp, guarding `input` and writing to `output`.
pub fn guard<R, W>(input: R, output: W) -> (impl AsyncRead + Send + Unpin + 'static, impl AsyncWrite + Send + Unpin + 'static)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(1 << 20);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(1 << 20);
    let (lines, mut outgoing) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();

    // rmcp's replies → the single writer.
    let replies = lines.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(from_rmcp);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if replies.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    // The single writer.
    tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = outgoing.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    // The AI host's lines → checked → rmcp, or an error reply.
    tokio::spawn(async move {
        let mut to_rmcp = to_rmcp;
        let mut reader = BufReader::new(input);
        loop {
            let mut line = Vec::new();
            let read = (&mut reader).take(MAX_LINE as u64).read_until(b'\n', &mut line).await;
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.len() >= MAX_LINE && !line.ends_with(b"\n") {
                // Too long: answer once and drop the rest of the line.
                let _ = lines.send(error_line(Value::Null, -32600, &format!("Invalid Request: a message longer than {MAX_LINE} bytes")));
                let mut rest = Vec::new();
                let _ = reader.read_until(b'\n', &mut rest).await;
                continue;
            }
            match check(&line) {
                Check::Blank => {}
                Check::Pass => {
                    if to_rmcp.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Check::Reply(reply) => {
                    let _ = lines.send(reply);
                }
            }
        }
        // The AI host closed stdin: rmcp sees the end too and the session ends.
        let _ = to_rmcp.shutdown().await;
    });
    (rmcp_reads, rmcp_writes)
}

enum Check {
    Blank,
    Pass,
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
    match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(_) => Check::Pass,
        Err(e) => {
            let id = value.get("id").filter(|id| id.is_string() || id.is_number()).cloned().unwrap_or(Value::Null);
            Check::Reply(error_line(id, -32600, &format!("Invalid Request: not a JSON-RPC message MCP knows ({e})")))
        }
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
            Check::Pass | Check::Blank => None,
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
}
