// Syntax highlighting for the code viewer: lowlight (highlight.js grammars, output as a tree, so
// nothing is ever set as HTML) with a handful of languages registered, chosen by file extension
// or MIME type, never guessed from the content.
import { createLowlight } from "lowlight";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const lowlight = createLowlight({ bash, css, diff, go, ini, javascript, json, markdown, python, rust, sql, typescript, xml, yaml });

/** Texts longer than this are shown without highlighting (it would take seconds). */
export const MAX_HIGHLIGHT_CHARS = 1_000_000;

const BY_EXTENSION: Record<string, string> = {
  js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  py: "python", pyw: "python",
  json: "json", geojson: "json", ipynb: "json",
  xml: "xml", html: "xml", htm: "xml", xhtml: "xml", svg: "xml", xsd: "xml", xsl: "xml", plist: "xml",
  css: "css",
  sh: "bash", bash: "bash", zsh: "bash",
  sql: "sql",
  yml: "yaml", yaml: "yaml",
  toml: "ini", ini: "ini", cfg: "ini", conf: "ini",
  rs: "rust",
  md: "markdown", markdown: "markdown",
  diff: "diff", patch: "diff",
  go: "go",
};

const BY_MIME: Record<string, string> = {
  "application/javascript": "javascript", "text/javascript": "javascript",
  "application/typescript": "typescript", "text/x-typescript": "typescript",
  "text/x-python": "python", "text/x-script.python": "python",
  "application/json": "json",
  "application/xml": "xml", "text/xml": "xml", "image/svg+xml": "xml", "text/html": "xml",
  "text/css": "css",
  "application/x-sh": "bash", "text/x-shellscript": "bash", "text/x-sh": "bash",
  "application/sql": "sql", "text/x-sql": "sql",
  "application/yaml": "yaml", "text/yaml": "yaml", "text/x-yaml": "yaml",
  "application/toml": "ini",
  "text/x-rust": "rust",
  "text/markdown": "markdown", "text/x-markdown": "markdown",
  "text/x-diff": "diff", "text/x-patch": "diff",
  "text/x-go": "go",
};

/** The registered language for a file, by its extension first, else its MIME type; `null`: none. */
export function languageFor(name: string, mime: string): string | null {
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  return BY_EXTENSION[extension] ?? BY_MIME[mime.split(";")[0].trim().toLowerCase()] ?? null;
}

/** A run of text and the highlight.js classes it carries ("" for none). */
export interface Token {
  text: string;
  className: string;
}

interface Node {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: Node[];
}

/** `text` split into lines of tokens; highlighted when `language` is registered and the text is
 * not too long, else one plain token per line. */
export function highlightLines(text: string, language: string | null): Token[][] {
  if (!language || text.length > MAX_HIGHLIGHT_CHARS || !lowlight.registered(language)) {
    return text.split("\n").map((line) => [{ text: line, className: "" }]);
  }
  const lines: Token[][] = [[]];
  const walk = (node: Node, classes: string[]) => {
    if (node.type === "text") {
      const parts = (node.value ?? "").split("\n");
      parts.forEach((part, i) => {
        if (i > 0) lines.push([]);
        if (part) lines[lines.length - 1].push({ text: part, className: classes.join(" ") });
      });
      return;
    }
    const own = node.properties?.className;
    const inner = Array.isArray(own) ? [...classes, ...own.map(String)] : classes;
    node.children?.forEach((child) => walk(child, inner));
  };
  walk(lowlight.highlight(language, text) as unknown as Node, []);
  return lines;
}
