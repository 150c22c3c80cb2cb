import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CsvViewer } from "./TextViewers";

vi.mock("./useArtifactText", () => ({
  MAX_TEXT_BYTES: 4 * 1024 * 1024,
  useArtifactText: () => ({ kind: "ready", text: "file,owner\ninvoice\u202Efdp.exe,\u05E9\u05DC\u05D5\u05DD\nplain.txt,ana\n", truncated: false }),
}));
// Every row in view (jsdom lays nothing out).
vi.mock("./useRowWindow", () => ({
  useRowWindow: (_height: number, count: number) => ({ ref: () => {}, window: { start: 0, end: count, padTop: 0, padBottom: 0 } }),
}));

describe("CsvViewer", () => {
  it("isolates each cell and names its bidirectional overrides instead of applying them", () => {
    render(<CsvViewer id="demo_1" />);
    const cell = screen.getByText("invoice", { exact: false }).closest("td")!;
    const isolate = cell.querySelector("bdi")!;
    expect(isolate).not.toBeNull();
    // What is shown reads in the order it was written: no override left to reverse "fdp.exe".
    expect(isolate.textContent).toBe("invoiceRLOfdp.exe");
    expect(cell.textContent).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    const named = isolate.querySelector(".bidi-control")!;
    expect(named.textContent).toBe("RLO");
    expect(named.getAttribute("title")).toContain("U+202E RIGHT-TO-LEFT OVERRIDE");
    // Right-to-left text is kept (isolated, not altered); every cell and header is isolated.
    expect(screen.getByText("\u05E9\u05DC\u05D5\u05DD").tagName).toBe("BDI");
    for (const c of document.querySelectorAll("tbody td:not(.csv-number):not([colspan]), thead th:not(.csv-number)")) expect(c.querySelector("bdi")).not.toBeNull();
  });
});
