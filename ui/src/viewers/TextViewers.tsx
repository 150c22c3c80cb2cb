import { useMemo, useState } from "react";
import { parseCsv } from "./csv";
import { MAX_TEXT_BYTES, useArtifactText, type TextState } from "./useArtifactText";

const MAX_CSV_ROWS = 10_000;

function Status({ state }: { state: TextState }) {
  if (state.kind === "loading") return <p className="muted viewer-status">Loading…</p>;
  if (state.kind === "failed") return <p className="error viewer-status">Could not load the file: {state.error}</p>;
  return state.truncated ? <p className="muted viewer-status">Showing the first {MAX_TEXT_BYTES / 1024 / 1024} MB; the whole file is in the store.</p> : null;
}

/** Plain text and code, with line numbers. */
export function CodeViewer({ id }: { id: string }) {
  const state = useArtifactText(id);
  const lines = useMemo(() => (state.kind === "ready" ? state.text.split("\n") : []), [state]);
  return (
    <div className="text-viewer">
      <Status state={state} />
      {state.kind === "ready" ? (
        <pre className="code">
          {lines.map((line, i) => (
            <div key={i} className="code-line">
              <span className="line-number">{i + 1}</span>
              <span className="line-text">{line || " "}</span>
            </div>
          ))}
        </pre>
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

/** CSV as a table (the first 10,000 rows). */
export function CsvViewer({ id }: { id: string }) {
  const state = useArtifactText(id);
  const table = useMemo(() => (state.kind === "ready" ? parseCsv(state.text, MAX_CSV_ROWS + 1) : null), [state]);
  const [header, ...body] = table?.rows ?? [];
  return (
    <div className="text-viewer csv-viewer">
      <Status state={state} />
      {table ? (
        <table className="csv-table">
          <thead>
            <tr>{header?.map((cell, i) => <th key={i}>{cell}</th>)}</tr>
          </thead>
          <tbody>
            {body.slice(0, MAX_CSV_ROWS).map((row, r) => (
              <tr key={r}>
                {row.map((cell, c) => (
                  <td key={c}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {table?.more || body.length > MAX_CSV_ROWS ? <p className="muted viewer-status">Showing the first {MAX_CSV_ROWS.toLocaleString()} rows.</p> : null}
    </div>
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
