import { useEffect, useState } from "react";
import { teamAudit, teamAuditSources } from "../ipc";
import { usePagedList } from "./paged";
import type { ExchangeRecord } from "../wire/ExchangeRecord";
import type { TeamAuditSource } from "../wire/TeamAuditSource";
import type { TeamLogEntry } from "../wire/TeamLogEntry";
import type { TeamLogKind } from "../wire/TeamLogKind";
import type { TeamStatus } from "../wire/TeamStatus";
import { Exchange } from "../components/sampling/SamplingLogDialog";
import { FilterSelect } from "./FilterSelects";
import { whenText } from "./filters";
import {
  AUDIT_PAGE,
  argumentsText,
  auditMembers,
  auditServers,
  auditTools,
  DEFAULT_AUDIT_FILTERS,
  isFailure,
  SINCE_CHOICES,
  toAuditQuery,
  whatText,
  type AuditFilters,
  type Since,
} from "./teamAudit";

interface Props {
  status: TeamStatus;
  /** Changes after calls: the list reloads. */
  refresh: number;
}

const KIND_CHOICES: { value: TeamLogKind; text: string }[] = [
  { value: "call", text: "Calls" },
  { value: "sampling", text: "Sampling" },
];

/** The team's audit trail: every member's calls (redacted arguments, artifacts, outcome) and
 * sampling exchanges (their transcripts), newest first, with filters. A call naming a teammate's
 * private file is not listed. */
export function TeamAudit({ status, refresh }: Props) {
  const [filters, setFilters] = useState<AuditFilters>(DEFAULT_AUDIT_FILTERS);
  const [sources, setSources] = useState<TeamAuditSource[]>([]);
  const now = Date.now();
  const { items: rows, more, loading, error, loadMore } = usePagedList<TeamLogEntry>(
    (offset) => teamAudit(toAuditQuery(filters, offset, Date.now())).then((page) => ({ items: page, more: page.length === AUDIT_PAGE })),
    (row) => row.uid,
    [filters, refresh],
  );

  useEffect(() => {
    let live = true;
    teamAuditSources().then(
      (found) => live && setSources(found),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [filters, refresh]);

  const me = (member: string) => (member === status.member ? `${member} (you)` : member);
  const set = (change: Partial<AuditFilters>) => setFilters((f) => ({ ...f, ...change }));

  return (
    <>
      <div className="browser-controls team-audit">
        <div className="browser-filters">
          <FilterSelect label="What" value={filters.kind} all="All" choices={KIND_CHOICES} onChange={(kind) => set({ kind })} />
          <FilterSelect label="Member" value={filters.member} all="Everyone" choices={auditMembers(sources).map((m) => ({ value: m, text: me(m) }))} onChange={(member) => set({ member })} />
          <FilterSelect label="Server" value={filters.server} all="All servers" choices={auditServers(sources, filters.member).map((s) => ({ value: s, text: s }))} onChange={(server) => set({ server, tool: null })} />
          <FilterSelect label="Tool" value={filters.tool} all="All tools" choices={auditTools(sources, filters.member, filters.server).map((t) => ({ value: t, text: t }))} onChange={(tool) => set({ tool })} />
          <FilterSelect<Since> label="When" value={filters.since === "any" ? null : filters.since} all="Any time" choices={SINCE_CHOICES} onChange={(since) => set({ since: since ?? "any" })} />
        </div>
      </div>
      {error ? <p className="error small browser-error">{error}</p> : null}
      <div className="browser-body">
        {rows.length === 0 && !loading ? (
          <div className="empty-hint browser-empty">
            <h2>No calls here yet</h2>
            <p>Every member's calls and sampling exchanges are recorded here, with secrets redacted. Calls about a teammate's private file are not shown.</p>
          </div>
        ) : (
          <table className="artifact-table team-table team-audit-table">
            <colgroup>
              <col className="col-when" />
              <col className="col-member" />
              <col />
              <col className="col-outcome" />
            </colgroup>
            <thead>
              <tr>
                <th>When</th>
                <th>Member</th>
                <th>What</th>
                <th>Outcome</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.uid} data-team-audit={r.kind} data-member={r.member} className={isFailure(r) ? "failed" : ""}>
                  <td className="row-when" title={new Date(r.at_ms).toLocaleString()}>
                    {whenText(r.at_ms, now)}
                  </td>
                  <td className="row-member">{me(r.member)}</td>
                  <td className="row-what">
                    <details>
                      <summary>
                        {whatText(r)}
                        {r.artifact_ids.length > 0 ? <span className="card-meta"> · {r.artifact_ids.length === 1 ? "1 file" : `${r.artifact_ids.length} files`}</span> : null}
                      </summary>
                      {r.call ? (
                        <>
                          <pre className="call-record-arguments">{argumentsText(r)}</pre>
                          {r.call.detail ? <p className="small muted">{r.call.detail}</p> : null}
                          {r.artifact_ids.length > 0 ? <p className="small muted">Files: {r.artifact_ids.join(", ")}</p> : null}
                          <p className="small muted">{r.call.duration_ms} ms</p>
                        </>
                      ) : null}
                      {r.exchange ? (
                        <ol className="sampling-log">
                          <Exchange record={r.exchange as ExchangeRecord} />
                        </ol>
                      ) : null}
                    </details>
                  </td>
                  <td className={`row-outcome${isFailure(r) ? " error" : ""}`}>{r.outcome.replace(/_/g, " ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <footer className="browser-footer">
        <span className="muted small">{loading ? "Loading…" : `${rows.length} ${rows.length === 1 ? "entry" : "entries"}`}</span>
        {more && !loading ? (
          <button type="button" className="secondary" onClick={loadMore}>
            Load more
          </button>
        ) : null}
      </footer>
    </>
  );
}
