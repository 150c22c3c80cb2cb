//! Namespaced names: every downstream tool (and prompt) is exposed upstream as
//! `<server>__<name>`, so two servers with a tool of the same name are both reachable.
//!
//! The server part never contains the separator (characters outside `[A-Za-z0-9-]` become `-`),
//! so the first `__` always ends it; names are looked up in a table built from the listing
//! anyway, so even two servers whose names clean up to the same text stay apart (`-2`, `-3`).

use std::collections::{BTreeMap, HashMap};

/// Between the server part and the downstream name.
pub const SEPARATOR: &str = "__";

/// The server part of exposed names for each configured server, in config order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    by_server: BTreeMap<String, String>,
}

impl Prefixes {
    /// Prefixes for these servers: cleaned names, made unique in the order given.
    pub fn new<'a>(servers: impl IntoIterator<Item = &'a str>) -> Self {
        let mut taken: HashMap<String, ()> = HashMap::new();
        let mut by_server = BTreeMap::new();
        for server in servers {
            let base = clean(server);
            let mut prefix = base.clone();
            let mut n = 2;
            while taken.contains_key(&prefix) {
                prefix = format!("{base}-{n}");
                n += 1;
            }
            taken.insert(prefix.clone(), ());
            by_server.insert(server.to_owned(), prefix);
        }
        Self { by_server }
    }

    /// `<prefix>__<name>` for `server`'s `name`.
    pub fn expose(&self, server: &str, name: &str) -> Option<String> {
        self.by_server.get(server).map(|prefix| format!("{prefix}{SEPARATOR}{name}"))
    }

    /// The server and downstream name an exposed name stands for.
    pub fn resolve<'a>(&'a self, exposed: &'a str) -> Option<(&'a str, &'a str)> {
        let (prefix, name) = exposed.split_once(SEPARATOR)?;
        let server = self.by_server.iter().find(|(_, p)| p.as_str() == prefix)?.0;
        (!name.is_empty()).then_some((server.as_str(), name))
    }
}

/// A server name as it may appear in tool names: `[A-Za-z0-9-]`, never empty.
fn clean(server: &str) -> String {
    let cleaned: String = server.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
    if cleaned.is_empty() { "server".to_owned() } else { cleaned }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_stay_apart() {
        let prefixes = Prefixes::new(["demo", "everything", "my_server", "my server", ""]);
        let cases = [
            ("demo", "render_chart", "demo__render_chart"),
            ("everything", "echo", "everything__echo"),
            // `_` in a server name would make the first `__` ambiguous; it becomes `-`.
            ("my_server", "a__b", "my-server__a__b"),
            ("my server", "echo", "my-server-2__echo"),
            ("", "x", "server__x"),
        ];
        for (server, tool, exposed) in cases {
            assert_eq!(prefixes.expose(server, tool).as_deref(), Some(exposed), "{server}/{tool}");
            assert_eq!(prefixes.resolve(exposed), Some((server, tool)), "{exposed}");
        }
        assert_eq!(prefixes.resolve("nosuch__echo"), None);
        assert_eq!(prefixes.resolve("demo__"), None);
        assert_eq!(prefixes.resolve("demo"), None);
        assert_eq!(prefixes.expose("unknown", "echo"), None);
    }
}
