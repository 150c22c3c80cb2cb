//! Redaction for the audit log: values of keys that look like secrets, and capability tokens in
//! URLs, never reach the log.

use serde_json::Value;

/// What stands in for a secret.
pub const REDACTED: &str = "[redacted]";

/// Whether a key names a secret: token, password, secret, authorization, or anything ending in
/// `key` (api_key, privateKey, ...).
fn secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["token", "password", "passwd", "secret", "authorization", "cookie", "credential"].iter().any(|word| key.contains(word)) || key.ends_with("key")
}

/// A copy of `value` with secret-looking keys' values and URL tokens replaced.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter().map(|(k, v)| (k.clone(), if secret_key(k) { Value::String(REDACTED.into()) } else { redact(v) })).collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        Value::String(text) => Value::String(redact_text(text)),
        other => other.clone(),
    }
}

/// Replaces the value of `token=` (and similar) query parameters in free text.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('=') {
        let (before, after) = rest.split_at(at);
        // After the last character that cannot be in a name (which may be several bytes long).
        let name_start = before.char_indices().rev().find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).map_or(0, |(i, c)| i + c.len_utf8());
        out.push_str(before);
        out.push('=');
        let after = &after[1..];
        if secret_key(&before[name_start..]) {
            let end = after.find(|c: char| c == '&' || c == '#' || c.is_whitespace() || c == '"' || c == '\'').unwrap_or(after.len());
            out.push_str(REDACTED);
            rest = &after[end..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_and_url_tokens_are_redacted() {
        let args = json!({
            "query": "weather",
            "api_key": "sk-123",
            "headers": {"Authorization": "Bearer x", "accept": "json"},
            "filename": "http://127.0.0.1:5000/api/files/download/demo_1?token=abcdef&x=1",
            "nested": [{"password": "hunter2"}],
        });
        let out = redact(&args);
        assert_eq!(out["query"], "weather");
        assert_eq!(out["api_key"], REDACTED);
        assert_eq!(out["headers"]["Authorization"], REDACTED);
        assert_eq!(out["headers"]["accept"], "json");
        assert_eq!(out["filename"], "http://127.0.0.1:5000/api/files/download/demo_1?token=[redacted]&x=1");
        assert_eq!(out["nested"][0]["password"], REDACTED);
        assert_eq!(redact_text("a=b c=d"), "a=b c=d");
    }

    #[test]
    fn text_with_characters_of_several_bytes_before_an_equals_sign() {
        // A server's text (server-pdf's page description): `≈` is three bytes; this panicked.
        assert_eq!(redact_text(" 612×792pt. Margins: top≈y=40"), " 612×792pt. Margins: top≈y=40");
        assert_eq!(redact_text("é token=abc&x=1"), format!("é token={REDACTED}&x=1"));
        assert_eq!(redact_text("≈token=abc"), format!("≈token={REDACTED}"));
    }
}
