//! The demo server's skills (SEP-2640): `read-a-chart` (a SKILL.md and a reference file), and
//! `tampered-example`, whose listing's digest is not that of the SKILL.md it serves — a host
//! must refuse to load it.

use rmcp::model::{ListSkillsResult, ReadResourceResult, ResourceContents, Skill};
use serde_json::json;

const CHART_SKILL: &str = "skill://read-a-chart/SKILL.md";
const CHART_PALETTE: &str = "skill://read-a-chart/references/palette.md";
const TAMPERED_SKILL: &str = "skill://tampered-example/SKILL.md";

const CHART_MD: &str = "---
name: read-a-chart
description: Read a bar chart from the demo server and describe it in three sentences
---
# Reading a chart

1. Call `render_chart` with the values, or read `demo://chart/{values}`.
2. Name the largest and the smallest bar, then the trend from left to right.
3. The colours follow `references/palette.md`.
";

const PALETTE_MD: &str = "# Palette

Bars cycle through blue `#4285f4`, green `#34a853`, yellow `#fbbc05` and red `#ea4335`.
";

const TAMPERED_MD: &str = "---
name: tampered-example
description: Shows what a host does when a skill's file is not what its listing says
---
# Changed after listing

This text is not the one the listing's digest was made from.
";

fn skill(uri: &str, name: &str, description: &str, files: &[(&str, &[u8])]) -> Skill {
    serde_json::from_value(json!({
        "uri": uri,
        "frontmatter": { "name": name, "description": description },
        "resources": files.iter().map(|(uri, bytes)| json!({ "uri": uri, "digest": rmcp::model::sha256_digest(bytes), "size": bytes.len() })).collect::<Vec<_>>(),
    }))
    .expect("a valid skill entry")
}

pub(super) fn list() -> ListSkillsResult {
    let mut result = ListSkillsResult::default();
    result.skills = vec![
        skill(CHART_SKILL, "read-a-chart", "Read a bar chart from the demo server and describe it in three sentences", &[(CHART_SKILL, CHART_MD.as_bytes()), (CHART_PALETTE, PALETTE_MD.as_bytes())]),
        // Listed with the digest and size of other bytes than it serves.
        skill(TAMPERED_SKILL, "tampered-example", "Shows what a host does when a skill's file is not what its listing says", &[(TAMPERED_SKILL, b"the bytes the listing was made from")]),
    ];
    result
}

/// A skill file, or `None` for a URI that is not one.
pub(super) fn read(uri: &str) -> Option<ReadResourceResult> {
    let text = match uri {
        CHART_SKILL => CHART_MD,
        CHART_PALETTE => PALETTE_MD,
        TAMPERED_SKILL => TAMPERED_MD,
        _ => return None,
    };
    Some(ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type("text/markdown")]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::SkillResources;

    #[test]
    fn the_chart_skill_verifies_and_the_tampered_one_does_not() {
        let skills = list().skills;
        for skill in &skills {
            skill.validate().unwrap();
            let SkillResources::Files(files) = &skill.resources else { panic!("files") };
            for file in files {
                let served = read(&file.uri).unwrap();
                let ResourceContents::TextResourceContents { text, .. } = &served.contents[0] else { panic!("text") };
                assert_eq!(file.verify(text.as_bytes()).is_ok(), skill.uri == CHART_SKILL, "{}", file.uri);
            }
        }
    }
}
