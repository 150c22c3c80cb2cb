import { defineConfig } from "vite";

// The proxy's MCP App view (src/view/): one script and one stylesheet, which the proxy crate
// embeds into a single HTML document (crates/proxy/build.rs) — an MCP App view is served as one
// resource and loads nothing else.
export default defineConfig({
  clearScreen: false,
  build: {
    outDir: "dist-view",
    emptyOutDir: true,
    target: "es2022",
    minify: true,
    cssCodeSplit: false,
    lib: { entry: "src/view/main.ts", formats: ["es"], fileName: () => "view.js", cssFileName: "view" },
    rollupOptions: { output: { inlineDynamicImports: true } },
  },
});
