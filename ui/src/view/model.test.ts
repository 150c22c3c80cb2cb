import { describe, expect, it } from "vitest";
import { CELL_CHROME_PX, COLUMN_MAX_CHARS, MAX_SCROLL_PX, META_KEY, columnLayout, imageFit, rowsAsCsv, tableWindow, textColumns, typeLabel, viewCallOf } from "./model";

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

describe("imageFit", () => {
  it("enlarges a tiny image to the view, keeping its aspect ratio, with crisp pixels", () => {
    expect(imageFit({ width: 16, height: 16 }, { width: 480, height: 640 })).toEqual({ width: 480, height: 480, scale: 30, pixelated: true });
    const wide = imageFit({ width: 32, height: 8 }, { width: 480, height: 640 });
    expect([wide.width, wide.height]).toEqual([480, 120]);
    // Bounded by the height the view may take.
    const tall = imageFit({ width: 10, height: 40 }, { width: 480, height: 640 });
    expect([tall.width, tall.height]).toEqual([160, 640]);
  });

  it("enlarges a medium image smoothly, and shrinks a large one to fit", () => {
    expect(imageFit({ width: 300, height: 200 }, { width: 480, height: 640 })).toMatchObject({ width: 480, height: 320, pixelated: false });
    expect(imageFit({ width: 2000, height: 1000 }, { width: 480, height: 640 })).toMatchObject({ width: 480, height: 240, pixelated: false });
  });

  it("leaves a picture with no size, or a view not yet laid out, at its natural size", () => {
    expect(imageFit({ width: 0, height: 0 }, { width: 480, height: 640 })).toMatchObject({ width: 0, height: 0, scale: 1 });
    expect(imageFit({ width: 16, height: 16 }, { width: 0, height: 640 })).toMatchObject({ width: 16, height: 16, scale: 1 });
  });
});

describe("columnLayout", () => {
  const charPx = 7.2;
  const px = (chars: number) => Math.ceil(chars * charPx + CELL_CHROME_PX);

  it("shows a usual table whole in a 512-pixel host: columns sized to their text, narrow row numbers, no sideways scroll", () => {
    const header = ["id", "name", "city", "amount", "date", "status"];
    const rows = Array.from({ length: 200 }, (_, i) => [String(i), `Customer ${i}`, "Lisbon", "1250.00", "2026-11-27", "paid"]);
    const layout = columnLayout(header, rows, 1000, 512, charPx);
    expect(layout.scrolls).toBe(false);
    expect(layout.columns).toHaveLength(6);
    expect(layout.total).toBeLessThanOrEqual(512);
    expect(layout.total).toBeGreaterThan(500);
    expect(layout.number).toBeLessThanOrEqual(45);
    rows[0].forEach((cell, i) => expect(layout.columns[i]).toBeGreaterThanOrEqual(px(Math.max(cell.length, header[i].length))));
  });

  it("cuts a long column so the others keep their room, and scrolls sideways only when the columns cannot fit", () => {
    const header = ["description", ...Array.from({ length: 3 }, (_, i) => `c${i}`)];
    const rows = [["x".repeat(300), "a", "b", "c"]];
    const fits = columnLayout(header, rows, 1, 512, charPx);
    expect(fits.scrolls).toBe(false);
    expect(fits.columns[0]).toBeLessThan(512);
    expect(fits.columns.slice(1).every((w) => w >= px(2))).toBe(true);

    const many = columnLayout(["description", ...Array.from({ length: 12 }, (_, i) => `column ${i}`)], [["x".repeat(300), ...Array.from({ length: 12 }, () => "y".repeat(20))]], 1, 512, charPx);
    expect(many.scrolls).toBe(true);
    expect(many.columns[0]).toBeLessThanOrEqual(Math.floor((512 - many.number) * 0.45));
    expect(many.columns[0]).toBeLessThanOrEqual(px(COLUMN_MAX_CHARS));
    expect(many.columns.slice(1).every((w) => w === px(20))).toBe(true);
  });

  it("gives the room left to a cut column first, up to its whole text", () => {
    const layout = columnLayout(["title", "n"], [["t".repeat(60), "1"]], 1, 1000, charPx);
    expect(layout.columns[0]).toBeGreaterThanOrEqual(px(60));
    expect(layout.total).toBeLessThanOrEqual(1000);
    expect(layout.total).toBeGreaterThan(990);
  });

  it("counts wide characters as two columns", () => {
    expect(textColumns("東京")).toBe(4);
    expect(textColumns("abc")).toBe(3);
  });
});
