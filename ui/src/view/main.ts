// The proxy's MCP App view: a tool result's files shown the way the canvas shows them, inside
// any AI host that renders MCP Apps. Everything it shows comes through the host bridge, from
// the proxy's app-only tools (crates/proxy/src/viewer/tools.rs) with the call's capability; it
// loads nothing from the network. Untrusted HTML arrives sanitized and is framed with
// `sandbox=""` (nothing in it runs); every other text is set as text, never as markup.
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { highlightLines, languageFor } from "../viewers/highlight";
import { decodePng } from "./png";
import { el, tableCell } from "./dom";
import { clip, columnLayout, humanSize, imageFit, rowsAsCsv, tableWindow, typeLabel, viewCallOf, type ColumnLayout, type ViewCall, type ViewFile } from "./model";
import "./view.css";

type ToolResult = { content?: Array<Record<string, unknown>>; structuredContent?: Record<string, unknown>; isError?: boolean };

const root = document.getElementById("root")!;
const app = new App({ name: "MCP Canvas files", version: "1.0.0" }, {}, { autoResize: true });
let call: ViewCall | null = null;
let current = 0;
/** What "Show to the model" sends for the file on screen, when it has something to send. */
let forModel: (() => Promise<{ what: string; content: Array<Record<string, unknown>> }>) | null = null;
let displayMode = "inline";

async function tool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  if (!call) throw new Error("no call");
  const result = (await app.callServerTool({ name: `mcp-canvas.view.${name}`, arguments: { capability: call.capability, ...args } })) as ToolResult;
  if (result.isError) {
    const text = result.content?.find((c) => c.type === "text")?.text;
    throw new Error(typeof text === "string" ? text : `MCP Canvas could not ${name} this file.`);
  }
  return result;
}

function problem(message: string): HTMLElement {
  return el("div", { className: "problem", role: "alert" }, message);
}

function setStatus(text: string, isError = false) {
  const status = document.getElementById("status");
  if (!status) return;
  status.textContent = text;
  status.className = isError ? "status error" : "status";
}

function applyContext(context: McpUiHostContext | undefined) {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  if (context.displayMode) {
    displayMode = context.displayMode;
    document.body.dataset.displayMode = displayMode;
  }
}

/** The PDF viewer's page keys, while a PDF is shown (one listener for the document). */
let pageKeys: ((e: KeyboardEvent) => void) | null = null;
document.addEventListener("keydown", (e) => pageKeys?.(e));

function render() {
  root.replaceChildren();
  forModel = null;
  pageKeys = null;
  if (!call) return; // nothing of its own: the host gives it no height
  const file = call.files[current];
  const caps = app.getHostCapabilities();
  const modes = app.getHostContext()?.availableDisplayModes ?? [];
  const tabs = el("nav", { className: "files", ariaLabel: "Files" });
  call.files.forEach((f, i) => {
    const button = el("button", { className: i === current ? "file current" : "file", title: f.description ?? f.name, type: "button" }, el("span", { className: "name" }, f.name), el("span", { className: "facts" }, `${typeLabel(f)} · ${humanSize(f.size)}`));
    button.dataset.id = f.id;
    button.addEventListener("click", () => {
      current = i;
      render();
    });
    tabs.append(button);
  });
  const actions = el("div", { className: "actions" });
  const action = (label: string, title: string, run: () => Promise<void>) => {
    const button = el("button", { type: "button", title }, label);
    button.dataset.action = label;
    button.addEventListener("click", () => {
      button.disabled = true;
      run()
        .catch((e: unknown) => setStatus(e instanceof Error ? e.message : String(e), true))
        .finally(() => (button.disabled = false));
    });
    actions.append(button);
  };
  if (caps?.updateModelContext) {
    action("Show this to the model", "Adds what is on screen to the model's context", async () => {
      if (!forModel) throw new Error("Nothing of this file can be shown to the model yet.");
      const { what, content } = await forModel();
      // Only what the host says it takes (`updateModelContext: { text: {}, image: {} }`).
      const takes = (caps.updateModelContext ?? {}) as Record<string, unknown>;
      // Images by the size actually sent (base64), at most 4 MB.
      const fits = (block: Record<string, unknown>) => typeof block.data !== "string" || (block.data.length * 3) / 4 <= 4 * 1024 * 1024;
      const sent = content.map((block) =>
        block.type === "text" || (takes[String(block.type)] && fits(block)) ? block : { type: "text", text: `${what} of ${file.name} (${typeLabel(file)}, ${humanSize(file.size)}): not sent as ${String(block.type)} (this AI host does not take it here, or it is over 4 MB); the file is artifact://localhost/${file.id}.` },
      );
      await app.updateModelContext({ content: sent as never });
      // Recorded once the host took it (a refused update shows nothing to the model).
      await tool("share", { id: file.id, what });
      setStatus(`The model can now see ${what} of ${file.name}.`);
    });
  }
  if (caps?.downloadFile) {
    action("Save", "Save the file", async () => {
      const answer = await app.downloadFile({ contents: [{ type: "resource_link", uri: `artifact://localhost/${file.id}`, name: file.name, mimeType: file.mime }] });
      if (answer.isError) throw new Error(`${file.name} was not saved.`);
    });
  }
  action("Open in MCP Canvas", "Show it in the MCP Canvas window on this computer", async () => {
    await tool("open", { id: file.id });
    setStatus(`Opened ${file.name} in MCP Canvas.`);
  });
  if (modes.includes("fullscreen") && (file.viewer === "pdf" || file.viewer === "image" || file.viewer === "csv" || file.viewer === "html")) {
    action(displayMode === "fullscreen" ? "Exit fullscreen" : "Fullscreen", "Change the display mode", async () => {
      const answer = await app.requestDisplayMode({ mode: displayMode === "fullscreen" ? "inline" : "fullscreen" });
      displayMode = answer.mode;
      document.body.dataset.displayMode = displayMode;
      render();
    });
  }
  const header = el("header", {}, call.files.length > 1 ? tabs : el("div", { className: "single" }, el("span", { className: "name" }, file.name), el("span", { className: "facts" }, `${typeLabel(file)} · ${humanSize(file.size)}`)), actions);
  const body = el("section", { className: `body ${file.viewer}` });
  body.dataset.viewer = file.viewer;
  body.dataset.id = file.id;
  root.append(header, body, el("div", { id: "status", className: "status", role: "status" }));
  showFile(file, body).catch((e: unknown) => body.replaceChildren(problem(e instanceof Error ? e.message : String(e))));
}

async function showFile(file: ViewFile, body: HTMLElement) {
  body.append(el("div", { className: "loading" }, `Loading ${file.name}…`));
  switch (file.viewer) {
    case "image":
      return showImage(file, body);
    case "audio":
      return showAudio(file, body);
    case "pdf":
      return showPdf(file, body);
    case "html":
    case "markdown":
      return showDocument(file, body);
    case "csv":
      return showTable(file, body);
    default:
      return showText(file, body);
  }
}

function blockOf(result: ToolResult, type: string): { data: string; mimeType: string } {
  const block = result.content?.find((c) => c.type === type);
  if (!block || typeof block.data !== "string") throw new Error("MCP Canvas sent no data for this file.");
  return { data: block.data, mimeType: String(block.mimeType ?? "") };
}

async function showImage(file: ViewFile, body: HTMLElement) {
  const { data, mimeType } = blockOf(await tool("file", { id: file.id }), "image");
  const img = await picture(data, mimeType, file.description ?? file.name);
  img.className = "fit";
  img.dataset.picture = file.id;
  let zoom = 0; // 0: fit the view (larger or smaller)
  const label = el("span", { className: "zoom" }, "Fit");
  const frame = el("div", { className: "scroll image" }, img);
  const setZoom = (z: number) => {
    zoom = z;
    const natural = { width: naturalWidth(img), height: naturalHeight(img) };
    // Fit: as large as the view allows, a tiny picture enlarged too (crisp pixels when small).
    const fit = imageFit(natural, { width: frame.clientWidth, height: displayMode === "fullscreen" ? window.innerHeight - 120 : INLINE_MAX_HEIGHT });
    const scale = zoom === 0 ? fit.scale : zoom;
    img.className = zoom === 0 ? "fit" : "";
    img.classList.toggle("pixelated", zoom === 0 ? fit.pixelated : scale >= 4);
    // The height follows from the picture's own aspect ratio.
    img.style.width = zoom === 0 ? `${fit.width}px` : `${Math.round(natural.width * zoom)}px`;
    label.textContent = zoom === 0 ? `Fit (${Math.round(fit.scale * 100)}%)` : `${Math.round(zoom * 100)}%`;
  };
  const tools = el("div", { className: "toolbar" }, button("−", () => setZoom(Math.max(0.1, (zoom || fitScale(img)) / 1.25))), label, button("+", () => setZoom(Math.min(64, (zoom || fitScale(img)) * 1.25))), button("Fit", () => setZoom(0)), button("100%", () => setZoom(1)));
  img.addEventListener("click", () => setZoom(zoom === 0 ? 1 : 0));
  body.replaceChildren(tools, frame);
  setZoom(0);
  // The host may resize the view: a fitted picture follows its width.
  new ResizeObserver(() => zoom === 0 && frame.isConnected && setZoom(0)).observe(frame);
  const models = ["image/png", "image/jpeg", "image/gif", "image/webp"];
  forModel = async () => ({
    what: "the image",
    content: models.includes(mimeType) ? [{ type: "image", data, mimeType }] : [{ type: "text", text: `${file.name}: ${typeLabel(file)}, ${humanSize(file.size)} (not a type models read as an image).` }],
  });
}

function fitScale(picture: HTMLCanvasElement | HTMLImageElement): number {
  const natural = picture instanceof HTMLCanvasElement ? picture.width : picture.naturalWidth;
  return natural ? picture.clientWidth / natural : 1;
}

function naturalWidth(picture: HTMLCanvasElement | HTMLImageElement): number {
  return picture instanceof HTMLCanvasElement ? picture.width : picture.naturalWidth;
}

function naturalHeight(picture: HTMLCanvasElement | HTMLImageElement): number {
  return picture instanceof HTMLCanvasElement ? picture.height : picture.naturalHeight;
}

/** The most height a picture takes inline (view.css: `.scroll`'s max-height). */
const INLINE_MAX_HEIGHT = 640;

/** Draws base64 image bytes. Decoded with createImageBitmap onto a canvas: that fetches nothing,
 * so it works under the strictest CSP a host may give the view (the Inspector's: `img-src
 * 'none'`). An image the browser cannot decode that way (SVG) falls back to `<img>`, which
 * runs no script. */
async function picture(data: string, mimeType: string, alt: string): Promise<HTMLCanvasElement | HTMLImageElement> {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const canvasOf = (width: number, height: number) => {
    const canvas = el("canvas", { width, height });
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", alt);
    return canvas;
  };
  if (mimeType === "image/png") {
    try {
      const pixels = await decodePng(bytes);
      const canvas = canvasOf(pixels.width, pixels.height);
      canvas.getContext("2d")?.putImageData(new ImageData(pixels.data as Uint8ClampedArray<ArrayBuffer>, pixels.width, pixels.height), 0, 0);
      return canvas;
    } catch {
      // Not a PNG we read: the browser's own decoders below.
    }
  }
  try {
    const bitmap = await createImageBitmap(new Blob([bytes], { type: mimeType }));
    const canvas = canvasOf(bitmap.width, bitmap.height);
    canvas.getContext("2d")?.drawImage(bitmap, 0, 0);
    bitmap.close();
    return canvas;
  } catch {
    const img = el("img", { src: `data:${mimeType};base64,${data}`, alt });
    await new Promise<void>((resolve, reject) => {
      img.onload = () => (img.naturalWidth > 0 ? resolve() : reject(new Error(`This AI host's policy does not let the view draw ${alt}. Save it or open it in MCP Canvas.`)));
      img.onerror = () => reject(new Error(`This AI host's policy does not let the view draw ${alt}. Save it or open it in MCP Canvas.`));
    });
    return img;
  }
}

function button(label: string, onClick: () => void, title = label): HTMLButtonElement {
  const b = el("button", { type: "button", title }, label);
  b.addEventListener("click", onClick);
  return b;
}

async function showAudio(file: ViewFile, body: HTMLElement) {
  const { data, mimeType } = blockOf(await tool("file", { id: file.id }), "audio");
  const audio = el("audio", { controls: true, src: `data:${mimeType};base64,${data}` });
  // A host's CSP may forbid media loads (the Inspector's `media-src 'none'`): then the browser's
  // own decoder through Web Audio, which loads nothing.
  audio.addEventListener("error", () => body.replaceChildren(webAudio(data)), { once: true });
  body.replaceChildren(audio);
}

function webAudio(data: string): HTMLElement {
  const play = el("button", { type: "button" }, "▶ Play");
  const status = el("span", { className: "note" });
  let context: AudioContext | null = null;
  let source: AudioBufferSourceNode | null = null;
  play.addEventListener("click", async () => {
    if (source) {
      source.stop();
      return;
    }
    try {
      context ??= new AudioContext();
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const buffer = await context.decodeAudioData(bytes.buffer);
      source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      source.onended = () => {
        source = null;
        play.textContent = "▶ Play";
      };
      source.start();
      play.textContent = "■ Stop";
      status.textContent = `${buffer.duration.toFixed(1)} s`;
    } catch {
      status.textContent = "This audio cannot be played here: save it or open it in MCP Canvas.";
    }
  });
  return el("div", { className: "toolbar" }, play, status);
}

async function showPdf(file: ViewFile, body: HTMLElement) {
  const info = (await tool("file", { id: file.id })).structuredContent as { pages: number; title?: string };
  const pages = info.pages;
  let page = 0;
  let scale = 1;
  const pageInput = el("input", { type: "number", min: "1", max: String(pages), value: "1", ariaLabel: "Page" });
  const frame = el("div", { className: "scroll pdf" });
  let shown: { data: string; page: number } | null = null;
  let wanted = 0;
  const load = async () => {
    const ask = ++wanted;
    const width = Math.min(4000, Math.max(200, Math.round((frame.clientWidth || body.clientWidth || 800) * scale * (window.devicePixelRatio || 1))));
    const result = await tool("page", { id: file.id, page, width });
    if (ask !== wanted) return; // a later page was asked for meanwhile
    const { data } = blockOf(result, "image");
    const img = await picture(data, "image/png", `Page ${page + 1} of ${file.name}`);
    if (ask !== wanted) return;
    img.classList.add("page");
    img.style.width = `${Math.round(scale * 100)}%`;
    img.dataset.page = String(page + 1);
    frame.replaceChildren(img);
    shown = { data, page };
    pageInput.value = String(page + 1);
  };
  let timer = 0;
  const go = (to: number) => {
    page = Math.min(pages - 1, Math.max(0, to));
    pageInput.value = String(page + 1);
    // Held keys and quick clicks ask for the last page only.
    clearTimeout(timer);
    timer = window.setTimeout(() => load().catch((e: unknown) => setStatus(e instanceof Error ? e.message : String(e), true)), 120);
  };
  pageInput.addEventListener("change", () => go(Number(pageInput.value) - 1));
  const zoomLabel = el("span", { className: "zoom" }, "100%");
  const zoom = (factor: number) => {
    scale = Math.min(4, Math.max(0.25, scale * factor));
    zoomLabel.textContent = `${Math.round(scale * 100)}%`;
    go(page);
  };
  const bar = el("div", { className: "toolbar" }, button("‹", () => go(page - 1), "Previous page"), pageInput, el("span", {}, ` of ${pages}`), button("›", () => go(page + 1), "Next page"), button("−", () => zoom(1 / 1.25), "Zoom out"), zoomLabel, button("+", () => zoom(1.25), "Zoom in"));
  body.replaceChildren(bar, frame);
  pageKeys = (e) => {
    if (!body.isConnected || e.target instanceof HTMLInputElement) return;
    if (e.key === "ArrowRight" || e.key === "PageDown") go(page + 1);
    if (e.key === "ArrowLeft" || e.key === "PageUp") go(page - 1);
  };
  await load();
  forModel = async () => {
    if (!shown) throw new Error("The page is still loading.");
    return { what: `page ${shown.page + 1}`, content: [{ type: "image", data: shown.data, mimeType: "image/png" }] };
  };
}

async function showDocument(file: ViewFile, body: HTMLElement) {
  const doc = (await tool("file", { id: file.id })).structuredContent as { html: string; removed: { scripts: number; eventHandlers: number; elements: number } };
  // Sanitized by MCP Canvas (ammonia), and framed with no permissions at all: nothing runs.
  const frame = el("iframe", { title: file.name, className: "document" });
  frame.setAttribute("sandbox", "");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.srcdoc = doc.html;
  const removed = doc.removed.scripts + doc.removed.eventHandlers;
  body.replaceChildren(...(removed ? [el("div", { className: "note" }, `Shown without ${doc.removed.scripts} script(s) and ${doc.removed.eventHandlers} event handler(s): MCP Canvas never runs a report's code.`)] : []), frame);
  forModel = async () => {
    const text = new DOMParser().parseFromString(doc.html, "text/html").body.innerText ?? "";
    return { what: "the text", content: [{ type: "text", text: clip(`${file.name}:\n${text}`, 20_000) }] };
  };
}

async function showText(file: ViewFile, body: HTMLElement) {
  const { text, truncated } = (await tool("file", { id: file.id })).structuredContent as { text: string; truncated: boolean };
  const note = truncated ? [el("div", { className: "note" }, `Showing the first ${humanSize(text.length)} of ${humanSize(file.size)}.`)] : [];
  if (file.viewer === "json") {
    try {
      const tree = el("div", { className: "scroll json" }, jsonNode(JSON.parse(text), null, 0));
      body.replaceChildren(...note, tree);
      forModel = async () => ({ what: "the JSON", content: [{ type: "text", text: clip(text, 20_000) }] });
      return;
    } catch {
      // Not whole JSON (cut, or malformed): shown as code below.
    }
  }
  const pre = el("pre", { className: "scroll code" });
  for (const line of highlightLines(text, languageFor(file.name, file.mime))) {
    const row = el("div", { className: "line" });
    for (const token of line) row.append(token.className ? el("span", { className: token.className }, token.text) : token.text);
    if (line.length === 0) row.append("\n");
    pre.append(row);
  }
  body.replaceChildren(...note, pre);
  forModel = async () => ({ what: "the text", content: [{ type: "text", text: clip(text, 20_000) }] });
}

function jsonNode(value: unknown, key: string | null, depth: number): HTMLElement {
  const label = key === null ? [] : [el("span", { className: "key" }, `${key}: `)];
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
    const details = el("details", { open: depth < 2 }, el("summary", {}, ...label, el("span", { className: "count" }, Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`)));
    const shown = entries.slice(0, 1000);
    for (const [k, v] of shown) details.append(jsonNode(v, k, depth + 1));
    if (entries.length > shown.length) details.append(el("div", { className: "note" }, `… ${entries.length - shown.length} more`));
    return el("div", { className: "node" }, details);
  }
  const kind = value === null ? "null" : typeof value;
  return el("div", { className: "node leaf" }, ...label, el("span", { className: `value ${kind}` }, JSON.stringify(value)));
}

interface RowsAnswer {
  header: string[];
  rows: string[][];
  offset: number;
  totalRows: number;
  totalColumns: number;
  shownColumns: number;
}

const ROW_HEIGHT = 24;
const PAGE = 200;

async function showTable(file: ViewFile, body: HTMLElement) {
  const first = (await tool("rows", { id: file.id, offset: 0, limit: PAGE })).structuredContent as unknown as RowsAnswer;
  const total = first.totalRows;
  const pages = new Map<number, string[][]>([[0, first.rows]]);
  const pending = new Set<number>();
  // A page that could not be read is not asked for again (the view would loop on a gone file).
  const failed = new Set<number>();
  const selected = new Set<number>();
  let anchor: number | null = null;
  const info = el("div", { className: "note" }, `${total.toLocaleString()} rows × ${first.totalColumns.toLocaleString()} columns${first.totalColumns > first.shownColumns ? ` (the first ${first.shownColumns} shown)` : ""}`);
  const head = el("div", { className: "row head" }, el("span", { className: "n" }, "#"), ...first.header.map(tableCell));
  const spacer = el("div", { className: "spacer" });
  const rowsBox = el("div", { className: "rows" });
  const scroller = el("div", { className: "scroll table" }, spacer, rowsBox);
  scroller.tabIndex = 0;
  const grid = el("div", { className: "grid" }, el("div", { className: "head-box" }, head), scroller);
  // Columns sized to their text in the view's width (model.ts, `columnLayout`), again when the
  // host resizes the view; the header follows the rows sideways.
  let layout: ColumnLayout = columnLayout(first.header, first.rows, total, 512);
  const size = (row: HTMLElement) => {
    row.style.width = `${layout.total}px`;
    const cells = row.children as HTMLCollectionOf<HTMLElement>;
    cells[0].style.width = `${layout.number}px`;
    for (let c = 1; c < cells.length; c++) cells[c].style.width = `${layout.columns[c - 1] ?? 0}px`;
  };
  const relayout = () => {
    layout = columnLayout(first.header, first.rows, total, scroller.clientWidth || grid.clientWidth || 512, charWidth(grid));
    grid.classList.toggle("wide", layout.scrolls);
    rowsBox.style.width = `${layout.total}px`;
    size(head);
    draw();
  };
  scroller.addEventListener("scroll", () => (head.style.transform = `translateX(${-scroller.scrollLeft}px)`));
  const rowAt = (i: number) => pages.get(Math.floor(i / PAGE))?.[i % PAGE];
  const fetchPage = (p: number) => {
    if (pages.has(p) || pending.has(p) || failed.has(p)) return;
    pending.add(p);
    tool("rows", { id: file.id, offset: p * PAGE, limit: PAGE })
      .then((r) => pages.set(p, (r.structuredContent as unknown as RowsAnswer).rows))
      .catch((e: unknown) => {
        failed.add(p);
        setStatus(e instanceof Error ? e.message : String(e), true);
      })
      .finally(() => {
        pending.delete(p);
        draw();
      });
  };
  let frame = 0;
  const draw = () => {
    const w = tableWindow(scroller.scrollTop, scroller.clientHeight || 360, ROW_HEIGHT, total);
    spacer.style.height = `${w.scrollHeight}px`;
    rowsBox.style.transform = `translateY(${w.top}px)`;
    const rows: HTMLElement[] = [];
    for (let i = w.first; i < w.first + w.count; i++) {
      const cells = rowAt(i);
      if (!cells) fetchPage(Math.floor(i / PAGE));
      const row = el("div", { className: selected.has(i) ? "row selected" : "row" }, el("span", { className: "n" }, String(i + 1)), ...(cells ?? []).map(tableCell));
      row.dataset.row = String(i);
      size(row);
      rows.push(row);
    }
    rowsBox.replaceChildren(...rows);
  };
  scroller.addEventListener("scroll", () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(draw);
  });
  rowsBox.addEventListener("click", (e) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>(".row");
    if (!row?.dataset.row) return;
    const i = Number(row.dataset.row);
    if (e.shiftKey && anchor !== null) {
      for (let j = Math.min(anchor, i); j <= Math.max(anchor, i); j++) selected.add(j);
    } else if (e.ctrlKey || e.metaKey) {
      if (selected.has(i)) selected.delete(i);
      else selected.add(i);
      anchor = i;
    } else {
      selected.clear();
      selected.add(i);
      anchor = i;
    }
    draw();
  });
  body.replaceChildren(info, grid);
  relayout();
  let width = scroller.clientWidth;
  new ResizeObserver(() => {
    if (!scroller.isConnected || scroller.clientWidth === width) return;
    width = scroller.clientWidth;
    relayout();
  }).observe(scroller);
  forModel = async () => {
    const chosen = [...selected].sort((a, b) => a - b).slice(0, 500);
    const indexes = chosen.length ? chosen : Array.from({ length: Math.min(50, total) }, (_, i) => i);
    const rows = indexes.map(rowAt).filter((r): r is string[] => !!r);
    const what = chosen.length ? `${rows.length} selected row(s)` : `the first ${rows.length} row(s)`;
    return { what, content: [{ type: "text", text: clip(`${file.name} (${what}; ${total} rows in all):\n${rowsAsCsv(first.header, rows)}`, 40_000) }] };
  };
}

/** The width of one character of `element`'s (monospace) font, px. */
function charWidth(element: HTMLElement): number {
  const context = document.createElement("canvas").getContext("2d");
  if (!context) return 7.2;
  context.font = getComputedStyle(element).font || "12px monospace";
  const width = context.measureText("0123456789").width / 10;
  return width > 0 ? width : 7.2;
}

app.ontoolresult = (result) => {
  call = viewCallOf(result);
  current = 0;
  document.body.dataset.state = call ? "files" : "empty";
  // Why there is nothing to show, for whoever inspects the frame (the host shows the result).
  const meta = (result as { _meta?: Record<string, unknown> })._meta;
  document.body.dataset.emptyBecause = call ? "" : result.isError ? `the tool reported an error: ${String((result.content ?? []).find((c) => c.type === "text")?.text ?? "").slice(0, 300)}` : meta ? `no files (_meta keys: ${Object.keys(meta).join(", ")})` : "no files (no _meta)";
  render();
};
app.onhostcontextchanged = (context) => {
  applyContext(context as McpUiHostContext);
  if (context.displayMode) render();
};
app.onteardown = async () => ({});

document.body.dataset.state = "waiting";
app.connect().then(() => applyContext(app.getHostContext())).catch((e: unknown) => {
  root.replaceChildren(problem(`MCP Canvas could not talk to this app's host: ${e instanceof Error ? e.message : String(e)}`));
});
