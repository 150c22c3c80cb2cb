import { useEffect, useMemo, useState } from "react";
import { bidiParts, revealBidi } from "./bidi";
import { columnWidths, parseCsv } from "./csv";
import type { Token } from "./highlight";
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
 * MIME type), and only the lines in view rendered, so a 4 MB log scrolls like a small one. */
export function CodeViewer({ id, name = "", mime = "text/plain" }: { id: string; name?: string; mime?: string }) {
  const state = useArtifactText(id);
  const highlighter = useHighlighter();
  const language = highlighter?.languageFor(name, mime) ?? null;
  const lines = useMemo((): Token[][] => {
    if (state.kind !== "ready") return [];
    const text = state.text.replace(/\r\n?/g, "\n");
    // Plain until the highlighter has loaded (it is a separate chunk, fetched on first use).
    return highlighter ? highlighter.highlightLines(text, language) : text.split("\n").map((line) => [{ text: line, className: "" }]);
  }, [state, highlighter, language]);
  const longest = useMemo(() => lines.reduce((n, line) => Math.max(n, line.reduce((m, t) => m + t.text.length, 0)), 0), [lines]);
  const { ref, window: rows } = useRowWindow(LINE_HEIGHT, lines.length);
  return (
    <div className="text-viewer code-viewer">
      <Status state={state} />
      {state.kind === "ready" ? (
        <>
          <div className="code-info muted small">
            {language ? <span className="code-language">{language}</span> : null}
            {lines.length.toLocaleString()} {lines.length === 1 ? "line" : "lines"}
          </div>
          <div className="code-scroll" ref={ref}>
            <div className="code-view" style={{ minWidth: `calc(${longest}ch + 72px)` }} data-lines={lines.length}>
              <div style={{ height: rows.padTop }} />
              {lines.slice(rows.start, rows.end).map((tokens, i) => (
                <div key={rows.start + i} className="code-row">
                  <span className="code-gutter">{rows.start + i + 1}</span>
                  <span className="code-content">
                    {tokens.map((token, t) => (token.className ? <span key={t} className={token.className}>{token.text}</span> : token.text))}
                  </span>
                </div>
              ))}
              <div style={{ height: rows.padBottom }} />
            </div>
          </div>
        </>
      ) : null}
    </div>
  );
}

/** JSON as a collapsible tree. */
export function JsonViewer({ id }: { id: string }) {
  const state = useArtifactText(id);
  const parsed = useMemo(() => {
    if (state.kind !== "ready") return undefined;
    try {
      return { value: JSON.parse(state.text) as unknown };
    } catch (error) {
      return { error: String(error) };
    }
  }, [state]);
  return (
    <div className="text-viewer json-viewer">
      <Status state={state} />
      {parsed && "error" in parsed ? <p className="error viewer-status">Not valid JSON ({parsed.error}); shown as text below.</p> : null}
      {parsed && "value" in parsed ? <JsonNode name={null} value={parsed.value} depth={0} /> : null}
      {parsed && "error" in parsed && state.kind === "ready" ? <pre className="code">{state.text}</pre> : null}
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
 * header and the first rows, full cell text on hover. */
export function CsvViewer({ id }: { id: string }) {
  const state = useArtifactText(id);
  const table = useMemo(() => (state.kind === "ready" ? parseCsv(state.text, MAX_CSV_ROWS + 1) : null), [state]);
  const header = table?.rows[0] ?? [];
  const body = useMemo(() => table?.rows.slice(1, MAX_CSV_ROWS + 1) ?? [], [table]);
  const widths = useMemo(() => (table ? columnWidths(table.rows) : []), [table]);
  const { ref, window: rows } = useRowWindow(ROW_HEIGHT, body.length, CSV_HEADER_HEIGHT);
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
                <tr>
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
                  <tr key={rows.start + r}>
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
      {bidiParts(text).map((part, i) =>
        "control" in part ? (
          <abbr key={i} className="bidi-control" title={part.title}>
            {part.abbr}
          </abbr>
        ) : (
          part.text
        ),
      )}
    </bdi>
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
