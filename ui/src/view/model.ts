// What the proxy's MCP App view knows of a result, without a DOM: the files the proxy lists in
// the result's `_meta`, their labels, the table's scroll arithmetic, what "Show to the model" sends.

/** Where the proxy puts the view's capability and files (crates/proxy/src/viewer/mod.rs). */
export const META_KEY = "io.github.mcp-canvas/view";

export type ViewerKind = "image" | "pdf" | "html" | "markdown" | "code" | "json" | "csv" | "text" | "audio";

export interface ViewFile {
  id: string;
  name: string;
  mime: string;
  size: number;
  viewer: ViewerKind;
  description?: string;
  pages?: number;
  width?: number;
  height?: number;
}

export interface ViewCall {
  capability: string;
  files: ViewFile[];
  server: string;
  tool: string;
}

const KINDS: ViewerKind[] = ["image", "pdf", "html", "markdown", "code", "json", "csv", "text", "audio"];

/** The call's files from a tool result, or `null` when it has none (the view then shows nothing). */
export function viewCallOf(result: unknown): ViewCall | null {
  const meta = (result as { _meta?: Record<string, unknown> } | null)?._meta;
  const view = meta?.[META_KEY] as Partial<ViewCall> | undefined;
  if (!view || typeof view.capability !== "string" || !Array.isArray(view.files)) return null;
  const files = view.files.filter(
    (f): f is ViewFile =>
      !!f && typeof f.id === "string" && typeof f.name === "string" && typeof f.mime === "string" && typeof f.size === "number" && KINDS.includes(f.viewer),
  );
  if (files.length === 0) return null;
  return { capability: view.capability, files, server: String(view.server ?? ""), tool: String(view.tool ?? "") };
}

/** "4.3 KB": the artifact browser's sizes. */
export { formatBytes as humanSize } from "../browser/filters";

/** The type as a person reads it: "PDF", "PNG image", "CSV table". */
export function typeLabel(file: ViewFile): string {
  const sub = file.mime.split(";")[0].split("/")[1]?.toUpperCase() ?? file.mime;
  switch (file.viewer) {
    case "image":
      return `${sub.replace("SVG+XML", "SVG")} image`;
    case "pdf":
      return file.pages ? `PDF, ${file.pages} page${file.pages === 1 ? "" : "s"}` : "PDF";
    case "html":
      return "HTML report";
    case "markdown":
      return "Markdown";
    case "csv":
      return file.mime.includes("tab-separated") || file.name.toLowerCase().endsWith(".tsv") ? "TSV table" : "CSV table";
    case "json":
      return "JSON";
    case "audio":
      return `${sub} audio`;
    case "code":
      return "Code";
    default:
      return "Text";
  }
}

/** Browsers stop growing an element near 2^25 px: a long table's scroll height is capped there
 * and scroll positions are mapped onto rows proportionally. */
export const MAX_SCROLL_PX = 15_000_000;

export interface TableWindow {
  /** Height of the scrolled content. */
  scrollHeight: number;
  /** First row to draw. */
  first: number;
  /** Rows to draw. */
  count: number;
  /** Where, inside the content, the first drawn row goes. */
  top: number;
}

/** Which rows of `total` to draw for a scroll position, at `rowHeight` px each. */
export function tableWindow(scrollTop: number, viewport: number, rowHeight: number, total: number, overscan = 4): TableWindow {
  const natural = total * rowHeight;
  const scrollHeight = Math.min(natural, MAX_SCROLL_PX);
  const visible = Math.ceil(Math.max(viewport, rowHeight) / rowHeight);
  if (total <= 0) return { scrollHeight: 0, first: 0, count: 0, top: 0 };
  const maxTop = Math.max(1, scrollHeight - viewport);
  const fraction = natural <= MAX_SCROLL_PX ? scrollTop / Math.max(1, natural) : Math.min(1, Math.max(0, scrollTop) / maxTop);
  const atRow = natural <= MAX_SCROLL_PX ? Math.floor(Math.max(0, scrollTop) / rowHeight) : Math.floor(fraction * Math.max(0, total - visible));
  const first = Math.max(0, Math.min(total - 1, atRow) - overscan);
  const count = Math.min(total - first, visible + 2 * overscan);
  // Drawn where the viewport is, so the rows are in view whatever the mapping.
  const top = natural <= MAX_SCROLL_PX ? first * rowHeight : Math.max(0, scrollTop) - (atRow - first) * rowHeight;
  return { scrollHeight, first, count, top };
}

/** Rows as CSV text (quoted where needed), for the model. */
export function rowsAsCsv(header: string[], rows: string[][]): string {
  const cell = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return [header, ...rows].map((r) => r.map(cell).join(",")).join("\n");
}

/** At most `max` characters of `text`, saying how much was left out. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters not sent)`;
}
