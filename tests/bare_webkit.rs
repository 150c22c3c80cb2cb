//! The floor under the idle footprint of `bench_startup`: WebKitGTK alone — a GTK window of the
//! app's size holding one web view that shows one heading; no Tauri, no app code, no page of
//! ours. `bench_startup` starts it on the same display after each run and prints its memory beside
//! the app's, so what is WebKit's and what is ours can be told apart.
//!
//! `cargo run --release -p mcp-canvas-e2e --example bare_webkit` (needs a display).

use gtk::prelude::*;
use webkit2gtk::{WebView, WebViewExt};

fn main() {
    gtk::init().expect("GTK starts: a display is needed (xvfb-run -a)");
    let window = gtk::Window::new(gtk::WindowType::Toplevel);
    window.set_default_size(1280, 800);
    let view = WebView::new();
    view.load_html("<!doctype html><h1>WebKitGTK alone</h1>", None);
    window.add(&view);
    window.connect_destroy(|_| gtk::main_quit());
    window.show_all();
    gtk::main();
}
