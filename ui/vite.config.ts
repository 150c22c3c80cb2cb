/// <reference types="vitest/config" />
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
  // `npx vitest run` (scripts/test.sh): pure logic in `*.test.ts` under Node, React components in
  // `*.test.tsx` under jsdom with Testing Library (src/test/setup.ts).
  test: {
    projects: [
      { extends: true, test: { name: "unit", include: ["src/**/*.test.ts"], environment: "node" } },
      { extends: true, test: { name: "components", include: ["src/**/*.test.tsx"], environment: "jsdom", setupFiles: ["src/test/setup.ts"] } },
    ],
  },
});
