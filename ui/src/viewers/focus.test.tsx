import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Focus } from "../wire/Focus";
import { PdfViewer } from "./PdfViewer";
import { CodeViewer, CsvViewer, JsonViewer } from "./TextViewers";

// A tab opened at a search hit: its viewer goes to the hit when it first shows the tab and on
// every new `focus.request`, never again for a canvas update that repeats the same request.

const file = vi.hoisted(() => ({ text: "" }));
vi.mock("./useArtifactText", () => ({
  MAX_TEXT_BYTES: 4 * 1024 * 1024,
  useArtifactText: () => ({ kind: "ready", text: file.text, truncated: false }),
}));
// jsdom lays nothing out: every row is rendered, and scrolling is recorded.
const scroll = vi.hoisted(() => ({ toRow: vi.fn<(index: number) => void>() }));
vi.mock("./useRowWindow", () => ({
  useRowWindow: (_height: number, count: number) => ({ ref: () => {}, window: { start: 0, end: count, padTop: 0, padBottom: 0 }, scrollToRow: scroll.toRow }),
}));
vi.mock("../ipc", () => ({
  artifactUrl: (id: string) => `artifact://localhost/${id}`,
  artifactViewUrl: (id: string, view: string) => `artifact://localhost/${id}/${view}`,
}));

const focus = (place: Focus["place"], position: number, request: number): Focus => ({ place, position, request });
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");
const marked = (selector: string) => [...document.querySelectorAll(selector)];

describe("CodeViewer at a search hit", () => {
  beforeEach(() => {
    file.text = lines(300);
    scroll.toRow.mockClear();
  });

  it("scrolls to the line once per request and keeps it marked", () => {
    const { rerender } = render(<CodeViewer id="demo_log" name="run.log" focus={focus("line", 120, 1)} />);
    expect(scroll.toRow.mock.calls).toEqual([[119]]);
    expect(marked(".focused-line").map((row) => row.getAttribute("data-line"))).toEqual(["120"]);
    expect(document.querySelector(".focused-line")?.textContent).toContain("line 120");

    // Another canvas update hands the same focus again (a new object): no jump.
    rerender(<CodeViewer id="demo_log" name="run.log" focus={focus("line", 120, 1)} />);
    expect(scroll.toRow).toHaveBeenCalledTimes(1);

    // A new hit in the same file.
    rerender(<CodeViewer id="demo_log" name="run.log" focus={focus("line", 7, 2)} />);
    expect(scroll.toRow.mock.calls).toEqual([[119], [6]]);
    expect(marked(".focused-line").map((row) => row.getAttribute("data-line"))).toEqual(["7"]);
  });

  it("does not move for a tab without focus, nor for another kind of place", () => {
    const { rerender } = render(<CodeViewer id="demo_log" name="run.log" focus={null} />);
    rerender(<CodeViewer id="demo_log" name="run.log" focus={focus("page", 3, 1)} />);
    expect(scroll.toRow).not.toHaveBeenCalled();
    expect(marked(".focused-line")).toEqual([]);
  });

  it("says so when the line is past what is shown", () => {
    render(<CodeViewer id="demo_log" name="run.log" focus={focus("line", 5000, 1)} />);
    expect(scroll.toRow).not.toHaveBeenCalled();
    expect(screen.getByText(/line 5,000 is past what is shown here/)).toBeTruthy();
  });
});

describe("CsvViewer at a search hit", () => {
  beforeEach(() => {
    // Row 2 of the data spans two lines of the file: the index's row 4 is the data's row 3.
    file.text = 'name,note\nacme,first\nglobex,"two\nlines"\ninitech,third\numbrella,fourth\n';
    scroll.toRow.mockClear();
  });

  it("scrolls to the row holding the hit's line once per request, and marks it", () => {
    const { rerender } = render(<CsvViewer id="demo_customers" focus={focus("row", 4, 1)} />);
    expect(scroll.toRow.mock.calls).toEqual([[2]]);
    const rows = marked("tr.focused-row");
    expect(rows).toHaveLength(1);
    expect(rows[0].getAttribute("data-row")).toBe("4");
    expect(rows[0].textContent).toContain("initech");

    rerender(<CsvViewer id="demo_customers" focus={focus("row", 4, 1)} />);
    expect(scroll.toRow).toHaveBeenCalledTimes(1);

    // The second line of the quoted field is the same table row as its first.
    rerender(<CsvViewer id="demo_customers" focus={focus("row", 3, 2)} />);
    expect(scroll.toRow.mock.calls).toEqual([[2], [1]]);
    expect(marked("tr.focused-row").map((row) => row.textContent)).toEqual([expect.stringContaining("globex")]);

    // The header is row 0.
    rerender(<CsvViewer id="demo_customers" focus={focus("row", 0, 3)} />);
    expect(scroll.toRow.mock.calls.at(-1)).toEqual([0]);
    expect(marked("tr.focused-row").map((row) => row.closest("thead") !== null)).toEqual([true]);
  });
});

describe("JsonViewer at a search hit", () => {
  beforeEach(() => {
    file.text = JSON.stringify({ customers: [{ name: "acme" }, { name: "globex" }] }, null, 2);
    scroll.toRow.mockClear();
  });

  it("opens as text at the hit's line (lines are what the index counts)", async () => {
    const user = userEvent.setup();
    const { rerender } = render(<JsonViewer id="demo_data" focus={null} />);
    expect(document.querySelector(".json-node")).not.toBeNull();
    rerender(<JsonViewer id="demo_data" focus={focus("line", 7, 1)} />);
    await waitFor(() => expect(marked(".focused-line").map((row) => row.textContent)).toEqual([expect.stringContaining('"globex"')]));
    expect(scroll.toRow.mock.calls).toEqual([[6]]);
    expect(screen.getByRole("button", { name: "Text" }).getAttribute("aria-pressed")).toBe("true");
    // The tree is one click away, and the same focus again does not bring the text back.
    await user.click(screen.getByRole("button", { name: "Tree" }));
    rerender(<JsonViewer id="demo_data" focus={focus("line", 7, 1)} />);
    expect(document.querySelector(".json-node")).not.toBeNull();
    expect(scroll.toRow).toHaveBeenCalledTimes(1);
  });
});

describe("PdfViewer at a search hit", () => {
  const saved = { scrollTo: Element.prototype.scrollTo, scrollIntoView: Element.prototype.scrollIntoView };
  beforeAll(() => {
    // What jsdom lacks: layout observers and element scrolling.
    vi.stubGlobal("ResizeObserver", class { observe() {} unobserve() {} disconnect() {} });
    vi.stubGlobal("IntersectionObserver", class { observe() {} unobserve() {} disconnect() {} });
    Element.prototype.scrollTo = () => {};
    Element.prototype.scrollIntoView = () => {};
    vi.stubGlobal("fetch", vi.fn(() => Promise.resolve({ json: () => Promise.resolve({ pages: 40 }) })));
  });
  afterAll(() => {
    vi.unstubAllGlobals();
    Element.prototype.scrollTo = saved.scrollTo;
    Element.prototype.scrollIntoView = saved.scrollIntoView;
  });

  const pageShown = () => document.querySelector("img.pdf-page")?.getAttribute("src")?.match(/page\/(\d+)/)?.[1];

  it("goes to the page once the page count is known, and again only on a new request", async () => {
    const user = userEvent.setup();
    const { rerender } = render(<PdfViewer id="demo_report" name="q3.pdf" focus={focus("page", 12, 1)} />);
    expect(await screen.findByText("Page 12 of 40")).toBeTruthy();
    expect(pageShown()).toBe("12");

    // The user moves on; the same focus again (another canvas update) leaves them there.
    await user.click(screen.getByRole("button", { name: "Next page" }));
    expect(screen.getByText("Page 13 of 40")).toBeTruthy();
    rerender(<PdfViewer id="demo_report" name="q3.pdf" focus={focus("page", 12, 1)} />);
    expect(screen.getByText("Page 13 of 40")).toBeTruthy();

    // The same hit opened again is a new request: back to it. A page past the end is the last.
    rerender(<PdfViewer id="demo_report" name="q3.pdf" focus={focus("page", 12, 2)} />);
    expect(screen.getByText("Page 12 of 40")).toBeTruthy();
    await act(async () => rerender(<PdfViewer id="demo_report" name="q3.pdf" focus={focus("page", 99, 3)} />));
    expect(screen.getByText("Page 40 of 40")).toBeTruthy();
    expect(pageShown()).toBe("40");
  });
});
