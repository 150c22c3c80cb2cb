// The artifact browser's logic without React or Tauri: filters → the store query, filter options
// from the servers and tools that produced artifacts, sizes, the usage line, thumbnails, icons.
import type { ArtifactQuery } from "../wire/ArtifactQuery";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { ArtifactSource } from "../wire/ArtifactSource";
import type { MimeFamily } from "../wire/MimeFamily";
import type { SortKey } from "../wire/SortKey";
import type { StorageUsage } from "../wire/StorageUsage";

export interface BrowserFilters {
  /** Name contains (case-insensitive). */
  text: string;
  server: string | null;
  tool: string | null;
  family: MimeFamily | null;
  pinnedOnly: boolean;
  sort: SortKey;
  descending: boolean;
}

export const DEFAULT_FILTERS: BrowserFilters = { text: "", server: null, tool: null, family: null, pinnedOnly: false, sort: "created", descending: true };

/** Rows fetched per page. */
export const PAGE_SIZE = 60;

export const FAMILIES: { value: MimeFamily; label: string }[] = [
  { value: "image", label: "Images" },
  { value: "pdf", label: "PDFs" },
  { value: "html", label: "HTML" },
  { value: "text", label: "Text, data & code" },
  { value: "audio", label: "Audio" },
  { value: "video", label: "Video" },
  { value: "other", label: "Other files" },
];

export const SORTS: { value: SortKey; label: string }[] = [
  { value: "created", label: "Created" },
  { value: "last_used", label: "Last used" },
  { value: "name", label: "Name" },
  { value: "size", label: "Size" },
];

/** The store query for these filters (across every session). */
export function toQuery(filters: BrowserFilters, offset = 0, limit = PAGE_SIZE): ArtifactQuery {
  const text = filters.text.trim();
  return {
    session: null,
    server: filters.server,
    tool: filters.tool,
    family: filters.family,
    name_contains: text === "" ? null : text,
    pinned_only: filters.pinnedOnly,
    sort: filters.sort,
    descending: filters.descending,
    limit,
    offset,
  };
}

/** Whether the filters narrow the list at all (the empty state says so). */
export const isFiltered = (f: BrowserFilters): boolean => f.text.trim() !== "" || f.server !== null || f.tool !== null || f.family !== null || f.pinnedOnly;

export interface Option {
  value: string;
  count: number;
}

/** The servers that produced artifacts, with counts, by name. */
export function serverOptions(sources: ArtifactSource[]): Option[] {
  return merge(sources.map((s) => [s.server, s.count]));
}

/** The tools of `server` (every server's when `null`) that produced artifacts, with counts. */
export function toolOptions(sources: ArtifactSource[], server: string | null): Option[] {
  return merge(sources.filter((s) => server === null || s.server === server).map((s) => [s.tool, s.count]));
}

function merge(pairs: [string, number][]): Option[] {
  const counts = new Map<string, number>();
  for (const [value, count] of pairs) counts.set(value, (counts.get(value) ?? 0) + count);
  return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => a.value.localeCompare(b.value));
}

/** Choosing a server keeps the tool only when that server has it (the browser's filters and the
 * search palette's). */
export function withServer<F extends { server: string | null; tool: string | null }>(filters: F, server: string | null, sources: ArtifactSource[]): F {
  const keepTool = filters.tool !== null && toolOptions(sources, server).some((t) => t.value === filters.tool);
  return { ...filters, server, tool: keepTool ? filters.tool : null };
}

/** A click on a sortable column: the same column flips the direction, another one starts with
 * its natural direction (names A→Z, the rest newest/largest first). */
export function sortBy(filters: BrowserFilters, sort: SortKey): BrowserFilters {
  if (filters.sort === sort) return { ...filters, descending: !filters.descending };
  return { ...filters, sort, descending: sort !== "name" };
}

/** `1.2 GB`, `340 KB`, `12 B` (1024-based, one decimal, no trailing `.0`). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = value >= 100 ? Math.round(value).toString() : value.toFixed(1).replace(/\.0$/, "");
  return `${text} ${units[unit]}`;
}

/** `1.2 GB of 2 GB`. */
export const usageText = (usage: StorageUsage): string => `${formatBytes(usage.used_bytes)} of ${formatBytes(usage.quota_bytes)}`;

/** How full the store is, 0–1 (over the quota counts as full until eviction runs). */
export function usageFraction(usage: StorageUsage): number {
  if (!(usage.quota_bytes > 0)) return usage.used_bytes > 0 ? 1 : 0;
  return Math.min(1, Math.max(0, usage.used_bytes / usage.quota_bytes));
}

/** Kinds of content, mirroring the store's `MimeFamily` filter. */
export function familyOf(mime: string): MimeFamily {
  const m = mime.split(";")[0].trim().toLowerCase();
  if (m.startsWith("image/")) return "image";
  if (m.startsWith("audio/")) return "audio";
  if (m.startsWith("video/")) return "video";
  if (m === "application/pdf") return "pdf";
  if (m === "text/html") return "html";
  if (m.startsWith("text/") || m === "application/json") return "text";
  return "other";
}

/** What a card shows: a picture from the `artifact:` scheme (`view` under the artifact's URL), or
 * an icon with a short label. */
export type Thumbnail = { kind: "picture"; view: string } | { kind: "icon"; label: string; family: MimeFamily };

/** Thumbnail widths requested, in device pixels. */
export const THUMBNAIL_WIDTH = 320;

export function thumbnailFor(record: Pick<ArtifactRecord, "mime" | "name">, width = THUMBNAIL_WIDTH): Thumbnail {
  const family = familyOf(record.mime);
  if (family === "image") return { kind: "picture", view: `thumbnail?width=${width}` };
  if (family === "pdf") return { kind: "picture", view: `page/1?width=${width}` };
  return { kind: "icon", label: typeLabel(record), family };
}

/** A short type label: the extension (`XLSX`), else from the MIME type (`JSON`, `ZIP`). */
export function typeLabel(record: Pick<ArtifactRecord, "mime" | "name">): string {
  const dot = record.name.lastIndexOf(".");
  const extension = dot > 0 ? record.name.slice(dot + 1) : "";
  if (/^[A-Za-z0-9]{1,5}$/.test(extension)) return extension.toUpperCase();
  const subtype = (record.mime.split(";")[0].split("/")[1] ?? "").trim().toLowerCase();
  if (subtype === "plain") return "TXT";
  const last = subtype.split(/[.+-]/).filter(Boolean).pop() ?? "";
  return (last.length > 0 && last.length <= 5 ? last : "FILE").toUpperCase();
}

/** `just now`, `5 min ago`, `3 h ago`, then the date. */
export function whenText(ms: number, now: number): string {
  const seconds = Math.round((now - ms) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
