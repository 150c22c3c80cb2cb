import { describe, expect, it } from "vitest";
import { rowWindow, scrollTopFor, UNMEASURED_HEIGHT } from "./virtualWindow";

describe("rowWindow", () => {
  it("renders the rows in view plus the overscan, and pads the rest", () => {
    // 10,000 rows of 20 px, scrolled to row 500, 400 px tall: rows 500..520 are in view.
    const w = rowWindow(10_000, 400, 20, 10_000, 5);
    expect(w).toEqual({ start: 495, end: 525, padTop: 495 * 20, padBottom: (10_000 - 525) * 20 });
    // The total height never changes while scrolling.
    expect(w.padTop + (w.end - w.start) * 20 + w.padBottom).toBe(10_000 * 20);
  });

  it("renders a bounded number of rows however long the list", () => {
    for (const count of [10, 1_000, 10_000, 1_000_000]) {
      const w = rowWindow(count * 10, 600, 24, count);
      expect(w.end - w.start).toBeLessThanOrEqual(Math.ceil(600 / 24) + 1 + 16);
    }
  });

  it("clamps at the top and the bottom", () => {
    expect(rowWindow(0, 100, 10, 1000, 3)).toMatchObject({ start: 0, end: 13, padTop: 0 });
    expect(rowWindow(-50, 100, 10, 1000, 3)).toMatchObject({ start: 0, padTop: 0 });
    // Scrolled past the end (the list just got shorter): the last rows, nothing below.
    const w = rowWindow(1e9, 100, 10, 1000, 3);
    expect(w).toMatchObject({ end: 1000, padBottom: 0 });
    expect(w.start).toBeLessThan(1000);
  });

  it("handles short and empty lists and bad input", () => {
    expect(rowWindow(0, 500, 20, 3)).toEqual({ start: 0, end: 3, padTop: 0, padBottom: 0 });
    expect(rowWindow(0, 500, 20, 0)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0 });
    expect(rowWindow(0, 500, 0, 10)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0 });
    expect(rowWindow(Number.NaN, 500, 20, 100).start).toBe(0);
  });

  it("assumes a viewport before the element is measured", () => {
    expect(rowWindow(0, 0, 20, 10_000, 0).end).toBe(UNMEASURED_HEIGHT / 20);
  });
});

describe("scrollTopFor", () => {
  it("centres the row in what the viewport shows below its header", () => {
    // Row 100 of 20 px in a 420 px viewport: its top at 2000, 200 px above it in view.
    expect(scrollTopFor(100, 20, 420)).toBe(1800);
    // Below a 28 px sticky header the rows have 392 px: 186 px above the row.
    expect(scrollTopFor(100, 20, 420, 28)).toBe(1814);
    // The row then sits in the window of rows rendered.
    const w = rowWindow(scrollTopFor(5000, 19, 600), 600, 19, 10_000);
    expect(w.start).toBeLessThanOrEqual(5000);
    expect(w.end).toBeGreaterThan(5000);
  });

  it("stops at the top, and puts the row at the top before the viewport is measured", () => {
    expect(scrollTopFor(2, 20, 600)).toBe(0);
    expect(scrollTopFor(50, 20, 0)).toBe(1000);
    expect(scrollTopFor(-3, 20, 600)).toBe(0);
    expect(scrollTopFor(Number.NaN, 20, 600)).toBe(0);
  });
});
