// Component tests that check layout rules: jsdom lays nothing out, but it applies the document's
// stylesheets to getComputedStyle, so a test can assert that an element wraps, scrolls or sits
// in the flow. (Vitest hands a test an empty string for an imported stylesheet, `?raw` too: the
// files are read from disk.)
import { readFileSync } from "node:fs";
import { afterEach } from "vitest";

const loaded: HTMLStyleElement[] = [];
// Not `new URL(path, import.meta.url)` in one expression: Vite rewrites that as an asset import.
const here = import.meta.url;

/** Puts stylesheets (paths under ui/src: "styles.css", "viewers/viewers.css") into the test
 * document until the test ends. */
export function loadStyles(...paths: string[]) {
  for (const path of paths) {
    const style = document.createElement("style");
    style.dataset.path = path;
    style.textContent = readFileSync(new URL(`../${path}`, here), "utf8");
    if (!style.textContent) throw new Error(`${path} is empty`);
    document.head.append(style);
    loaded.push(style);
  }
}

afterEach(() => {
  loaded.splice(0).forEach((style) => style.remove());
});
