import { useEffect, useMemo, useState } from "react";
import type { Focus } from "../wire/Focus";
import { bidiParts, revealBidi } from "./bidi";
import { columnWidths, parseCsv, rowAtLine } from "./csv";
import type { Token } from "./highlight";
import { focusedAt, useFocusRequest } from "./useFocusRequest";
import { useRowWindow } from "./useRowWindow";
import "./viewers.css";
import { MAX_TEXT_BYTES, useArtifactText, type TextState } from "./useArtifactText";

const MAX_CSV_ROWS = 10_000;

function Status({ state }: { state: TextState }) {
  if (state.kind === "loading") return <p className="muted viewer-status">Loading…</p>;
  if (state.kind === "failed") return <p className="error viewer-status">Could not load the file: {state.error}</p>;
  return state.truncated ? <p className="muted viewer-status">Showing the first {MAX_TEXT_BYTES / 1024 / 1024} MB; the whole file is in the store.</p> : null;
}

type Highlighter = typeof import("./highlight");
let highlighterModule: Promise<Highlighter> | null = null;

/** The highlighting module (lowlight and its grammars), loaded on first use so it stays out of the
 * main bundle; `null` until then. */
function useHighlighter(): Highlighter | null {
  const [module, setModule] = useState<Highlighter | null>(null);
  useEffect(() => {
    let live = true;
    (highlighterModule ??= import("./highlight")).then(
      (m) => live && setModule(m),
      (error: unknown) => console.error("syntax highlighting could not load:", error),
    );
    return () => {
      live = false;
    };
  }, []);
  return module;
}

/** Height of one line of code and one CSV row, in CSS pixels (rows are rendered only in view). */
const LINE_HEIGHT = 19;
const ROW_HEIGHT = 26;
const CSV_HEADER_HEIGHT = 28;

/** Plain text and code: line numbers, syntax highlighting for known languages (by extension or
 * MIME type), and only the lines in view rendered, so a 4 MB log scrolls like a small one. A
 * search hit's line (`focus`) is scrolled to and stays marked while the tab shows it. */
export function CodeViewer({ id, name = "", mime = "text/plain", focus = null }: { id: string; name?: string; mime?: string; focus?: Focus | null }) {
  const state = useArtifactText(id);
  return (
    <div className="text-viewer code-viewer">
      <Status state={state} />
      {state.kind === "ready" ? <CodeLines text={state.text} name={name} mime={mime} focus={focus} /> : null}
    </div>
  );
}

/** The lines of a text, numbered from 1, highlighted, virtualized (CodeViewer, JsonViewer's text). */
function CodeLines({ text, name, mime, focus }: { text: string; name: string; mime: string; focus: Focus | null }) {
  const highlighter = useHighlighter();
  const language = highlighter?.languageFor(name, mime) ?? null;
  const lines = useMemo((): Token[][] => {
    const plain = text.replace(/\r\n?/g, "\n");
    // Plain until the highlighter has loaded (it is a separate chunk, fetched on first use).
    return highlighter ? highlighter.highlightLines(plain, language) : plain.split("\n").map((line) => [{ text: line, className: "" }]);
  }, [text, highlighter, language]);
  const longest = useMemo(() => lines.reduce((n, line) => Math.max(n, line.reduce((m, t) => m + t.text.length, 0)), 0), [lines]);
  const { ref, window: rows, scrollToRow } = useRowWindow(LINE_HEIGHT, lines.length);
  const focused = focusedAt(focus, "line");
  useFocusRequest(focus, "line", scrollToRow !== null, (line) => {
    if (line >= 1 && line <= lines.length) scrollToRow?.(line - 1);
  });
  return (
    <>
      <div className="code-info muted small">
        {language ? <span className="code-language">{language}</span> : null}
        {lines.length.toLocaleString()} {lines.length === 1 ? "line" : "lines"}
        {focused !== null && focused > lines.length ? <span className="focus-missing">· line {focused.toLocaleString()} is past what is shown here</span> : null}
      </div>
      <div className="code-scroll" ref={ref}>
        <div className="code-view" style={{ minWidth: `calc(${longest}ch + 72px)` }} data-lines={lines.length}>
          <div style={{ height: rows.padTop }} />
          {lines.slice(rows.start, rows.end).map((tokens, i) => {
            const number = rows.start + i + 1;
            return (
              <div key={number} className={`code-row${number === focused ? " focused-line" : ""}`} data-line={number}>
                <span className="code-gutter">{number}</span>
                <span className="code-content">
                  {tokens.map((token, t) => (token.className ? <span key={t} className={token.className}>{token.text}</span> : token.text))}
                </span>
              </div>
            );
          })}
          <div style={{ height: rows.padBottom }} />
        </div>
      </div>
    </>
  );
}

/** JSON as a collapsible tree, or as its text with line numbers (what a search hit's line
 * counts: the tab opens there in the text). Text that is not JSON is shown as text. */
export function JsonViewer({ id, focus = null }: { id: string; focus?: Focus | null }) {
  const state = useArtifactText(id);
  const [mode, setMode] = useState<"tree" | "text">(focus?.place === "line" ? "text" : "tree");
  // A new hit in this file: its line is in the text.
  const request = focus?.place === "line" ? focus.request : null;
  useEffect(() => {
    if (request !== null) setMode("text");
  }, [request]);
  const parsed = useMemo(() => {
    if (state.kind !== "ready") return undefined;
    try {
      return { value: JSON.parse(state.text) as unknown };
    } catch (error) {
      return { error: String(error) };
    }
  }, [state]);
  const asText = mode === "text" || (parsed !== undefined && "error" in parsed);
  return (
    <div className={`text-viewer json-viewer${asText ? " code-viewer" : ""}`}>
      <Status state={state} />
      {parsed && "error" in parsed ? <p className="error viewer-status">Not valid JSON ({parsed.error}); shown as text below.</p> : null}
      {parsed && "value" in parsed ? (
        <div className="json-modes" role="group" aria-label="Show as">
          <button type="button" className={mode === "tree" ? "active" : ""} aria-pressed={mode === "tree"} onClick={() => setMode("tree")}>
            Tree
          </button>
          <button type="button" className={mode === "text" ? "active" : ""} aria-pressed={mode === "text"} onClick={() => setMode("text")}>
            Text
          </button>
        </div>
      ) : null}
      {parsed && "value" in parsed && !asText ? <JsonNode name={null} value={parsed.value} depth={0} /> : null}
      {asText && state.kind === "ready" ? <CodeLines text={state.text} name="data.json" mime="application/json" focus={focus} /> : null}
    </div>
  );
}

function JsonNode({ name, value, depth }: { name: string | null; value: unknown; depth: number }) {
  const label = name === null ? null : <span className="json-key">{name}: </span>;
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return (
      <details className="json-node" open={depth < 2}>
        <summary>
          {label}
          <span className="json-summary">{summary}</span>
        </summary>
        {entries.map(([k, v]) => (
          <JsonNode key={k} name={k} value={v} depth={depth + 1} />
        ))}
      </details>
    );
  }
  return (
    <div className="json-leaf">
      {label}
      <span className={`json-${value === null ? "null" : typeof value}`}>{JSON.stringify(value)}</span>
    </div>
  );
}

/** CSV as a table: the first 10,000 rows, only those in view rendered; column widths from the
 * header and the first rows, full cell text on hover. A search hit's row (`focus`: a line of the
 * file, the header's is 0; `data-row` on each row) is scrolled to and stays marked while the tab
 * shows it. */
export function CsvViewer({ id, focus = null }: { id: string; focus?: Focus | null }) {
  const state = useArtifactText(id);
  const table = useMemo(() => (state.kind === "ready" ? parseCsv(state.text, MAX_CSV_ROWS + 1) : null), [state]);
  const header = table?.rows[0] ?? [];
  const body = useMemo(() => table?.rows.slice(1, MAX_CSV_ROWS + 1) ?? [], [table]);
  const widths = useMemo(() => (table ? columnWidths(table.rows) : []), [table]);
  const { ref, window: rows, scrollToRow } = useRowWindow(ROW_HEIGHT, body.length, CSV_HEADER_HEIGHT);
  // The table's row (0: the header) holding the hit's line, if it was parsed.
  const focusLine = focusedAt(focus, "row");
  const focused = table && focusLine !== null ? rowAtLine(table.starts, table.lines, focusLine) : null;
  useFocusRequest(focus, "row", table !== null && scrollToRow !== null, (line) => {
    const row = table ? rowAtLine(table.starts, table.lines, line) : null;
    if (row !== null) scrollToRow?.(Math.max(0, row - 1));
  });
  // `ch` is the width of "0"; letters run wider, and cells have 8 px of padding on each side.
  const chars = (w: number) => Math.ceil(w * 1.15) + 3;
  const numberWidth = String(body.length).length + 3;
  const totalWidth = widths.reduce((sum, w) => sum + chars(w), numberWidth);
  const columns = widths.length + 1;
  const more = table !== null && (table.more || (table.rows.length > MAX_CSV_ROWS + 1));
  return (
    <div className="text-viewer csv-viewer">
      <Status state={state} />
      {table ? (
        <>
          <div className="code-info muted small">
            {body.length.toLocaleString()} {body.length === 1 ? "row" : "rows"} · {widths.length} {widths.length === 1 ? "column" : "columns"}
            {more ? ` · showing the first ${MAX_CSV_ROWS.toLocaleString()} rows` : ""}
            {focusLine !== null && focused === null ? <span className="focus-missing">· row {focusLine.toLocaleString()} is past what is shown here</span> : null}
          </div>
          <div className="csv-scroll" ref={ref}>
            <table className="csv-grid" style={{ width: `${totalWidth}ch` }} data-rows={body.length}>
              <colgroup>
                <col style={{ width: `${numberWidth}ch` }} />
                {widths.map((w, i) => (
                  <col key={i} style={{ width: `${chars(w)}ch` }} />
                ))}
              </colgroup>
              <thead>
                <tr className={focused === 0 ? "focused-row" : undefined} data-row={0}>
                  <th className="csv-number" aria-label="Row" />
                  {widths.map((_, i) => (
                    <th key={i} title={revealBidi(header[i] ?? "")}>
                      <IsolatedText text={header[i] ?? ""} />
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.padTop > 0 ? (
                  <tr className="csv-spacer" style={{ height: rows.padTop }} aria-hidden="true">
                    <td colSpan={columns} />
                  </tr>
                ) : null}
                {body.slice(rows.start, rows.end).map((row, r) => (
                  <tr key={rows.start + r} className={focused === rows.start + r + 1 ? "focused-row" : undefined} data-row={table.starts[rows.start + r + 1]}>
                    <td className="csv-number">{rows.start + r + 1}</td>
                    {widths.map((_, c) => (
                      <td key={c} title={(row[c] ?? "").length > widths[c] ? revealBidi(row[c]) : undefined}>
                        <IsolatedText text={row[c] ?? ""} />
                      </td>
                    ))}
                  </tr>
                ))}
                {rows.padBottom > 0 ? (
                  <tr className="csv-spacer" style={{ height: rows.padBottom }} aria-hidden="true">
                    <td colSpan={columns} />
                  </tr>
                ) : null}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </div>
  );
}

/** A cell's text isolated from its neighbours (`<bdi>`), its bidirectional formatting characters
 * named rather than applied (see bidi.ts). */
export function IsolatedText({ text }: { text: string }) {
  return (
    <bdi>
      <NamedControls text={text} />
    </bdi>
  );
}

/** Text with its bidirectional formatting characters named rather than applied, not isolated:
 * for pieces of one isolated run (a search snippet and its highlighted words). */
export function NamedControls({ text }: { text: string }) {
  return bidiParts(text).map((part, i) =>
    "control" in part ? (
      <abbr key={i} className="bidi-control" title={part.title}>
        {part.abbr}
      </abbr>
    ) : (
      part.text
    ),
  );
}

/** Sanitized HTML (or rendered markdown) in a sandboxed frame: no scripts, no same origin. */
export function DocumentViewer({ src, title }: { src: string; title: string }) {
  const [loaded, setLoaded] = useState(false);
  return (
    <div className="document-viewer">
      {!loaded ? <p className="muted viewer-status">Loading…</p> : null}
      <iframe className="document-frame" sandbox="" src={src} title={title} referrerPolicy="no-referrer" onLoad={() => setLoaded(true)} />
    </div>
  );
}
