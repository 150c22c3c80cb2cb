import { describe, expect, it } from "vitest";
import { MAX_SCROLL_PX, META_KEY, rowsAsCsv, tableWindow, typeLabel, viewCallOf } from "./model";

const file = { id: "demo_1", name: "report.pdf", mime: "application/pdf", size: 2048, viewer: "pdf", pages: 3 };

describe("viewCallOf", () => {
  it("reads the proxy's capability and files, dropping what it cannot show", () => {
    const call = viewCallOf({ content: [], _meta: { [META_KEY]: { capability: "c", server: "demo", tool: "t", files: [file, { id: "x", name: "y", mime: "a/b", size: 1, viewer: "exe" }, null] } } });
    expect(call?.files.map((f) => f.id)).toEqual(["demo_1"]);
    expect(call?.capability).toBe("c");
  });

  it("is null for a result without files (the view then shows nothing)", () => {
    expect(viewCallOf({ content: [{ type: "text", text: "hi" }] })).toBeNull();
    expect(viewCallOf({ _meta: { [META_KEY]: { capability: "c", files: [] } } })).toBeNull();
    expect(viewCallOf({ _meta: { [META_KEY]: { files: [file] } } })).toBeNull();
    expect(viewCallOf(null)).toBeNull();
  });
});

describe("tableWindow", () => {
  it("draws the rows in view, at their natural place, for a short table", () => {
    const w = tableWindow(240, 360, 24, 100);
    expect(w.scrollHeight).toBe(2400);
    expect(w.first).toBe(6);
    expect(w.top).toBe(6 * 24);
    expect(w.first + w.count).toBeGreaterThanOrEqual(10 + 15);
  });

  it("maps a million rows onto a capped scroll height, reaching the last row at the bottom", () => {
    const total = 1_000_000;
    const top = tableWindow(0, 360, 24, total);
    expect(top.scrollHeight).toBe(MAX_SCROLL_PX);
    expect(top.first).toBe(0);
    const bottom = tableWindow(MAX_SCROLL_PX - 360, 360, 24, total);
    expect(bottom.first + bottom.count).toBe(total);
    expect(bottom.top + (bottom.count - 1) * 24).toBeLessThanOrEqual(MAX_SCROLL_PX);
    const middle = tableWindow((MAX_SCROLL_PX - 360) / 2, 360, 24, total);
    expect(Math.abs(middle.first - total / 2)).toBeLessThan(50);
  });

  it("draws nothing for an empty table", () => {
    expect(tableWindow(0, 360, 24, 0)).toEqual({ scrollHeight: 0, first: 0, count: 0, top: 0 });
  });
});

describe("labels and what the model is sent", () => {
  it("names types as a person reads them", () => {
    expect(typeLabel(file as never)).toBe("PDF, 3 pages");
    expect(typeLabel({ ...file, name: "x.tsv", mime: "text/tab-separated-values", viewer: "csv" } as never)).toBe("TSV table");
    expect(typeLabel({ ...file, mime: "image/svg+xml", viewer: "image" } as never)).toBe("SVG image");
  });

  it("quotes CSV cells that need it", () => {
    expect(rowsAsCsv(["a", "b"], [["1", 'say "hi", then go']])).toBe('a,b\n1,"say ""hi"", then go"');
  });
});
