//! `mcp-canvas-cli settings show [--json] | set KEY VALUE | unset KEY`: the user's settings
//! (`settings.toml` in the data dir), the same file the app's Settings panel edits.

use std::process::ExitCode;

use clap::Subcommand;
use mcp_canvas_config::{settings::Settings, settings_edit::SettingsView};
use mcp_canvas_host::Host;

#[derive(Subcommand)]
pub enum SettingsCommand {
    /// Print the settings in effect.
    Show {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change one: artifacts.quota_bytes, artifacts.max_age_days, artifacts.session_retention_days,
    /// identity.username, render.allow_remote_images, appearance.theme.
    Set {
        /// `section.name`.
        key: String,
        /// The new value.
        value: String,
    },
    /// Remove one, so its default applies.
    Unset {
        /// `section.name`.
        key: String,
    },
}

pub fn run(host: &Host, command: SettingsCommand) -> ExitCode {
    let (settings, json) = match command {
        SettingsCommand::Show { json } => (Ok(host.settings()), json),
        SettingsCommand::Set { key, value } => (host.set_setting(&key, Some(&value)), false),
        SettingsCommand::Unset { key } => (host.set_setting(&key, None), false),
    };
    match settings {
        Ok(settings) => {
            print(&settings, host, json);
            ExitCode::SUCCESS
        }
        Err(e) => crate::fail(json, &e.to_string()),
    }
}

fn print(settings: &Settings, host: &Host, json: bool) {
    let view = SettingsView::new(settings, host.data_dir());
    if json {
        outln!("{}", serde_json::to_string_pretty(&view).expect("settings serialize"));
        return;
    }
    let max_age = view.max_age_days.map(|d| d.to_string()).unwrap_or_else(|| "none".into());
    outln!("data dir                          {}", view.data_dir);
    outln!("settings file                     {}", view.file);
    outln!("artifacts.quota_bytes             {}", view.quota_bytes);
    outln!("artifacts.max_age_days            {max_age}");
    outln!("artifacts.session_retention_days  {}", view.session_retention_days);
    outln!("identity.username                 {}", view.username);
    outln!("render.allow_remote_images        {}", view.allow_remote_images);
    outln!("appearance.theme                  {}", serde_json::to_value(view.theme).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default());
    outln!("dashboards.allowed_origins        {}", settings.dashboards.allowed_origins.join(", "));
}
