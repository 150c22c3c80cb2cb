//! Embeds the proxy's MCP App view, which Vite builds from `ui/src/view/` into `ui/dist-view/`
//! (`scripts/setup.sh` runs `npm run build` in `ui/`).

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let built = manifest.join("../../ui/dist-view");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for (name, required) in [("view.js", true), ("view.css", false)] {
        let source = built.join(name);
        println!("cargo:rerun-if-changed={}", source.display());
        match std::fs::read(&source) {
            Ok(bytes) => std::fs::write(out.join(name), bytes).unwrap(),
            Err(_) if !required => std::fs::write(out.join(name), b"").unwrap(),
            Err(e) => panic!(
                "the proxy's MCP App view is not built ({}: {e}). Run ./scripts/setup.sh, or `npm ci && npm run build` in ui/.",
                source.display()
            ),
        }
    }
}
