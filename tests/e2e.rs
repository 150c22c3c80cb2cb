//! Every end-to-end test that needs no window, in one binary (one link step): each file is a
//! module, named as its file. The tests in a real window are in `window.rs`.
#[path = "apps.rs"]
mod apps;
#[path = "cli.rs"]
mod cli;
#[path = "concurrent_calls.rs"]
mod concurrent_calls;
#[path = "conformance.rs"]
mod conformance;
#[path = "dashboards.rs"]
mod dashboards;
#[path = "demo_documents.rs"]
mod demo_documents;
#[path = "demo_interactive.rs"]
mod demo_interactive;
#[path = "demo_patterns.rs"]
mod demo_patterns;
#[path = "elicitation.rs"]
mod elicitation;
#[path = "faults.rs"]
mod faults;
#[path = "files_in.rs"]
mod files_in;
#[path = "file_urls.rs"]
mod file_urls;
#[path = "host.rs"]
mod host;
#[path = "http_results.rs"]
mod http_results;
#[path = "list_changes.rs"]
mod list_changes;
#[path = "oauth.rs"]
mod oauth;
#[path = "offers.rs"]
mod offers;
#[path = "proxy.rs"]
mod proxy;
#[path = "proxy_view.rs"]
mod proxy_view;
#[path = "reference_servers.rs"]
mod reference_servers;
#[path = "resources.rs"]
mod resources;
#[path = "sampling_fastmcp.rs"]
mod sampling_fastmcp;
#[path = "search.rs"]
mod search;
#[path = "servers_config.rs"]
mod servers_config;
#[path = "tasks.rs"]
mod tasks;
#[path = "team_audit.rs"]
mod team_audit;
#[path = "team_ranges.rs"]
mod team_ranges;
#[path = "team_setup.rs"]
mod team_setup;
#[path = "team_silent.rs"]
mod team_silent;
#[path = "team_store.rs"]
mod team_store;
#[path = "team_tls.rs"]
mod team_tls;
