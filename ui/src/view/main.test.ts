// @vitest-environment jsdom
// The view as a host drives it: a tool result with a table, its rows read through the bridge.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { columnLayout, META_KEY } from "./model";

type FakeApp = {
  ontoolresult: (result: unknown) => void;
  callServerTool: ReturnType<typeof vi.fn>;
};
const fake = vi.hoisted(() => ({ app: null as FakeApp | null }));
vi.mock("@modelcontextprotocol/ext-apps", () => ({
  App: class {
    ontoolresult: ((result: unknown) => void) | null = null;
    callServerTool = vi.fn();
    constructor() {
      fake.app = this as unknown as FakeApp;
    }
    connect() {
      return Promise.resolve();
    }
    getHostContext() {
      return {};
    }
    getHostCapabilities() {
      return {};
    }
  },
  applyDocumentTheme: () => {},
  applyHostFonts: () => {},
  applyHostStyleVariables: () => {},
}));

const header = ["file", "owner"];
const rows = [
  ["invoice\u202Efdp.exe", "ana"],
  ["plain.txt", "bo"],
];

beforeAll(async () => {
  document.body.innerHTML = `<div id="root"></div>`;
  // jsdom has no ResizeObserver and no canvas: the view measures with them when they are there.
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  HTMLCanvasElement.prototype.getContext = (() => null) as never;
  await import("./main");
});

describe("the view's table", () => {
  it("isolates each cell and sizes the columns to their text", async () => {
    const app = fake.app!;
    app.callServerTool.mockResolvedValue({ structuredContent: { header, rows, offset: 0, totalRows: 2, totalColumns: 2, shownColumns: 2 } });
    app.ontoolresult({ content: [], _meta: { [META_KEY]: { capability: "c", server: "demo", tool: "t", files: [{ id: "demo_1", name: "t.csv", mime: "text/csv", size: 40, viewer: "csv" }] } } });
    await vi.waitFor(() => expect(document.querySelector('.row[data-row="1"]')).not.toBeNull());
    const first = document.querySelector('.row[data-row="0"]')!;
    const cell = first.querySelectorAll<HTMLElement>(".cell")[0];
    expect(cell.querySelector("bdi")?.textContent).toBe("invoiceRLOfdp.exe");
    expect(cell.textContent).not.toContain("\u202E");
    // jsdom lays nothing out: the view's width is taken as 512 px.
    const layout = columnLayout(header, rows, 2, 512);
    const head = document.querySelector<HTMLElement>(".row.head")!;
    expect([...head.querySelectorAll<HTMLElement>(".cell")].map((c) => c.style.width)).toEqual(layout.columns.map((w) => `${w}px`));
    expect(cell.style.width).toBe(`${layout.columns[0]}px`);
    expect(first.querySelector<HTMLElement>(".n")!.style.width).toBe(`${layout.number}px`);
    expect(layout.scrolls).toBe(false);
  });
});
