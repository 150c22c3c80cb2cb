//! `mcp-canvas-cli servers ...`: the server config.

use std::process::ExitCode;

use clap::Subcommand;
use mcp_canvas_host::Host;

#[derive(Subcommand)]
pub enum ServersCommand {
    /// List configured servers.
    List,
}

pub fn run(host: &Host, command: ServersCommand) -> ExitCode {
    match command {
        ServersCommand::List => {
            for server in host.servers() {
                let problem = server.problem.map(|p| format!("\t(unusable: {p})")).unwrap_or_default();
                println!("{}\t{}\t{}{problem}", server.name, server.transport, server.target);
            }
            ExitCode::SUCCESS
        }
    }
}
