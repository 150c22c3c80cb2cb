import { useEffect, useMemo, useRef, useState } from "react";
import { CommandErrorView } from "../components/CommandErrorView";
import { OfferHeader } from "./OfferHeader";
import { errorText, protocolExport, protocolLog } from "../ipc";
import type { ProtocolEntry } from "../wire/ProtocolEntry";
import { formatBytes } from "../browser/filters";

/** How often the log is asked for what is new while the view is open. */
export const PROTOCOL_POLL_MS = 1000;
/** Entries asked for at a time (more come with the next poll). */
export const PROTOCOL_PAGE = 500;
/** The view keeps at most this many entries (the host keeps its own bounded log). */
export const PROTOCOL_VIEW_MAX = 2000;

/** Newest entries appended to what the view holds (none twice), the oldest dropped past the bound. */
export function merged(held: ProtocolEntry[], fresh: ProtocolEntry[], max = PROTOCOL_VIEW_MAX): ProtocolEntry[] {
  const last = held.length > 0 ? held[held.length - 1].seq : 0;
  const all = held.concat(fresh.filter((e) => e.seq > last));
  return all.length > max ? all.slice(all.length - max) : all;
}

/** The message text, pretty-printed when it is whole JSON. */
export function prettyText(entry: ProtocolEntry): string {
  if (entry.cut) return entry.text;
  try {
    return JSON.stringify(JSON.parse(entry.text), null, 2);
  } catch {
    return entry.text;
  }
}

const time = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour12: false }) + `.${String(ms % 1000).padStart(3, "0")}`;

/** A server's JSON-RPC messages both ways, live: filter by method or call, expand one, export. */
export function ProtocolView({ server, onClose }: { server: string; onClose: () => void }) {
  const [entries, setEntries] = useState<ProtocolEntry[]>([]);
  const [dropped, setDropped] = useState(0);
  const [method, setMethod] = useState("");
  const [call, setCall] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [paused, setPaused] = useState(false);
  const last = useRef(0);

  // A new filter starts from the oldest kept entry.
  useEffect(() => {
    last.current = 0;
    setEntries([]);
  }, [server, method, call]);

  useEffect(() => {
    if (paused) return;
    let live = true;
    // One request at a time: a slow page is not asked for again while it is on its way.
    let asking = false;
    const fetchNew = () => {
      if (asking) return Promise.resolve();
      asking = true;
      return protocolLog(server, { after_seq: last.current, method: method.trim() || null, call, limit: PROTOCOL_PAGE }).then(
        (page) => {
          if (!live) return;
          setError(null);
          setDropped(page.dropped);
          if (page.entries.length > 0) {
            last.current = page.entries[page.entries.length - 1].seq;
            setEntries((held) => merged(held, page.entries));
          } else {
            last.current = Math.max(last.current, page.last_seq);
          }
        },
        (e) => live && setError(e),
      ).finally(() => {
        asking = false;
      });
    };
    void fetchNew();
    const timer = window.setInterval(() => void fetchNew(), PROTOCOL_POLL_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [server, method, call, paused]);

  const shown = useMemo(() => [...entries].reverse(), [entries]);

  async function exportLog() {
    setNote(null);
    try {
      const path = await protocolExport(server);
      if (path) setNote(`Saved to ${path}`);
    } catch (e) {
      setNote(errorText(e));
    }
  }

  return (
    <div className="offer-panel protocol-view" data-server={server}>
      <OfferHeader what="Protocol" server={server} onClose={onClose}>
        <button type="button" aria-pressed={paused} onClick={() => setPaused((p) => !p)} title="Stop or resume following new messages">
          {paused ? "Resume" : "Pause"}
        </button>
        <button type="button" className="protocol-export" onClick={() => void exportLog()} title="Save every kept message as JSON lines">
          Export
        </button>
      </OfferHeader>
      <div className="protocol-filters">
        <input type="search" className="protocol-method" placeholder="Filter by method (tools/call…)" value={method} onChange={(e) => setMethod(e.target.value)} aria-label="Filter by method" />
        {call !== null ? (
          <button type="button" className="chip protocol-call-filter" onClick={() => setCall(null)} title="Show every call again">
            call {call} ×
          </button>
        ) : null}
      </div>
      <p className="muted small protocol-status">
        {entries.length} message{entries.length === 1 ? "" : "s"} shown{dropped > 0 ? ` · ${dropped} older ones dropped (the log keeps the newest)` : ""} · secrets redacted, base64 shown as the artifact it became
      </p>
      {note ? <p className="muted small">{note}</p> : null}
      {error !== null ? <CommandErrorView error={error} server={server} /> : null}
      <ol className="protocol-list" aria-label="Messages, newest first">
        {shown.map((e) => (
          <li key={e.seq} className={`protocol-entry ${e.direction} ${e.kind}`} data-seq={e.seq} data-method={e.method ?? ""}>
            <button type="button" className="protocol-row" aria-expanded={open === e.seq} onClick={() => setOpen(open === e.seq ? null : e.seq)}>
              <span className="protocol-dir" title={e.direction === "sent" ? "sent to the server" : "received from the server"}>
                {e.direction === "sent" ? "→" : "←"}
              </span>
              <span className="protocol-method-name">
                {e.method ?? "(no method)"}
                {e.kind === "response" || e.kind === "error" ? <span className={`protocol-kind ${e.kind}`}> {e.kind === "error" ? "error" : "result"}</span> : null}
                {e.kind === "notification" ? <span className="protocol-kind"> notification</span> : null}
              </span>
              <span className="protocol-latency">{e.latency_ms !== null ? `${e.latency_ms} ms` : ""}</span>
              <span className="protocol-meta">
                {time(e.at_ms)} · {formatBytes(e.bytes)}
                {e.id !== null ? ` · id ${e.id}` : ""}
              </span>
            </button>
            {open === e.seq ? (
              <div className="protocol-detail">
                <div className="protocol-detail-actions">
                  {e.id !== null ? <span className="muted small">id {e.id}</span> : null}
                  {e.runs > 0 ? <span className="muted small">{e.runs} base64 run{e.runs === 1 ? "" : "s"} shown as notes</span> : null}
                  {e.call !== null && call === null ? (
                    <button type="button" className="protocol-only-call" onClick={() => setCall(e.call)}>
                      Only this call
                    </button>
                  ) : null}
                </div>
                <pre className="protocol-text">{prettyText(e)}</pre>
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
