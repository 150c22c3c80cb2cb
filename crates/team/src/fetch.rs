//! A team artifact into the local cache: streamed from the bucket through a bounded channel into
//! the local store's single hashing pass on a blocking thread (memory stays at a few chunks).

use std::io::Read;

use bytes::Bytes;
use futures_util::StreamExt;
use mcp_canvas_store::{ArtifactRecord, ArtifactStore, NewArtifact, Persistence};

use crate::{bucket::Bucket, error::TeamError};

/// The local session team artifacts fetched into the cache are linked to.
pub(crate) const CACHE_SESSION: &str = "team-cache";

pub(crate) async fn into_cache(bucket: &Bucket, local: &std::sync::Arc<ArtifactStore>, record: &ArtifactRecord, now_ms: i64) -> Result<ArtifactRecord, TeamError> {
    let mut stream = bucket.download(&record.sha256).await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, String>>(4);
    let (local, team_record) = (local.clone(), record.clone());
    let writer = tokio::task::spawn_blocking(move || {
        let new = NewArtifact {
            name: &team_record.name,
            mime: &team_record.mime,
            server: &team_record.server,
            tool: &team_record.tool,
            call_id: &team_record.call_id,
            session_id: CACHE_SESSION,
            description: team_record.description.as_deref(),
            persistence: Persistence::Session,
            now_ms,
        };
        local.put_cached(new, ChannelReader { rx, current: Bytes::new() }, &team_record.sha256)
    });
    let mut failure = None;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(chunk) => {
                if tx.send(Ok(chunk)).await.is_err() {
                    break; // the writer stopped: its error says why
                }
            }
            Err(e) => {
                let _ = tx.send(Err(e.to_string())).await;
                failure = Some(e);
                break;
            }
        }
    }
    drop(tx);
    let stored = writer.await?;
    if let Some(e) = failure {
        return Err(e);
    }
    stored.map_err(|e| match e {
        mcp_canvas_store::StoreError::Corrupt { reason, .. } => TeamError::Mismatch { id: record.id.clone(), reason: format!("the bucket's copy is damaged: {reason}; nothing was cached") },
        other => other.into(),
    })
}

struct ChannelReader {
    rx: tokio::sync::mpsc::Receiver<Result<Bytes, String>>,
    current: Bytes,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.rx.blocking_recv() {
                Some(Ok(chunk)) => self.current = chunk,
                Some(Err(e)) => return Err(std::io::Error::other(e)),
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current.split_to(n));
        Ok(n)
    }
}
