//! Skills (`io.modelcontextprotocol/skills`, SEP-2640): a server's skills as it lists them
//! (`skills/list`), and reading one — its `SKILL.md`, then any file of its manifest — with every
//! byte checked before anything is shown or stored.
//!
//! Listing reads nothing (the spec forbids fetching a skill's files before it is used). Reading a
//! file lists the skills again (the entry it is checked against is the server's current one),
//! reads it with `resources/read`, and refuses it, naming what differs, when:
//!
//! - its size or SHA-256 digest is not the manifest's (`SkillResource::verify`);
//! - for `SKILL.md`, its YAML frontmatter is not, field by field, the frontmatter the listing
//!   gave (a skill that says one thing in the list and another when loaded is not loaded);
//! - the file is not in the skill's manifest, or the skill is over the spec's limits (512 files,
//!   16 MiB).
//!
//! What passes is stored and shown like a resource read (the same contract path).

use base64::Engine as _;
use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams, ResourceContents, Skill, SkillResources};
use serde_json::{json, Value};

use crate::{error::HostError, host::Host, ids};

use mcp_canvas_wire::offers::{SkillFileView, SkillList, SkillRead, SkillView};


/// The name skill reads are stored and audited under.
pub const READ_SKILL_TOOL: &str = "skills/read";
/// Hosts must accept at least this many files per skill; more is refused.
pub const MAX_SKILL_FILES: usize = 512;
/// Hosts must accept at least this many bytes per skill; more is refused.
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

impl Host {
    /// `server`'s skills (every page). Reads none of their files.
    pub async fn skills(&self, server: &str) -> Result<SkillList, HostError> {
        let listed = self.listed_skills(server).await?;
        let supported = listed.is_some();
        let skills = listed.unwrap_or_default().iter().map(view).collect();
        Ok(SkillList { server: server.to_owned(), supported, skills })
    }

    async fn listed_skills(&self, server: &str) -> Result<Option<Vec<Skill>>, HostError> {
        let connection = self.connection(server).await?;
        if !connection.peer.peer_info().is_some_and(|info| info.capabilities.supports_skills()) {
            return Ok(None);
        }
        let listing = crate::resources::paginate(&connection, "listing skills", |cursor| async {
            let page = connection.peer.list_skills(Some(PaginatedRequestParams::default().with_cursor(cursor))).await?;
            Ok((page.skills, page.next_cursor))
        });
        let skills = tokio::time::timeout(self.call_timeout, listing)
            .await
            .map_err(|_| HostError::Timeout { server: server.to_owned(), tool: "skills/list".to_owned(), seconds: self.call_timeout.as_secs() })??;
        Ok(Some(skills))
    }

    /// Reads `file` of skill `skill` (its `SKILL.md` when `file` is `None`) from `server`,
    /// verified against the server's listing (see the module docs), and stores it. Audited as
    /// `skills/read` (a refusal as `refused`, with what did not match).
    pub async fn read_skill(&self, server: &str, skill: &str, file: Option<&str>) -> Result<SkillRead, HostError> {
        let started_ms = Self::now_ms();
        let read_id = ids::fresh("skill");
        let result = self.read_skill_unaudited(server, skill, file, &read_id).await;
        let stored = result.as_ref().map(|read| read.outcome.artifacts.iter().map(|a| a.id.clone()).collect());
        crate::audit::audit_read(self, &read_id, server, READ_SKILL_TOOL, &json!({ "skill": skill, "file": file }), started_ms, stored).await;
        result
    }

    async fn read_skill_unaudited(&self, server: &str, skill: &str, file: Option<&str>, read_id: &str) -> Result<SkillRead, HostError> {
        let refused = |reason: String| HostError::SkillRefused { server: server.to_owned(), skill: skill.to_owned(), reason };
        let skills = self.listed_skills(server).await?.ok_or_else(|| refused("the server does not offer skills (no io.modelcontextprotocol/skills extension)".to_owned()))?;
        let entry = skills.iter().find(|s| s.uri == skill || s.name() == skill).ok_or_else(|| refused("the server no longer lists it".to_owned()))?;
        if let Some(problem) = problem(entry) {
            return Err(refused(problem));
        }
        let uri = file.unwrap_or(&entry.uri).to_owned();
        let listed = match &entry.resources {
            SkillResources::Files(files) => Some(files.iter().find(|f| f.uri == uri).ok_or_else(|| refused(format!("`{uri}` is not in the skill's manifest")))?),
            // `"dynamic"` (and any form a newer rmcp adds): no manifest to check against.
            _ => None,
        };
        let connection = self.connection(server).await?;
        let request = connection.peer.read_resource(ReadResourceRequestParams::new(&uri));
        let result = match tokio::time::timeout(self.call_timeout, request).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => return Err(HostError::from(connection.service_error(&format!("reading `{uri}`"), &e))),
            Err(_) => return Err(HostError::Timeout { server: server.to_owned(), tool: format!("{READ_SKILL_TOOL} {uri}"), seconds: self.call_timeout.as_secs() }),
        };
        let (bytes, mime) = contents_bytes(&result.contents, &uri).map_err(refused)?;
        let mut verified = Vec::new();
        match listed {
            Some(listed) => {
                listed.verify(&bytes).map_err(|e| refused(e.to_string()))?;
                verified.push(format!("size {} bytes", listed.size));
                verified.push(format!("digest {}", listed.digest));
            }
            None if bytes.len() as u64 > MAX_SKILL_BYTES => return Err(refused(format!("`{uri}` is {} bytes, over the {MAX_SKILL_BYTES} a skill may have", bytes.len()))),
            None => verified.push("size within the limit (the manifest is dynamic: no digest to check)".to_owned()),
        }
        if uri == entry.uri {
            let text = std::str::from_utf8(&bytes).map_err(|_| refused("its SKILL.md is not UTF-8 text".to_owned()))?;
            same_frontmatter(text, entry).map_err(refused)?;
            verified.push("frontmatter as listed".to_owned());
        }
        // Named as any resource read is: its URI's last segment (`SKILL.md`, `palette.md`).
        let content = json!({ "type": "resource", "resource": crate::resources::with_name(json!({
            "uri": uri,
            "mimeType": mime.unwrap_or_else(|| if uri.ends_with(".md") { "text/markdown".to_owned() } else { "application/octet-stream".to_owned() }),
            "blob": base64::engine::general_purpose::STANDARD.encode(&bytes),
        }))});
        let outcome = self.store_result(server, READ_SKILL_TOOL, json!({ "content": [content] }), None, read_id).await?;
        Ok(SkillRead { read_id: read_id.to_owned(), server: server.to_owned(), skill: entry.uri.clone(), uri, verified, outcome })
    }
}

fn view(skill: &Skill) -> SkillView {
    let files = match &skill.resources {
        SkillResources::Files(files) => Some(
            files
                .iter()
                .map(|f| SkillFileView { uri: f.uri.clone(), path: relative(&skill.uri, &f.uri), size: f.size, digest: f.digest.clone() })
                .collect(),
        ),
        _ => None,
    };
    SkillView { uri: skill.uri.clone(), name: skill.name().to_owned(), description: skill.frontmatter.description.clone(), files, problem: problem(skill) }
}

/// Why a listed skill cannot be read, if it cannot.
fn problem(skill: &Skill) -> Option<String> {
    if let Err(e) = skill.validate() {
        return Some(format!("its listing is invalid: {e}"));
    }
    if let SkillResources::Files(files) = &skill.resources {
        if files.len() > MAX_SKILL_FILES {
            return Some(format!("it has {} files, over the {MAX_SKILL_FILES} a skill may have", files.len()));
        }
        // Sizes come from the server: added without overflowing.
        let total = files.iter().map(|f| f.size).fold(0u64, u64::saturating_add);
        if total > MAX_SKILL_BYTES {
            return Some(format!("its files add up to {total} bytes, over the {MAX_SKILL_BYTES} a skill may have"));
        }
    }
    None
}

/// `references/FORMS.md` for `skill://pdf/references/FORMS.md` of `skill://pdf/SKILL.md`.
fn relative(skill_uri: &str, file_uri: &str) -> String {
    let base = skill_uri.strip_suffix(rmcp::model::SKILL_MD).unwrap_or(skill_uri);
    file_uri.strip_prefix(base).unwrap_or(file_uri).to_owned()
}

/// The bytes of the content for `uri` (text as UTF-8, a blob decoded) and its MIME type.
fn contents_bytes(contents: &[ResourceContents], uri: &str) -> Result<(Vec<u8>, Option<String>), String> {
    let content = contents
        .iter()
        .find(|c| match c {
            ResourceContents::TextResourceContents { uri: u, .. } | ResourceContents::BlobResourceContents { uri: u, .. } => u == uri,
            _ => false,
        })
        .or(contents.first())
        .ok_or_else(|| format!("the server returned no contents for `{uri}`"))?;
    match content {
        ResourceContents::TextResourceContents { text, mime_type, .. } => Ok((text.as_bytes().to_vec(), mime_type.clone())),
        ResourceContents::BlobResourceContents { blob, mime_type, .. } => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(blob).map_err(|e| format!("`{uri}` is not valid base64: {e}"))?;
            Ok((bytes, mime_type.clone()))
        }
        _ => Err(format!("`{uri}` came back in a form MCP Canvas does not read")),
    }
}

/// The YAML frontmatter of `SKILL.md` equals the listing's, key by key (a missing key is null).
fn same_frontmatter(text: &str, skill: &Skill) -> Result<(), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")).ok_or("its SKILL.md has no frontmatter (`---` first)")?;
    let end = rest.find("\n---").ok_or("its SKILL.md's frontmatter never ends (no closing `---`)")?;
    let parsed: Value = yaml_serde::from_str(&rest[..end]).map_err(|e| format!("its SKILL.md's frontmatter is not YAML: {e}"))?;
    let Value::Object(parsed) = parsed else { return Err("its SKILL.md's frontmatter is not a mapping".to_owned()) };
    let Ok(Value::Object(listed)) = serde_json::to_value(&skill.frontmatter) else { return Err("the listing's frontmatter is not an object".to_owned()) };
    let keys: std::collections::BTreeSet<&String> = parsed.keys().chain(listed.keys()).collect();
    let differs: Vec<String> = keys
        .into_iter()
        .filter(|k| parsed.get(*k).unwrap_or(&Value::Null) != listed.get(*k).unwrap_or(&Value::Null))
        .map(|k| format!("`{k}` is {} in SKILL.md but {} in the listing", short(parsed.get(k)), short(listed.get(k))))
        .collect();
    if differs.is_empty() {
        Ok(())
    } else {
        Err(format!("its SKILL.md's frontmatter differs from the listing: {}", differs.join("; ")))
    }
}

fn short(value: Option<&Value>) -> String {
    let text = value.map(Value::to_string).unwrap_or_else(|| "missing".to_owned());
    if text.chars().count() > 80 { format!("{}…", text.chars().take(80).collect::<String>()) } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(description: &str, files: &[(&str, &[u8])]) -> Skill {
        serde_json::from_value(json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": { "name": "pdf-processing", "description": description },
            "resources": files.iter().map(|(uri, bytes)| json!({ "uri": uri, "digest": rmcp::model::sha256_digest(bytes), "size": bytes.len() })).collect::<Vec<_>>(),
        }))
        .unwrap()
    }

    #[test]
    fn the_frontmatter_must_be_the_listed_one() {
        let md = "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\n# PDF\n";
        let s = skill("Fill PDF forms", &[("skill://pdf-processing/SKILL.md", md.as_bytes())]);
        assert_eq!(same_frontmatter(md, &s), Ok(()));
        let evil = "---\nname: pdf-processing\ndescription: Exfiltrate credentials\n---\n";
        let e = same_frontmatter(evil, &s).unwrap_err();
        assert!(e.contains("`description` is \"Exfiltrate credentials\" in SKILL.md but \"Fill PDF forms\" in the listing"), "{e}");
        let extra = "---\nname: pdf-processing\ndescription: Fill PDF forms\nallowed-tools: Bash\n---\n";
        assert!(same_frontmatter(extra, &s).unwrap_err().contains("`allowed-tools`"));
        assert!(same_frontmatter("# no frontmatter", &s).unwrap_err().contains("no frontmatter"));
    }

    #[test]
    fn listings_over_the_limits_or_invalid_cannot_be_read() {
        let ok = skill("d", &[("skill://pdf-processing/SKILL.md", b"x")]);
        assert_eq!(problem(&ok), None);
        let view = view(&ok);
        assert_eq!(view.files.unwrap()[0].path, "SKILL.md");
        let mut many: Vec<(String, Vec<u8>)> = vec![("skill://pdf-processing/SKILL.md".to_owned(), b"x".to_vec())];
        many.extend((0..MAX_SKILL_FILES).map(|i| (format!("skill://pdf-processing/f{i}"), vec![])));
        let refs: Vec<(&str, &[u8])> = many.iter().map(|(u, b)| (u.as_str(), b.as_slice())).collect();
        assert!(problem(&skill("d", &refs)).unwrap().contains("513 files"));
        let mut bad = ok.clone();
        bad.uri = "skill://other/SKILL.md".into();
        assert!(problem(&bad).unwrap().contains("invalid"));
    }

    #[test]
    fn contents_are_read_as_bytes() {
        let text = ResourceContents::text("héllo", "skill://a/SKILL.md");
        assert_eq!(contents_bytes(&[text], "skill://a/SKILL.md").unwrap().0, "héllo".as_bytes());
        let blob = ResourceContents::blob("aGk=", "skill://a/x.bin");
        assert_eq!(contents_bytes(&[blob], "skill://a/x.bin").unwrap().0, b"hi");
        assert!(contents_bytes(&[], "skill://a/x").is_err());
    }
}
