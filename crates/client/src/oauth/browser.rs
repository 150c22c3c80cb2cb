//! Who shows the user the authorization page. The app and the CLI open the system browser; the
//! conformance adapter and the tests use [`Headless`], which follows the authorization server's
//! redirects itself — the path a user's browser takes when the server signs them in without
//! asking (as the conformance suite's and our test server do).

use std::{future::Future, pin::Pin};

/// A boxed future, as the trait below returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Opens an authorization URL for the user. The answer arrives at the loopback redirect.
pub trait Browser: Send + Sync {
    /// Shows `url` (the authorization page for `server`).
    fn open<'a>(&'a self, server: &'a str, url: &'a str) -> BoxFuture<'a, Result<(), String>>;
}

/// The user's browser: `$BROWSER` when set (the usual convention: a command the URL is passed
/// to), else the platform's opener ([`crate::opener`]). The URL is also written to
/// stderr, for a terminal user whose browser is elsewhere.
pub struct SystemBrowser;

impl Browser for SystemBrowser {
    fn open<'a>(&'a self, server: &'a str, url: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            eprintln!("Signing in to `{server}`: opening {url}");
            // `$BROWSER` when set, else the platform's opener (no shell either way).
            let opened = match std::env::var("BROWSER").ok().filter(|b| !b.trim().is_empty()) {
                Some(browser) => std::process::Command::new(browser.trim())
                    .arg(url)
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map(|mut child| {
                        // Reaped in the background: a browser that stays open must not become a zombie.
                        std::thread::spawn(move || child.wait());
                    }),
                None => crate::opener::open(url),
            };
            // The URL is on stderr: a user can still open it by hand.
            if let Err(e) = opened {
                eprintln!("could not open a browser ({e}); open the URL above yourself");
            }
            Ok(())
        })
    }
}

/// Follows the authorization URL's redirects without a window, up to the loopback redirect.
pub struct Headless;

impl Browser for Headless {
    fn open<'a>(&'a self, _server: &'a str, url: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().map_err(|e| e.to_string())?;
            let mut next = url::Url::parse(url).map_err(|e| e.to_string())?;
            for _ in 0..10 {
                let response = client.get(next.clone()).send().await.map_err(|e| format!("GET {next}: {e}"))?;
                let Some(location) = response.headers().get(http::header::LOCATION).and_then(|l| l.to_str().ok()) else {
                    let status = response.status();
                    return if status.is_success() { Ok(()) } else { Err(format!("the authorization page answered {status}")) };
                };
                next = next.join(location).map_err(|e| e.to_string())?;
            }
            Err("more than 10 redirects".into())
        })
    }
}
