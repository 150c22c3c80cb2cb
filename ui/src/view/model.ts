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

export interface ImageFit {
  /** CSS size to draw the picture at. */
  width: number;
  height: number;
  /** Its scale from the natural size. */
  scale: number;
  /** Drawn with crisp pixels (`image-rendering: pixelated`): a small picture blown up, where
   * smoothing would only blur it. */
  pixelated: boolean;
}

/**
 * "Fit": the picture as large as the view allows, its aspect ratio kept — shrunk when it is
 * larger, and enlarged when it is smaller (a 16 px icon is not shown at 16 px in a 500 px view).
 * `box`: the width the view gives and the height it may take. A very small picture (≤ 64 px) or
 * one enlarged 4× or more is drawn with crisp pixels.
 */
export function imageFit(natural: { width: number; height: number }, box: { width: number; height: number }): ImageFit {
  const { width, height } = natural;
  if (!(width > 0 && height > 0) || !(box.width > 0 && box.height > 0)) return { width: Math.max(0, width), height: Math.max(0, height), scale: 1, pixelated: false };
  const scale = Math.min(box.width / width, box.height / height);
  return {
    width: Math.max(1, Math.floor(width * scale)),
    height: Math.max(1, Math.floor(height * scale)),
    scale,
    pixelated: scale > 1 && (Math.max(width, height) <= 64 || scale >= 4),
  };
}

/** How many monospace columns `text` takes on one line (wide East Asian characters take two). */
export function textColumns(text: string): number {
  let n = 0;
  for (const c of text) n += /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|[\u{1F300}-\u{1FAFF}\u{20000}-\u{3FFFD}]/u.test(c) ? 2 : 1;
  return n;
}

export interface ColumnLayout {
  /** Width of the row-number column, px. */
  number: number;
  /** Width of each column, px (padding and border included). */
  columns: number[];
  /** All of them. */
  total: number;
  /** Wider than the view: it scrolls sideways. */
  scrolls: boolean;
}

/** A cell's padding and border, px (view.css: `.row .cell`). */
export const CELL_CHROME_PX = 13;
/** The fewest and most characters a column is sized for (longer text is cut, whole on hover). */
export const COLUMN_MIN_CHARS = 3;
export const COLUMN_MAX_CHARS = 32;

/**
 * The table's column widths for a view `available` px wide, from the header and the rows at hand
 * (`charPx`: the width of one character of the table's monospace font). Each column is sized to
 * its longest text, between `COLUMN_MIN_CHARS` and `COLUMN_MAX_CHARS` characters, and no wider
 * than 45 % of the view while there are others (one long column does not take the width from
 * the rest). The row numbers take what the largest needs. Room left over goes first to the
 * columns that were cut, up to their whole text, then to every column alike, so the table fills
 * the view; only a table that does not fit scrolls sideways.
 */
export function columnLayout(header: string[], rows: string[][], totalRows: number, available: number, charPx = 7.2): ColumnLayout {
  const count = rows.reduce((n, row) => Math.max(n, row.length), header.length);
  const number = Math.ceil(Math.max(2, String(Math.max(1, totalRows)).length) * charPx + 12);
  const chars = new Array<number>(count).fill(COLUMN_MIN_CHARS);
  for (const row of [header, ...rows]) {
    row.forEach((cell, c) => {
      // Beyond a few screens' worth the length does not change the width.
      chars[c] = Math.max(chars[c], textColumns(cell.length > 400 ? cell.slice(0, 400) : cell));
    });
  }
  const px = (n: number) => Math.ceil(n * charPx + CELL_CHROME_PX);
  const room = Math.max(0, available - number);
  const cap = count <= 1 ? Math.max(px(COLUMN_MAX_CHARS), room) : Math.max(px(8), Math.min(px(COLUMN_MAX_CHARS), Math.floor(room * 0.45)));
  // What each column would take to show its longest text whole (bounded: a cell may be a page).
  const whole = chars.map((n) => px(Math.min(n, 200)));
  const columns = whole.map((w) => Math.min(w, cap));
  let slack = room - columns.reduce((a, b) => a + b, 0);
  if (slack > 0) {
    const need = whole.reduce((sum, w, i) => sum + (w - columns[i]), 0);
    if (need > 0) {
      const share = Math.min(1, slack / need);
      columns.forEach((w, i) => (columns[i] = w + Math.floor((whole[i] - w) * share)));
      slack = room - columns.reduce((a, b) => a + b, 0);
    }
    if (slack > 0 && count > 0) {
      const each = Math.floor(slack / count);
      columns.forEach((w, i) => (columns[i] = w + each));
    }
  }
  const total = number + columns.reduce((a, b) => a + b, 0);
  return { number, columns, total, scrolls: total > available };
}
