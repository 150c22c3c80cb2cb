//! `mcp-canvas-cli proxy --print-config claude|cursor|vscode`: the snippet to paste into an AI
//! host's MCP config so it starts the proxy.

use std::path::Path;

use serde_json::{json, Value};

/// The AI hosts we print config for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AiHost {
    /// Claude Desktop (`claude_desktop_config.json`, `mcpServers`).
    Claude,
    /// Cursor (`~/.cursor/mcp.json` or `.cursor/mcp.json`, `mcpServers`).
    Cursor,
    /// VS Code (`.vscode/mcp.json` or the user `mcp.json`, `servers`).
    VsCode,
}

/// An AI host name that is not one of ours (the message lists them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownAiHost(pub String);

impl AiHost {
    /// Parses `claude`, `cursor` or `vscode`.
    pub fn parse(name: &str) -> Result<Self, UnknownAiHost> {
        match name.to_ascii_lowercase().as_str() {
            "claude" | "claude-desktop" => Ok(Self::Claude),
            "cursor" => Ok(Self::Cursor),
            "vscode" | "vs-code" | "code" => Ok(Self::VsCode),
            other => Err(UnknownAiHost(format!("no config format for `{other}`: choose claude, cursor or vscode"))),
        }
    }

    /// Where the snippet goes (for a note on stderr).
    pub fn config_location(self) -> &'static str {
        match self {
            Self::Claude => "Claude Desktop: Settings > Developer > Edit Config (claude_desktop_config.json; on Linux ~/.config/Claude/claude_desktop_config.json); merge into \"mcpServers\"",
            Self::Cursor => "Cursor: ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project); merge into \"mcpServers\"",
            Self::VsCode => "VS Code: .vscode/mcp.json in the workspace, or \"MCP: Open User Configuration\"; merge into \"servers\"",
        }
    }
}

/// The config snippet starting `program proxy [args...]` under the name `mcp-canvas`.
pub fn snippet(host: AiHost, program: &Path, proxy_args: &[String]) -> Value {
    let mut args = vec![Value::String("proxy".into())];
    args.extend(proxy_args.iter().cloned().map(Value::String));
    let command = program.display().to_string();
    match host {
        AiHost::Claude | AiHost::Cursor => json!({ "mcpServers": { "mcp-canvas": { "command": command, "args": args } } }),
        AiHost::VsCode => json!({ "servers": { "mcp-canvas": { "type": "stdio", "command": command, "args": args } } }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_name_the_program_and_its_arguments() {
        let program = Path::new("/usr/bin/mcp-canvas-cli");
        let args = vec!["--data-dir".to_owned(), "/home/me/canvas".to_owned()];
        assert_eq!(
            snippet(AiHost::parse("claude").unwrap(), program, &args),
            json!({"mcpServers": {"mcp-canvas": {"command": "/usr/bin/mcp-canvas-cli", "args": ["proxy", "--data-dir", "/home/me/canvas"]}}})
        );
        assert_eq!(snippet(AiHost::parse("Cursor").unwrap(), program, &[]), json!({"mcpServers": {"mcp-canvas": {"command": "/usr/bin/mcp-canvas-cli", "args": ["proxy"]}}}));
        assert_eq!(
            snippet(AiHost::parse("vscode").unwrap(), program, &[]),
            json!({"servers": {"mcp-canvas": {"type": "stdio", "command": "/usr/bin/mcp-canvas-cli", "args": ["proxy"]}}})
        );
        assert!(AiHost::parse("emacs").unwrap_err().0.contains("claude, cursor or vscode"));
    }
}
