import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The built files are embedded into the Tauri binary (tauri.conf.json: build.frontendDist).
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Keep everything in files: the CSP allows no inline scripts.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
