// The team's audit view: its filters as a query, the filters' choices, and one line per row.
import type { TeamAuditQuery } from "../wire/TeamAuditQuery";
import type { TeamAuditSource } from "../wire/TeamAuditSource";
import type { TeamLogEntry } from "../wire/TeamLogEntry";
import type { TeamLogKind } from "../wire/TeamLogKind";

/** Rows per page. */
export const AUDIT_PAGE = 100;

export type Since = "any" | "hour" | "day" | "week" | "month";

export const SINCE_CHOICES: { value: Since; text: string }[] = [
  { value: "hour", text: "Last hour" },
  { value: "day", text: "Last 24 hours" },
  { value: "week", text: "Last 7 days" },
  { value: "month", text: "Last 30 days" },
];

const SINCE_MS: Record<Since, number | null> = { any: null, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 };

export interface AuditFilters {
  kind: TeamLogKind | null;
  member: string | null;
  server: string | null;
  tool: string | null;
  outcome: string | null;
  since: Since;
}

export const DEFAULT_AUDIT_FILTERS: AuditFilters = { kind: null, member: null, server: null, tool: null, outcome: null, since: "any" };

/** The query for one page of rows under `filters` (`now`: ms since the epoch). */
export function toAuditQuery(filters: AuditFilters, offset: number, now: number): TeamAuditQuery {
  const since = SINCE_MS[filters.since];
  return {
    kind: filters.kind,
    member: filters.member,
    server: filters.server,
    // Sampling exchanges have no tool: a tool filter means calls.
    tool: filters.kind === "sampling" ? null : filters.tool,
    outcome: filters.outcome,
    since_ms: since === null ? null : now - since,
    until_ms: null,
    limit: AUDIT_PAGE,
    offset,
  };
}

const unique = (values: string[]) => [...new Set(values)].sort((a, b) => a.localeCompare(b));

/** The members to filter by. */
export function auditMembers(sources: TeamAuditSource[]): string[] {
  return unique(sources.map((s) => s.member));
}

/** The servers to filter by (of the chosen member, when one is). */
export function auditServers(sources: TeamAuditSource[], member: string | null): string[] {
  return unique(sources.filter((s) => member === null || s.member === member).map((s) => s.server));
}

/** The tools to filter by (of the chosen member and server, when chosen). */
export function auditTools(sources: TeamAuditSource[], member: string | null, server: string | null): string[] {
  return unique(sources.filter((s) => (member === null || s.member === member) && (server === null || s.server === server) && s.tool !== null).map((s) => s.tool as string));
}

/** What the row was: `server / tool`, or `server asked for a completion`. */
export function whatText(entry: TeamLogEntry): string {
  return entry.kind === "call" ? `${entry.server} / ${entry.tool ?? "?"}` : `${entry.server} · sampling`;
}

/** Whether the row ended badly (shown as an error). */
export function isFailure(entry: TeamLogEntry): boolean {
  return !["ok", "automatic", "approved", "edited", "response_edited"].includes(entry.outcome);
}

/** A call's arguments, indented (they are redacted where they were written). */
export function argumentsText(entry: TeamLogEntry): string {
  return entry.call ? JSON.stringify(entry.call.arguments, null, 2) : "";
}

