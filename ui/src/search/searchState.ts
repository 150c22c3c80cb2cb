// The search palette's logic without React or Tauri: what it asks `artifacts_search` for (the
// text exactly as typed — the backend reads words, "phrases" and the prefix being typed from
// it — and the filters), which answer it may show (only the newest request's: answers to
// earlier keystrokes can arrive after later ones), how hits are grouped under their artifact and
// walked with the arrow keys, what "where" says, and how a hit opens. With a team store the same
// palette searches the team's files (`team_search`) instead: the scope, who stored each hit, and
// the member filter are here too.
import { familyOf } from "../browser/filters";
import type { Scope } from "../browser/team";
import type { FocusPlace } from "../wire/FocusPlace";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { MimeFamily } from "../wire/MimeFamily";
import type { SearchHit } from "../wire/SearchHit";
import type { SearchQuery } from "../wire/SearchQuery";

/** The pause in typing after which the palette asks (each keystroke would be a query). */
export const SEARCH_DEBOUNCE_MS = 120;

/** Hits asked for (the backend caps at 200, and gives at most three per artifact). */
export const SEARCH_LIMIT = 60;

export type DateRange = "any" | "today" | "week" | "month";

/** The date filter's choices: `days` back from now (0: since midnight today, local time). */
export const DATE_RANGES: { value: DateRange; label: string; days: number | null }[] = [
  { value: "any", label: "Any time", days: null },
  { value: "today", label: "Today", days: 0 },
  { value: "week", label: "Last 7 days", days: 7 },
  { value: "month", label: "Last 30 days", days: 30 },
];

export interface SearchFilters {
  family: MimeFamily | null;
  server: string | null;
  tool: string | null;
  date: DateRange;
  /** Only this member's files: the team's search only (sent as `null` to the local one). */
  member: string | null;
}

export const NO_FILTERS: SearchFilters = { family: null, server: null, tool: null, date: "any", member: null };

const DAY_MS = 86_400_000;

/** The earliest creation time a date range lets through, or `null` for any time. */
export function sinceFor(range: DateRange, now: number): number | null {
  const days = DATE_RANGES.find((r) => r.value === range)?.days ?? null;
  if (days === null) return null;
  if (days === 0) {
    const midnight = new Date(now);
    midnight.setHours(0, 0, 0, 0);
    return midnight.getTime();
  }
  return now - days * DAY_MS;
}

/** Whether there is anything to search for (blank text shows the hint instead). */
export const hasText = (text: string): boolean => text.trim() !== "";

/** The query for what was typed (sent as is: a trailing space ends the prefix) and the filters,
 * across every session; the member filter only for the team's search. */
export function toSearchQuery(text: string, filters: SearchFilters, now: number, scope: Scope = "local", limit = SEARCH_LIMIT): SearchQuery {
  return {
    text,
    session: null,
    server: filters.server,
    tool: filters.tool,
    family: filters.family,
    since_ms: sinceFor(filters.date, now),
    until_ms: null,
    name_contains: null,
    pinned_only: false,
    member: scope === "team" ? filters.member : null,
    // The person's own search sees every file; only the proxy's tool for a model is narrowed.
    shared_with_model: false,
    limit,
  };
}

/** Tickets for requests in flight: an answer is shown only when its ticket is still the newest
 * (`drop` makes every ticket out of date: the text was cleared, the palette closed). */
export function newestOnly() {
  let newest = 0;
  return {
    next: (): number => ++newest,
    isNewest: (ticket: number): boolean => ticket === newest,
    drop: (): void => {
      newest++;
    },
  };
}

/** One artifact's hits, in the order the backend ranked the artifact's best one; `index` is the
 * hit's place in the list as shown (what the arrow keys walk). `member`: who stored it (team
 * search), `null` for this machine's files. */
export interface HitGroup {
  artifact: ArtifactRecord;
  member: string | null;
  hits: { hit: SearchHit; index: number }[];
}

export function groupHits(hits: SearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    const group = groups.get(hit.artifact.id);
    if (group) group.hits.push({ hit, index: 0 });
    else groups.set(hit.artifact.id, { artifact: hit.artifact, member: hit.member, hits: [{ hit, index: 0 }] });
  }
  let index = 0;
  for (const group of groups.values()) for (const entry of group.hits) entry.index = index++;
  return [...groups.values()];
}

/** The hits in the order shown. */
export const shownOrder = (groups: HitGroup[]): SearchHit[] => groups.flatMap((g) => g.hits.map((h) => h.hit));

/** The selection after an arrow key: one step, stopping at the ends. */
export function moveSelection(current: number, step: 1 | -1, count: number): number {
  if (count <= 0) return 0;
  return Math.min(count - 1, Math.max(0, current + step));
}

/** Where in its file a hit is, in words: "page 12", "row 340", "header", "line 7", "name",
 * "call". HTML and SVG hits are blocks of their text, not lines. */
export function placeText(hit: Pick<SearchHit, "place" | "position" | "artifact">): string {
  const n = hit.position.toLocaleString();
  switch (hit.place) {
    case "page":
      return `page ${n}`;
    case "row":
      return hit.position === 0 ? "header" : `row ${n}`;
    case "line":
      return isMarkup(hit.artifact.mime) ? `text block ${n}` : `line ${n}`;
    case "name":
      return "name";
    case "call":
      return "call";
  }
}

const isMarkup = (mime: string): boolean => familyOf(mime) === "html" || mime.split(";")[0].trim().toLowerCase() === "image/svg+xml";

/** How a hit opens: at its page, row or line (`artifact_open_at`), or a name or call hit just
 * opens the file (`artifact_open`). */
export type OpenAction = { kind: "open" } | { kind: "open_at"; place: FocusPlace; position: number };

export function openAction(hit: Pick<SearchHit, "place" | "position">): OpenAction {
  switch (hit.place) {
    case "page":
    case "row":
    case "line":
      return { kind: "open_at", place: hit.place, position: hit.position };
    case "name":
    case "call":
      return { kind: "open" };
  }
}

/** The scope searched: the one chosen, while there is a team store to search. `team` is the
 * store's status: `null` with a local store, `undefined` while it is being asked for (a Team
 * choice remembered from earlier in the session stands meanwhile: the store cannot change from
 * local to team without a restart, and the status may take seconds with the bucket away). */
export function searchScope(chosen: Scope, team: unknown): Scope {
  return chosen === "team" && team !== null ? "team" : "local";
}

/** Who stored a team hit, as the team's file list says it: "ada", or "ada (you)" for mine
 * (`me`: this member's identity, `null` until known); `null` for this machine's hits. */
export function memberText(member: string, me: string | null): string;
export function memberText(member: string | null, me: string | null): string | null;
export function memberText(member: string | null, me: string | null): string | null {
  if (member === null) return null;
  return member === me ? `${member} (you)` : member;
}

/** The quiet line about files whose text is not searchable yet, or `null`. */
export function pendingText(pending: number): string | null {
  if (!(pending > 0)) return null;
  return `${pending.toLocaleString()} ${pending === 1 ? "file" : "files"} still being indexed`;
}
