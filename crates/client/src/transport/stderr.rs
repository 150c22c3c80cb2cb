//! A stdio server's stderr: appended to its log file, the last lines kept for error messages.

use std::{
    collections::VecDeque,
    path::PathBuf,
    sync::{Arc, Mutex},
};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// How many stderr lines are kept in memory for error messages.
pub const STDERR_TAIL_LINES: usize = 20;

/// Appends the server's stderr to its log file and keeps the last lines in memory.
pub async fn capture_stderr(stderr: tokio::process::ChildStderr, log_path: PathBuf, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut log = match log_path.parent().map(std::fs::create_dir_all) {
        Some(Ok(())) | None => tokio::fs::OpenOptions::new().create(true).append(true).open(&log_path).await.ok(),
        Some(Err(_)) => None,
    };
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(file) = log.as_mut() {
            let _ = file.write_all(format!("{line}\n").as_bytes()).await;
        }
        let mut tail = tail.lock().unwrap();
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

