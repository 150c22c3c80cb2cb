//! `AWS_PROFILE` from `~/.aws/credentials` (object_store reads the environment variables, the
//! container and instance credentials, but not the profile files; this is their INI subset).

/// The access key, secret and session token of the profile `AWS_PROFILE` names (or `default`
/// when `AWS_ACCESS_KEY_ID` is unset), from `AWS_SHARED_CREDENTIALS_FILE` or
/// `~/.aws/credentials`.
pub(crate) fn from_profile() -> Option<(String, String, Option<String>)> {
    let explicit = std::env::var("AWS_PROFILE").ok();
    if explicit.is_none() && std::env::var_os("AWS_ACCESS_KEY_ID").is_some() {
        return None;
    }
    let profile = explicit.unwrap_or_else(|| "default".into());
    let path = std::env::var_os("AWS_SHARED_CREDENTIALS_FILE").map(std::path::PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".aws/credentials")))?;
    parse(&std::fs::read_to_string(path).ok()?, &profile)
}

fn parse(text: &str, profile: &str) -> Option<(String, String, Option<String>)> {
    let (mut key, mut secret, mut token, mut inside) = (None, None, None, false);
    for line in text.lines().map(str::trim) {
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = section.trim() == profile;
        } else if inside {
            if let Some((k, v)) = line.split_once('=') {
                let v = v.trim().to_owned();
                match k.trim() {
                    "aws_access_key_id" => key = Some(v),
                    "aws_secret_access_key" => secret = Some(v),
                    "aws_session_token" => token = Some(v),
                    _ => {}
                }
            }
        }
    }
    Some((key?, secret?, token))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_named_profile_is_read_and_others_ignored() {
        let text = "[default]\naws_access_key_id = A\naws_secret_access_key = B\n\n[team]\naws_access_key_id=C\naws_secret_access_key= D\naws_session_token = E\n";
        assert_eq!(super::parse(text, "team"), Some(("C".into(), "D".into(), Some("E".into()))));
        assert_eq!(super::parse(text, "default"), Some(("A".into(), "B".into(), None)));
        assert_eq!(super::parse(text, "missing"), None);
    }
}
