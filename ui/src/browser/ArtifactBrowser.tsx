import { useCallback, useEffect, useState } from "react";
import { startArtifactDrag } from "../drag";
import {
  artifactOpen,
  artifactRemove,
  artifactSaveAs,
  artifactSetPinned,
  artifactsQuery,
  artifactsSources,
  artifactsUsage,
  errorText,
  teamStatus,
  teamSync,
} from "../ipc";
import type { TeamStatus } from "../wire/TeamStatus";
import { TeamArtifacts } from "./TeamArtifacts";
import { TeamAudit } from "./TeamAudit";
import { ModelShareButton, type ModelShared, NoticeLine, type Notice, useItemActions, useModelShared } from "./actions";
import { ServerToolFilters, TypeFilter } from "./FilterSelects";
import { Thumb } from "./Thumb";
import { usePagedList } from "./paged";
import { type Scope, teamStatusDetails, teamStatusIsWarning, teamStatusText } from "./team";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { ArtifactSource } from "../wire/ArtifactSource";
import type { SortKey } from "../wire/SortKey";
import type { StorageUsage } from "../wire/StorageUsage";
import {
  DEFAULT_FILTERS,
  formatBytes,
  isFiltered,
  PAGE_SIZE,
  SORTS,
  sortBy,
  toQuery,
  usageFraction,
  usageText,
  whenText,
  type BrowserFilters,
} from "./filters";
import "./browser.css";

interface Props {
  onClose: () => void;
  /** Changes when calls may have stored new artifacts: the list reloads. */
  refresh: number;
}

type Layout = "grid" | "list";

/** Every stored artifact across sessions: search, filters, sort, thumbnails, pin, delete,
 * "Save as…", open in the canvas, and the storage used against the quota. */
export function ArtifactBrowser({ onClose, refresh }: Props) {
  const [filters, setFilters] = useState<BrowserFilters>(DEFAULT_FILTERS);
  const listed = usePagedList<ArtifactRecord>(
    (offset) => artifactsQuery(toQuery(filters, offset)).then((page) => ({ items: page.items, more: offset + page.items.length < page.total, total: page.total })),
    (record) => record.id,
    [filters, refresh],
  );
  const { items, loading, error: loadError, loadMore, update } = listed;
  const total = listed.total ?? 0;
  const [text, setText] = useState("");
  const [layout, setLayout] = useState<Layout>("grid");
  const [sources, setSources] = useState<ArtifactSource[]>([]);
  const [usage, setUsage] = useState<StorageUsage | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const { busy, act } = useItemActions(setNotice);
  const modelShared = useModelShared(setNotice);
  const rereadModelShared = modelShared.reread;
  // After new calls the proxy may have returned a shown file to a model: read again.
  useEffect(rereadModelShared, [rereadModelShared, refresh]);
  const [team, setTeam] = useState<TeamStatus | null>(null);
  const [scope, setScope] = useState<Scope>("local");
  const [syncing, setSyncing] = useState(false);
  const now = Date.now();

  // With a team store: its status, again 15 s after each answer while the browser is open (never
  // two at once: with the bucket away one may take half a minute).
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      teamStatus()
        .then((s) => live && setTeam(s), () => undefined)
        .finally(() => {
          if (live) timer = setTimeout(load, 15000);
        });
    load();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [refresh]);

  const syncNow = async () => {
    setSyncing(true);
    try {
      const report = await teamSync();
      setNotice(report.error ? { kind: "error", text: `Uploaded ${report.registered}; stopped: ${report.error}` } : { kind: "ok", text: `Uploaded ${report.registered} ${report.registered === 1 ? "file" : "files"} to the team` });
      setTeam(await teamStatus());
    } catch (e) {
      setNotice({ kind: "error", text: errorText(e) });
    } finally {
      setSyncing(false);
    }
  };

  // The search box applies after a short pause in typing.
  useEffect(() => {
    const timer = setTimeout(() => setFilters((f) => (f.text === text ? f : { ...f, text })), 200);
    return () => clearTimeout(timer);
  }, [text]);

  const refreshFacts = useCallback(() => {
    artifactsSources().then(setSources, () => undefined);
    artifactsUsage().then(setUsage, () => undefined);
  }, []);

  useEffect(refreshFacts, [refreshFacts, refresh]);


  const open = (record: ArtifactRecord) =>
    act(record.id, "Opening…", async () => {
      await artifactOpen(record.id);
    });

  const togglePin = (record: ArtifactRecord) =>
    act(record.id, record.persistence === "pinned" ? "Unpinning…" : "Pinning…", async () => {
      const updated = await artifactSetPinned(record.id, record.persistence !== "pinned");
      update((list) => (filters.pinnedOnly && updated.persistence !== "pinned" ? list.filter((i) => i.id !== updated.id) : list.map((i) => (i.id === updated.id ? updated : i))));
      refreshFacts();
    });

  const saveAs = (record: ArtifactRecord) =>
    act(record.id, "Saving…", async () => {
      const path = await artifactSaveAs(record.id);
      if (path) setNotice({ kind: "ok", text: `Saved ${record.name} to ${path}` });
    });

  const remove = (record: ArtifactRecord) =>
    act(record.id, "Deleting…", async () => {
      setConfirming(null);
      await artifactRemove(record.id);
      update((list) => list.filter((i) => i.id !== record.id), -1);
      setNotice({ kind: "ok", text: `Deleted ${record.name}` });
      refreshFacts();
    });

  const actions: ItemActions = { open, togglePin, saveAs, remove, confirming, setConfirming, busy, modelShared };

  return (
    <div className="artifact-browser">
      <header className="browser-header">
        <div>
          <p className="eyebrow">Artifacts</p>
          <h2>Files</h2>
        </div>
        {team ? (
          <span className="browser-layout browser-scope" role="group" aria-label="Whose files">
            <button type="button" className={scope === "local" ? "active" : ""} aria-pressed={scope === "local"} onClick={() => setScope("local")}>
              This machine
            </button>
            <button type="button" className={scope === "team" ? "active" : ""} aria-pressed={scope === "team"} onClick={() => setScope("team")}>
              Team
            </button>
            <button type="button" className={scope === "audit" ? "active" : ""} aria-pressed={scope === "audit"} onClick={() => setScope("audit")} title="Every member's calls and sampling exchanges">
              Team audit
            </button>
          </span>
        ) : null}
        {usage && scope === "local" ? <UsageBar usage={usage} /> : null}
        <button type="button" className="secondary browser-close" onClick={onClose} aria-label="Close the file browser">
          Close
        </button>
      </header>

      {team ? (
        <p className={`team-status${teamStatusIsWarning(team) ? " warning" : ""}`} role="status" title={teamStatusDetails(team).join("\n")}>
          <span>{teamStatusText(team)}</span>
          {team.backlog.count > 0 || team.backlog.records > 0 ? (
            <button type="button" className="secondary" onClick={syncNow} disabled={syncing}>
              {syncing ? "Uploading…" : "Upload now"}
            </button>
          ) : null}
        </p>
      ) : null}
      {team && scope === "audit" ? (
        <TeamAudit status={team} refresh={refresh} />
      ) : team && scope === "team" ? (
        <>
          {notice ? (
            <NoticeLine notice={notice} onDismiss={() => setNotice(null)} />
          ) : null}
          <TeamArtifacts status={team} refresh={refresh} onNotice={setNotice} />
        </>
      ) : (
      <>
      <div className="browser-controls">
        <input
          type="search"
          className="browser-search"
          placeholder="Search by name…"
          aria-label="Search by name"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <div className="browser-filters">
          <ServerToolFilters filters={filters} setFilters={setFilters} sources={sources} counts />
          <TypeFilter filters={filters} setFilters={setFilters} />
        </div>
        <div className="browser-filters">
          <label className="browser-check">
            <input type="checkbox" checked={filters.pinnedOnly} onChange={(e) => setFilters((f) => ({ ...f, pinnedOnly: e.target.checked }))} />
            Pinned only
          </label>
          <span className="browser-sort">
            <select aria-label="Sort by" value={filters.sort} onChange={(e) => setFilters((f) => ({ ...f, sort: e.target.value as SortKey, descending: e.target.value !== "name" }))}>
              {SORTS.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
            <button
              type="button"
              className="secondary browser-direction"
              onClick={() => setFilters((f) => ({ ...f, descending: !f.descending }))}
              aria-label={filters.descending ? "Descending; switch to ascending" : "Ascending; switch to descending"}
              title={filters.descending ? "Descending" : "Ascending"}
            >
              {filters.descending ? "↓" : "↑"}
            </button>
          </span>
          <span className="browser-layout" role="group" aria-label="Layout">
            <button type="button" className={layout === "grid" ? "active" : ""} aria-pressed={layout === "grid"} onClick={() => setLayout("grid")}>
              Grid
            </button>
            <button type="button" className={layout === "list" ? "active" : ""} aria-pressed={layout === "list"} onClick={() => setLayout("list")}>
              List
            </button>
          </span>
        </div>
      </div>

      {notice ? (
        <NoticeLine notice={notice} onDismiss={() => setNotice(null)} />
      ) : null}
      {loadError ? <p className="error small browser-error">{loadError}</p> : null}

      <div className="browser-body">
        {items.length === 0 && !loading ? (
          <div className="empty-hint browser-empty">
            <h2>{isFiltered(filters) ? "Nothing matches" : "No files yet"}</h2>
            <p>{isFiltered(filters) ? "Try another name, server, tool or type." : "Images, documents and data that tools return are stored here, across sessions."}</p>
          </div>
        ) : layout === "grid" ? (
          <ul className="artifact-grid">
            {items.map((record) => (
              <ArtifactCard key={record.id} record={record} now={now} actions={actions} />
            ))}
          </ul>
        ) : (
          <ArtifactTable items={items} now={now} actions={actions} filters={filters} onSort={(key) => setFilters((f) => sortBy(f, key))} />
        )}
      </div>

      <footer className="browser-footer">
        <span className="muted small">{loading ? "Loading…" : `${items.length} of ${total} ${total === 1 ? "file" : "files"}`}</span>
        {items.length < total && !loading ? (
          <button type="button" className="secondary" onClick={loadMore}>
            Load {Math.min(PAGE_SIZE, total - items.length)} more
          </button>
        ) : null}
      </footer>
      </>
      )}
    </div>
  );
}

function UsageBar({ usage }: { usage: StorageUsage }) {
  const fraction = usageFraction(usage);
  const pinned = usage.quota_bytes > 0 ? Math.min(fraction, usage.pinned_bytes / usage.quota_bytes) : 0;
  const title = `${formatBytes(usage.used_bytes)} stored in ${usage.artifacts} ${usage.artifacts === 1 ? "file" : "files"}; ${formatBytes(usage.pinned_bytes)} pinned (${usage.pinned}), never evicted. Beyond the quota, unpinned files are evicted least recently used first.`;
  return (
    <div className={`usage${fraction >= 0.9 ? " high" : ""}`} title={title}>
      <span className="usage-text">{usageText(usage)}</span>
      <span className="usage-bar" role="meter" aria-label="Storage used" aria-valuemin={0} aria-valuemax={usage.quota_bytes} aria-valuenow={usage.used_bytes} aria-valuetext={usageText(usage)}>
        <span className="usage-fill" style={{ width: `${fraction * 100}%` }} />
        <span className="usage-pinned" style={{ width: `${pinned * 100}%` }} />
      </span>
    </div>
  );
}

interface ItemActions {
  open: (r: ArtifactRecord) => void;
  togglePin: (r: ArtifactRecord) => void;
  saveAs: (r: ArtifactRecord) => void;
  remove: (r: ArtifactRecord) => void;
  confirming: string | null;
  setConfirming: (id: string | null) => void;
  busy: Record<string, string>;
  /** Whether AI hosts may use each file (this machine's files only). */
  modelShared: ModelShared;
}

function ArtifactCard({ record, now, actions }: { record: ArtifactRecord; now: number; actions: ItemActions }) {
  const pinned = record.persistence === "pinned";
  return (
    <li className={`artifact-card${pinned ? " pinned" : ""}`} data-artifact={record.id} draggable onDragStart={(e) => startArtifactDrag(e, record.id)}>
      <button type="button" className="card-open" onClick={() => actions.open(record)} title={`Open ${record.name} in the canvas`}>
        <Thumb record={record} />
        {pinned ? <span className="pin-badge">Pinned</span> : null}
      </button>
      <div className="card-text">
        <span className="card-name" title={record.name}>
          {record.name}
        </span>
        <span className="card-meta" title={`${record.server} / ${record.tool}`}>
          {record.server} · {record.tool}
        </span>
        <span className="card-meta">
          {formatBytes(record.size)} · {whenText(record.created_at_ms, now)}
        </span>
      </div>
      <ItemButtons record={record} actions={actions} />
    </li>
  );
}

function ItemButtons({ record, actions }: { record: ArtifactRecord; actions: ItemActions }) {
  const pinned = record.persistence === "pinned";
  const busy = actions.busy[record.id];
  if (busy) return <div className="item-actions muted small">{busy}</div>;
  if (actions.confirming === record.id) {
    return (
      <div className="item-actions confirm-delete" role="group" aria-label={`Delete ${record.name}?`}>
        <span className="small">Delete{pinned ? " this pinned file" : ""}?</span>
        <button type="button" className="danger-text" onClick={() => actions.remove(record)}>
          Delete
        </button>
        <button type="button" onClick={() => actions.setConfirming(null)}>
          Keep
        </button>
      </div>
    );
  }
  return (
    <div className="item-actions">
      <button type="button" onClick={() => actions.open(record)}>
        Open
      </button>
      <button type="button" onClick={() => actions.togglePin(record)} aria-pressed={pinned} title={pinned ? "Unpin: may be evicted by the quota again" : "Pin: kept through session clears and the quota"}>
        {pinned ? "Unpin" : "Pin"}
      </button>
      <ModelShareButton id={record.id} name={record.name} model={actions.modelShared} />
      <button type="button" onClick={() => actions.saveAs(record)} title="Save a copy as a file">
        Save as…
      </button>
      <button type="button" className="danger-text" onClick={() => actions.setConfirming(record.id)} aria-label={`Delete ${record.name}`}>
        Delete
      </button>
    </div>
  );
}

function ArtifactTable({ items, now, actions, filters, onSort }: { items: ArtifactRecord[]; now: number; actions: ItemActions; filters: BrowserFilters; onSort: (key: SortKey) => void }) {
  const header = (key: SortKey, label: string) => {
    const active = filters.sort === key;
    return (
      <th aria-sort={active ? (filters.descending ? "descending" : "ascending") : "none"}>
        <button type="button" className={`sort-header${active ? " active" : ""}`} onClick={() => onSort(key)}>
          {label}
          {active ? (filters.descending ? " ↓" : " ↑") : ""}
        </button>
      </th>
    );
  };
  return (
    <table className="artifact-table">
      <colgroup>
        <col className="col-thumb" />
        <col />
        <col className="col-from" />
        <col className="col-size" />
        <col className="col-when" />
      </colgroup>
      <thead>
        <tr>
          <th aria-label="Preview" />
          {header("name", "Name")}
          <th>From</th>
          {header("size", "Size")}
          {header("created", "Created")}
        </tr>
      </thead>
      <tbody>
        {items.map((record) => (
          <tr key={record.id} data-artifact={record.id} className={record.persistence === "pinned" ? "pinned" : ""} draggable onDragStart={(e) => startArtifactDrag(e, record.id)}>
            <td className="row-thumb">
              <button type="button" className="card-open" onClick={() => actions.open(record)} aria-label={`Open ${record.name}`}>
                <Thumb record={record} small />
              </button>
            </td>
            <td className="row-name">
              <span className="row-title">
                <span className="card-name" title={record.name}>
                  {record.name}
                </span>
                {record.persistence === "pinned" ? <span className="pin-badge inline">Pinned</span> : null}
              </span>
              <span className="card-meta" title={`${record.mime} · last used ${whenText(record.last_used_at_ms, now)}`}>
                {record.mime}
              </span>
              <ItemButtons record={record} actions={actions} />
            </td>
            <td className="card-meta row-from" title={`${record.server} / ${record.tool}`}>
              {record.server}
              <br />
              {record.tool}
            </td>
            <td className="numeric">{formatBytes(record.size)}</td>
            <td className="row-when">{whenText(record.created_at_ms, now)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
