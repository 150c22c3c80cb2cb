//! Everything the CLI prints on stdout goes through `outln!` and `out!` instead of `println!`
//! and `print!`, which panic when the write fails.
//!
//! A reader that goes away (`mcp-canvas-cli tools demo | head -1`) is not an error: the rest of
//! the output is dropped, quietly, and the command finishes as it would have (same exit code,
//! servers shut down properly). Any other write error (a full disk behind `>`) is reported once
//! on stderr and makes the exit code 1 (see `failed`).
//!
//! Why not restore the default SIGPIPE disposition instead: the CLI also writes to the stdin of
//! the MCP servers it starts, and a server that dies early must be an error the host reports
//! ("did not complete the MCP handshake", "exited during the call"), not a signal that kills the
//! CLI. The MCP transport of `proxy` does not go through this (rmcp owns that stdout and its
//! shutdown); only `proxy --print-config` does.

use std::{
    io::{ErrorKind, Write as _},
    sync::atomic::{AtomicU8, Ordering},
};

const OPEN: u8 = 0;
/// The reader went away: further output is dropped.
const CLOSED: u8 = 1;
/// Another write error: reported, further output dropped, exit code 1.
const FAILED: u8 = 2;

static STDOUT: AtomicU8 = AtomicU8::new(OPEN);

/// Writes `args` to stdout and flushes, so that a failure is seen here and not at exit. Does
/// nothing once stdout has failed.
pub fn write(args: std::fmt::Arguments<'_>) {
    if STDOUT.load(Ordering::Relaxed) != OPEN {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) else { return };
    if e.kind() == ErrorKind::BrokenPipe {
        STDOUT.store(CLOSED, Ordering::Relaxed);
    } else if STDOUT.swap(FAILED, Ordering::Relaxed) == OPEN {
        eprintln!("error: cannot write to stdout: {e}");
    }
}

/// Whether writing to stdout failed for another reason than the reader going away.
pub fn failed() -> bool {
    STDOUT.load(Ordering::Relaxed) == FAILED
}

/// `println!` on stdout that ends quietly when the reader goes away (see the module docs).
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` on stdout that ends quietly when the reader goes away (see the module docs).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}
