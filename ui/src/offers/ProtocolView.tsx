import { useEffect, useMemo, useRef, useState } from "react";
import { CommandErrorView } from "../components/CommandErrorView";
import { OfferHeader } from "./OfferHeader";
import { errorText, protocolExport, protocolLog } from "../ipc";
import type { ProtocolEntry } from "../wire/ProtocolEntry";
import type { ProtocolPage } from "../wire/ProtocolPage";
import { formatBytes } from "../browser/filters";

/** How often the log is asked for what is new while the view is open. */
export const PROTOCOL_POLL_MS = 1000;
/** Entries asked for at a time; when more are waiting the view asks again at once. */
export const PROTOCOL_PAGE = 500;
/** Pages read one after another in one poll; whatever is still waiting comes with the next. */
export const PROTOCOL_CATCH_UP_PAGES = 20;
/** The view keeps at most this many entries (the host keeps its own bounded log). */
export const PROTOCOL_VIEW_MAX = 2000;

/** Newest entries appended to what the view holds (none twice), the oldest dropped past the bound. */
export function merged(held: ProtocolEntry[], fresh: ProtocolEntry[], max = PROTOCOL_VIEW_MAX): ProtocolEntry[] {
  const last = held.length > 0 ? held[held.length - 1].seq : 0;
  const all = held.concat(fresh.filter((e) => e.seq > last));
  return all.length > max ? all.slice(all.length - max) : all;
}

/** What one poll read: every entry after `from` the log held (oldest first), how far it read,
 * and what the log's own bound dropped. */
export interface CaughtUp {
  entries: ProtocolEntry[];
  /** Ask after this next time. */
  through: number;
  /** Whether entries are still waiting (the poll stopped at `maxPages`). */
  more: boolean;
  /** Entries the log has dropped in all. */
  dropped: number;
  /** Of those, the ones after `from` (from 0, a first read: after its first page) that were gone
   * before the view could read them. */
  missed: number;
}

/** Reads page after page after `from` until the log has nothing more waiting (or `maxPages` were
 * read), so a burst larger than a page between two polls is read whole, in order. `stop` ends it
 * early (the view closed or its filter changed). */
export async function catchUp(ask: (after: number) => Promise<ProtocolPage>, from: number, maxPages = PROTOCOL_CATCH_UP_PAGES, stop: () => boolean = () => false): Promise<CaughtUp> {
  const read: CaughtUp = { entries: [], through: from, more: true, dropped: 0, missed: 0 };
  for (let pages = 0; read.more && pages < maxPages && !stop(); pages++) {
    const page = await ask(read.through);
    // Each page counts what was dropped between where it started and the oldest kept: pages
    // start where the last one ended, so no entry is counted twice. A first read (from 0) starts
    // at the oldest kept entry: what was dropped before it is the log's history, not missed.
    if (pages > 0 || from > 0) read.missed += page.missed;
    read.dropped = page.dropped;
    read.entries.push(...page.entries);
    // Never backwards: a page answers for everything up to its `through_seq`.
    read.through = Math.max(read.through, page.through_seq);
    read.more = page.more;
  }
  return read;
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
  // Entries the log dropped after the view had started reading, before it could read them.
  const [missed, setMissed] = useState(0);
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
    setMissed(0);
  }, [server, method, call]);

  useEffect(() => {
    if (paused) return;
    let live = true;
    // One request at a time: a slow page is not asked for again while it is on its way.
    let asking = false;
    const fetchNew = () => {
      if (asking) return Promise.resolve();
      asking = true;
      const from = last.current;
      const filter = { method: method.trim() || null, call, limit: PROTOCOL_PAGE };
      return catchUp((after) => protocolLog(server, { ...filter, after_seq: after }), from, PROTOCOL_CATCH_UP_PAGES, () => !live)
        .then(
          (read) => {
            if (!live) return;
            setError(null);
            setDropped(read.dropped);
            if (read.missed > 0) setMissed((n) => n + read.missed);
            last.current = read.through;
            if (read.entries.length > 0) setEntries((held) => merged(held, read.entries));
          },
          (e) => live && setError(e),
        )
        .finally(() => {
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
        {entries.length} message{entries.length === 1 ? "" : "s"} shown{dropped > 0 ? ` · ${dropped} older ones dropped (the log keeps the newest)` : ""}
        {missed > 0 ? ` · ${missed} dropped by the log before this view could read them` : ""} · secrets redacted, base64 shown as the artifact it became
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
