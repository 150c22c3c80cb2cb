// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { tableCell } from "./dom";

describe("the view's table cells", () => {
  it("isolate their text and name a right-to-left override instead of applying it", () => {
    const cell = tableCell("invoice\u202Efdp.exe");
    const isolate = cell.querySelector("bdi")!;
    expect(isolate).not.toBeNull();
    expect(isolate.textContent).toBe("invoiceRLOfdp.exe");
    expect(cell.textContent).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(cell.querySelector(".bidi-control")?.getAttribute("title")).toContain("U+202E RIGHT-TO-LEFT OVERRIDE");
    expect(cell.title).toBe("invoice⟨RLO⟩fdp.exe");
  });

  it("keep other text as it is, isolated", () => {
    const cell = tableCell("\u05E9\u05DC\u05D5\u05DD <b>");
    expect(cell.querySelector("bdi")?.textContent).toBe("\u05E9\u05DC\u05D5\u05DD <b>");
    expect(cell.querySelector("b")).toBeNull();
  });
});
