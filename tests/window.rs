//! Every end-to-end test in a real window under Xvfb through WebDriver, in one binary; all are
//! `#[ignore]`d and run by `scripts/test.sh` with `--ignored --test-threads=1`.
#[path = "gui.rs"]
mod gui;
#[path = "gui_apps.rs"]
mod gui_apps;
#[path = "gui_oauth.rs"]
mod gui_oauth;
#[path = "gui_files.rs"]
mod gui_files;
#[path = "gui_offers.rs"]
mod gui_offers;
#[path = "gui_proxy_files.rs"]
mod gui_proxy_files;
#[path = "gui_proxy_view.rs"]
mod gui_proxy_view;
#[path = "gui_search.rs"]
mod gui_search;
#[path = "gui_sampling.rs"]
mod gui_sampling;
#[path = "gui_team_audit.rs"]
mod gui_team_audit;
#[path = "gui_team_store.rs"]
mod gui_team_store;
#[path = "gui_view_in_app.rs"]
mod gui_view_in_app;
#[path = "restart.rs"]
mod restart;
