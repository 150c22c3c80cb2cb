//! The platform's opener (`xdg-open` on Linux, `open` on macOS, the URL handler on Windows): a
//! URL the user chose to open in the browser, or a file to open with its application. No shell;
//! the target is one argument.

use std::{
    ffi::OsStr,
    process::{Command, Stdio},
};

/// The program that opens things.
#[cfg(target_os = "macos")]
pub const OPENER: &str = "open";
/// The program that opens things.
#[cfg(target_os = "windows")]
pub const OPENER: &str = "rundll32";
/// The program that opens things.
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub const OPENER: &str = "xdg-open";

/// Hands `target` (a URL or a path) to the opener and returns once it started.
pub fn open(target: impl AsRef<OsStr>) -> std::io::Result<()> {
    let mut command = Command::new(OPENER);
    #[cfg(target_os = "windows")]
    command.arg("url.dll,FileProtocolHandler");
    let mut child = command.arg(target).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    // Reap it without blocking the caller (some openers wait for the browser or application).
    std::thread::spawn(move || child.wait());
    Ok(())
}
