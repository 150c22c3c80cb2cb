import { describe, expect, it } from "vitest";
import type { ArtifactSource } from "../wire/ArtifactSource";
import {
  DEFAULT_FILTERS,
  familyOf,
  formatBytes,
  isFiltered,
  serverOptions,
  sortBy,
  thumbnailFor,
  toolOptions,
  toQuery,
  typeLabel,
  usageFraction,
  usageText,
  whenText,
  withServer,
} from "./filters";

const sources: ArtifactSource[] = [
  { server: "demo", tool: "render_chart", count: 3 },
  { server: "demo", tool: "make_report", count: 2 },
  { server: "files", tool: "fetch", count: 4 },
  { server: "files", tool: "render_chart", count: 1 },
];

const GiB = 1024 ** 3;

describe("toQuery", () => {
  it("queries every session, newest first, by default", () => {
    expect(toQuery(DEFAULT_FILTERS)).toEqual({
      session: null, server: null, tool: null, family: null, name_contains: null, pinned_only: false, sort: "created", descending: true, limit: 60, offset: 0,
    });
  });

  it("passes the filters and trims the search text", () => {
    const q = toQuery({ ...DEFAULT_FILTERS, text: "  chart ", server: "demo", tool: "render_chart", family: "image", pinnedOnly: true, sort: "size", descending: false }, 120, 30);
    expect(q).toMatchObject({ name_contains: "chart", server: "demo", tool: "render_chart", family: "image", pinned_only: true, sort: "size", descending: false, offset: 120, limit: 30 });
    expect(toQuery({ ...DEFAULT_FILTERS, text: "   " }).name_contains).toBeNull();
  });

  it("knows when anything narrows the list", () => {
    expect(isFiltered(DEFAULT_FILTERS)).toBe(false);
    expect(isFiltered({ ...DEFAULT_FILTERS, text: " " })).toBe(false);
    expect(isFiltered({ ...DEFAULT_FILTERS, family: "pdf" })).toBe(true);
    expect(isFiltered({ ...DEFAULT_FILTERS, sort: "name" })).toBe(false);
  });
});

describe("filter options", () => {
  it("sums servers and lists each server's tools", () => {
    expect(serverOptions(sources)).toEqual([{ value: "demo", count: 5 }, { value: "files", count: 5 }]);
    expect(toolOptions(sources, "files")).toEqual([{ value: "fetch", count: 4 }, { value: "render_chart", count: 1 }]);
    expect(toolOptions(sources, null)).toEqual([{ value: "fetch", count: 4 }, { value: "make_report", count: 2 }, { value: "render_chart", count: 4 }]);
    expect(toolOptions(sources, "gone")).toEqual([]);
  });

  it("keeps the tool when the new server has it, else clears it", () => {
    const chart = { ...DEFAULT_FILTERS, tool: "render_chart" };
    expect(withServer(chart, "files", sources)).toMatchObject({ server: "files", tool: "render_chart" });
    expect(withServer({ ...DEFAULT_FILTERS, tool: "make_report" }, "files", sources)).toMatchObject({ server: "files", tool: null });
    expect(withServer({ ...DEFAULT_FILTERS, server: "files", tool: "fetch" }, null, sources)).toMatchObject({ server: null, tool: "fetch" });
  });

  it("sorts: the same column flips, another starts in its natural direction", () => {
    expect(sortBy(DEFAULT_FILTERS, "created")).toMatchObject({ sort: "created", descending: false });
    expect(sortBy(DEFAULT_FILTERS, "name")).toMatchObject({ sort: "name", descending: false });
    expect(sortBy(DEFAULT_FILTERS, "size")).toMatchObject({ sort: "size", descending: true });
    expect(sortBy({ ...DEFAULT_FILTERS, sort: "name", descending: false }, "name")).toMatchObject({ sort: "name", descending: true });
  });
});

describe("sizes and usage", () => {
  it("formats bytes 1024-based", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1024)).toBe("1 KB");
    expect(formatBytes(4.3 * 1024)).toBe("4.3 KB");
    expect(formatBytes(340 * 1024)).toBe("340 KB");
    expect(formatBytes(1.2 * GiB)).toBe("1.2 GB");
    expect(formatBytes(2 * GiB)).toBe("2 GB");
    expect(formatBytes(Number.NaN)).toBe("0 B");
  });

  it("says how much of the quota is used", () => {
    const usage = { used_bytes: 1.2 * GiB, pinned_bytes: 0, quota_bytes: 2 * GiB, artifacts: 10, pinned: 0 };
    expect(usageText(usage)).toBe("1.2 GB of 2 GB");
    expect(usageFraction(usage)).toBeCloseTo(0.6);
    expect(usageFraction({ ...usage, used_bytes: 3 * GiB })).toBe(1);
    expect(usageFraction({ ...usage, quota_bytes: 0 })).toBe(1);
    expect(usageFraction({ ...usage, used_bytes: 0, quota_bytes: 0 })).toBe(0);
  });
});

describe("thumbnails and icons", () => {
  it("pictures for images and PDFs, icons otherwise", () => {
    expect(thumbnailFor({ mime: "image/tiff", name: "scan.tiff" }, 200)).toEqual({ kind: "picture", view: "thumbnail?width=200" });
    expect(thumbnailFor({ mime: "application/pdf", name: "r.pdf" }, 200)).toEqual({ kind: "picture", view: "page/1?width=200" });
    expect(thumbnailFor({ mime: "text/csv", name: "t.csv" })).toEqual({ kind: "icon", label: "CSV", family: "text" });
    expect(thumbnailFor({ mime: "application/zip", name: "bundle" })).toEqual({ kind: "icon", label: "ZIP", family: "other" });
  });

  it("labels types by extension, else by MIME subtype", () => {
    expect(typeLabel({ name: "Q3.xlsx", mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" })).toBe("XLSX");
    expect(typeLabel({ name: "data", mime: "application/json" })).toBe("JSON");
    expect(typeLabel({ name: "feed", mime: "application/atom+xml" })).toBe("XML");
    expect(typeLabel({ name: "blob", mime: "application/octet-stream" })).toBe("FILE");
    expect(typeLabel({ name: ".env", mime: "text/plain" })).toBe("TXT");
  });

  it("groups MIME types like the store's filter", () => {
    expect(familyOf("image/svg+xml")).toBe("image");
    expect(familyOf("text/html; charset=utf-8")).toBe("html");
    expect(familyOf("application/json")).toBe("text");
    expect(familyOf("text/csv")).toBe("text");
    expect(familyOf("video/mp4")).toBe("video");
    expect(familyOf("application/zip")).toBe("other");
  });

  it("says when, relative then absolute", () => {
    const now = Date.UTC(2025, 0, 10, 12);
    expect(whenText(now - 5_000, now)).toBe("just now");
    expect(whenText(now - 5 * 60_000, now)).toBe("5 min ago");
    expect(whenText(now - 3 * 3_600_000, now)).toBe("3 h ago");
    expect(whenText(Date.UTC(2024, 11, 24, 12), now)).toMatch(/^2024-12-2[45]$/);
  });
});
