//! Runs of base64-alphabet characters (either alphabet, with padding) inside text: the unit both
//! the summary's scrubber and the proxy's hard ceiling decide on.

/// Whether `c` can be part of base64 or base64url text.
pub fn is_base64_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_')
}

/// `text` with every maximal run of base64-alphabet characters passed to `replace`: `Some` puts
/// its text in place of the run, `None` keeps the run. Everything else is copied as is.
pub fn map_base64_runs(text: &str, mut replace: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run_start: Option<usize> = None;
    for (at, c) in text.char_indices() {
        match (is_base64_char(c), run_start) {
            (true, None) => run_start = Some(at),
            (true, Some(_)) => {}
            (false, start) => {
                if let Some(start) = start {
                    let run = &text[start..at];
                    out.push_str(&replace(run).unwrap_or_else(|| run.to_owned()));
                    run_start = None;
                }
                out.push(c);
            }
        }
    }
    if let Some(start) = run_start {
        let run = &text[start..];
        out.push_str(&replace(run).unwrap_or_else(|| run.to_owned()));
    }
    out
}

/// The length of the longest run in `text`.
pub fn longest_base64_run(text: &str) -> usize {
    text.split(|c: char| !is_base64_char(c)).map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_found_whole_and_replaced_or_kept() {
        let text = "a QUJD, b/c+d= é xyz";
        let mut seen = Vec::new();
        let out = map_base64_runs(text, |run| {
            seen.push(run.to_owned());
            (run.len() > 3).then(|| format!("<{}>", run.len()))
        });
        assert_eq!(seen, ["a", "QUJD", "b/c+d=", "xyz"]);
        assert_eq!(out, "a <4>, <6> é xyz");
        assert_eq!(longest_base64_run(text), 6);
        assert_eq!(longest_base64_run(""), 0);
    }
}
