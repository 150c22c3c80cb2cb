import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ARTIFACT_DRAG_TYPE } from "../drag";
import type { DesktopDrop } from "../ipc";
import { emptyOutcome } from "../test/outcomes";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { ToolView } from "../wire/ToolView";
import { CallHistory } from "./CallHistory";
import { ToolPanel } from "./ToolPanel";
import type { ToolSelection } from "./ServerList";

// Files going into tools (issue 32): the panel calls the backend through ipc.ts (the one module
// that imports @tauri-apps), mocked here.
const ipc = vi.hoisted(() => ({
  callTool: vi.fn(),
  cancelCall: vi.fn(),
  onCallProgress: vi.fn(() => () => {}),
  artifactRecord: vi.fn(),
  artifactImportPick: vi.fn(),
  artifactImportPaths: vi.fn(),
  artifactsQuery: vi.fn(),
  desktopDrop: null as ((drop: DesktopDrop) => void) | null,
}));
vi.mock("../ipc", async (importOriginal) => {
  // The real error readers: they only read a CommandError.
  const { errorText, errorKind } = await importOriginal<typeof import("../ipc")>();
  return {
    callTool: ipc.callTool,
    cancelCall: ipc.cancelCall,
    onCallProgress: ipc.onCallProgress,
    artifactRecord: ipc.artifactRecord,
    artifactImportPick: ipc.artifactImportPick,
    artifactImportPaths: ipc.artifactImportPaths,
    artifactsQuery: ipc.artifactsQuery,
    onDesktopDrop: (callback: (drop: DesktopDrop) => void) => {
      ipc.desktopDrop = callback;
      return () => {
        if (ipc.desktopDrop === callback) ipc.desktopDrop = null;
      };
    },
    newCallToken: () => "token-1",
    errorText,
    errorKind,
    restartServer: vi.fn(),
    signIn: vi.fn(),
    resourceRead: vi.fn(),
    artifactUrl: (id: string) => `artifact://localhost/${id}`,
    artifactViewUrl: (id: string, view: string) => `artifact://localhost/${id}/${view}`,
  };
});

// jsdom has no IntersectionObserver: every lazy thumbnail is in view at once.
vi.stubGlobal(
  "IntersectionObserver",
  class {
    constructor(private readonly callback: (entries: Array<{ isIntersecting: boolean; target: Element }>) => void) {}
    observe(target: Element) {
      this.callback([{ isIntersecting: true, target }]);
    }
    unobserve() {}
    disconnect() {}
  },
);

const MB = 1024 * 1024;

function record(id: string, name: string, mime: string, size: number): ArtifactRecord {
  return { id, sha256: "00", name, mime, size, server: "demo", tool: "render_chart", call_id: "c", session_id: "s", created_at_ms: 0, last_used_at_ms: 0, persistence: "session", description: null };
}

const chart = record("demo_1f0c2b7e9a41", "chart.png", "image/png", 12_800);
const table = record("demo_2a0c2b7e9a42", "sales.csv", "text/csv", 2_048);
const bigTable = record("demo_3b0c2b7e9a43", "big.csv", "text/csv", Math.round(12.4 * MB));
const notes = record("demo_4c0c2b7e9a44", "notes.txt", "text/plain", 300);

const fileProperty = (accept: string[], maxSize: number, description: string) => ({ type: "string", format: "uri", description, "x-mcp-file": { accept, maxSize } });

// The demo's describe_image, summarize_csv and compare_files (crates/demo/src/tools/files.rs).
const describeImage: ToolView = {
  name: "describe_image",
  title: "Describe an image",
  description: null,
  input_schema: { type: "object", properties: { image: fileProperty(["image/png", "image/jpeg"], 10 * MB, "The picture to describe.") }, required: ["image"], additionalProperties: false },
  read_only: true,
  destructive: false,
  ui: null,
  file_arguments: [{ name: "image", multiple: false, accept: ["image/png", "image/jpeg"], max_size: 10 * MB }],
};

const summarizeCsv: ToolView = {
  name: "summarize_csv",
  title: "Summarize a CSV table",
  description: null,
  input_schema: { type: "object", properties: { table: fileProperty(["text/csv", ".csv"], 10 * MB, "The CSV table.") }, required: ["table"], additionalProperties: false },
  read_only: true,
  destructive: false,
  ui: null,
  file_arguments: [{ name: "table", multiple: false, accept: ["text/csv", ".csv"], max_size: 10 * MB }],
};

const compareFiles: ToolView = {
  name: "compare_files",
  title: "Compare files",
  description: null,
  input_schema: {
    type: "object",
    properties: { files: { type: "array", minItems: 2, maxItems: 10, description: "Two to ten files of any type.", items: { type: "string", format: "uri", "x-mcp-file": { maxSize: 10 * MB } } } },
    required: ["files"],
    additionalProperties: false,
  },
  read_only: true,
  destructive: false,
  ui: null,
  file_arguments: [{ name: "files", multiple: true, accept: [], max_size: 10 * MB }],
};

function renderPanel(selection: ToolSelection) {
  const user = userEvent.setup();
  const view = render(<ToolPanel selection={selection} onOutcome={() => {}} />);
  return { user, ...view };
}

const callButton = () => screen.getByRole("button", { name: "Call tool" }) as HTMLButtonElement;
const sentText = (args: unknown) => JSON.stringify(args, null, 2);

beforeEach(() => {
  ipc.callTool.mockReset().mockResolvedValue(emptyOutcome("describe_image", "A bar chart."));
  ipc.artifactRecord.mockReset().mockImplementation(async (id: string) => {
    const known = [chart, table, bigTable, notes].find((r) => r.id === id);
    if (!known) throw { kind: "not_found", message: `no artifact ${id}` };
    return known;
  });
  ipc.artifactImportPick.mockReset();
  ipc.artifactImportPaths.mockReset();
  ipc.artifactsQuery.mockReset().mockResolvedValue({ items: [], total: 0 });
});

describe("ToolPanel, a tool that takes a file", () => {
  it("shows a file field for the file argument, not a text box", async () => {
    renderPanel({ server: "demo", tool: describeImage });
    const field = await screen.findByRole("group", { name: /image/ });
    expect(within(field).getByRole("button", { name: "Choose file…" })).toBeTruthy();
    expect(within(field).getByRole("button", { name: "From stored files…" })).toBeTruthy();
    expect(field.textContent).toContain("Takes image/png, image/jpeg · at most 10 MB");
    expect(screen.queryByRole("textbox")).toBeNull();
  });

  it("Choose file… stores the picked file; its chip shows name, type and size; the call sends its reference", async () => {
    ipc.artifactImportPick.mockResolvedValueOnce([chart]);
    const { user } = renderPanel({ server: "demo", tool: describeImage });
    await user.click(await screen.findByRole("button", { name: "Choose file…" }));
    expect(ipc.artifactImportPick).toHaveBeenCalledWith(false);
    const chips = await screen.findByRole("list", { name: "File for image" });
    const chip = within(chips).getByRole("listitem");
    expect(within(chip).getByText("chart.png").tagName).toBe("BDI");
    expect(chip.textContent).toContain("image/png · 12.5 KB");
    expect(chip.querySelector("img")?.getAttribute("src")).toBe(`artifact://localhost/${chart.id}/thumbnail?width=320`);
    // Known from the pick: no lookup.
    expect(ipc.artifactRecord).not.toHaveBeenCalled();
    expect(screen.getByText(/"image": "artifact:demo_1f0c2b7e9a41"/)).toBeTruthy();
    await user.click(callButton());
    expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "describe_image", sentText({ image: `artifact:${chart.id}` }), false, "token-1");
  });

  it("a cancelled pick changes nothing; the remove button empties the field", async () => {
    ipc.artifactImportPick.mockResolvedValueOnce([]).mockResolvedValueOnce([chart]);
    const { user } = renderPanel({ server: "demo", tool: describeImage });
    await user.click(await screen.findByRole("button", { name: "Choose file…" }));
    expect(screen.queryByRole("list", { name: "File for image" })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Choose file…" }));
    await user.click(await screen.findByRole("button", { name: "Remove chart.png" }));
    expect(screen.queryByRole("list", { name: "File for image" })).toBeNull();
    expect(screen.getByText("{}")).toBeTruthy();
  });

  it("a required file argument left empty blocks the call like any required field", async () => {
    const { user } = renderPanel({ server: "demo", tool: describeImage });
    await screen.findByRole("group", { name: /image/ });
    await user.click(callButton());
    expect((await screen.findAllByText(/is required/)).length).toBeGreaterThan(0);
    expect(ipc.callTool).not.toHaveBeenCalled();
  });

  it("a file of a type the tool does not take says so, and Call stays disabled until it is removed", async () => {
    ipc.artifactImportPick.mockResolvedValueOnce([chart]).mockResolvedValueOnce([table]);
    const { user } = renderPanel({ server: "demo", tool: summarizeCsv });
    await user.click(await screen.findByRole("button", { name: "Choose file…" }));
    expect(await screen.findByText("chart.png is image/png; this tool takes text/csv, .csv")).toBeTruthy();
    expect(callButton().disabled).toBe(true);
    await user.click(callButton());
    expect(ipc.callTool).not.toHaveBeenCalled();
    // Another file replaces it.
    await user.click(screen.getByRole("button", { name: "Choose file…" }));
    await waitFor(() => expect(callButton().disabled).toBe(false));
    expect(screen.queryByText(/this tool takes text\/csv/)).toBeNull();
    await user.click(callButton());
    expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "summarize_csv", sentText({ table: `artifact:${table.id}` }), false, "token-1");
  });

  it("a file over the tool's maxSize says so and blocks the call", async () => {
    ipc.artifactImportPick.mockResolvedValueOnce([bigTable]);
    const { user } = renderPanel({ server: "demo", tool: summarizeCsv });
    await user.click(await screen.findByRole("button", { name: "Choose file…" }));
    expect(await screen.findByText("big.csv is 12.4 MB; this tool takes at most 10 MB")).toBeTruthy();
    expect(callButton().disabled).toBe(true);
    await user.click(screen.getByRole("button", { name: "Remove big.csv" }));
    expect(callButton().disabled).toBe(false);
  });

  it("a list argument collects several files and sends a list of references", async () => {
    ipc.artifactImportPick.mockResolvedValueOnce([chart, table]).mockResolvedValueOnce([notes, chart]);
    const { user } = renderPanel({ server: "demo", tool: compareFiles });
    await user.click(await screen.findByRole("button", { name: "Choose files…" }));
    expect(ipc.artifactImportPick).toHaveBeenCalledWith(true);
    await user.click(screen.getByRole("button", { name: "Choose files…" }));
    const chips = await screen.findByRole("list", { name: "Files for files" });
    // The chart chosen twice is there once.
    await waitFor(() => expect(within(chips).getAllByRole("listitem").map((li) => li.querySelector(".file-chip-name")?.textContent)).toEqual(["chart.png", "sales.csv", "notes.txt"]));
    await user.click(screen.getByRole("button", { name: "Remove sales.csv" }));
    await user.click(callButton());
    expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "compare_files", sentText({ files: [`artifact:${chart.id}`, `artifact:${notes.id}`] }), false, "token-1");
  });

  it("an artifact browser row or canvas tab dropped on the field fills it", async () => {
    const { user } = renderPanel({ server: "demo", tool: describeImage });
    const field = await screen.findByRole("group", { name: /image/ });
    const dataTransfer = { types: [ARTIFACT_DRAG_TYPE, "text/plain"], getData: (type: string) => (type === ARTIFACT_DRAG_TYPE ? chart.id : `artifact:${chart.id}`), dropEffect: "none" };
    fireEvent.dragEnter(field, { dataTransfer });
    expect(field.classList.contains("drop-over")).toBe(true);
    fireEvent.drop(field, { dataTransfer });
    expect(await within(field).findByText("chart.png")).toBeTruthy();
    expect(ipc.artifactRecord).toHaveBeenCalledWith(chart.id);
    expect(field.classList.contains("drop-over")).toBe(false);
    await user.click(callButton());
    expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "describe_image", sentText({ image: `artifact:${chart.id}` }), false, "token-1");
  });

  it("a stored file dropped on the tool in the sidebar opens the tool with it in the file field", async () => {
    const { user } = renderPanel({ server: "demo", tool: describeImage, dropped: { id: chart.id, nonce: 1 } });
    const field = await screen.findByRole("group", { name: /image/ });
    expect(await within(field).findByText("chart.png")).toBeTruthy();
    expect(ipc.callTool).not.toHaveBeenCalled(); // opened, not run
    await user.click(callButton());
    expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "describe_image", sentText({ image: `artifact:${chart.id}` }), false, "token-1");
  });

  it("a drag that carries no stored file is not taken", async () => {
    renderPanel({ server: "demo", tool: describeImage });
    const field = await screen.findByRole("group", { name: /image/ });
    const dataTransfer = { types: ["text/plain"], getData: (type: string) => (type === "text/plain" ? "hello" : ""), dropEffect: "none" };
    expect(fireEvent.dragOver(field, { dataTransfer })).toBe(true); // not cancelled: no drop here
    fireEvent.drop(field, { dataTransfer });
    expect(ipc.artifactRecord).not.toHaveBeenCalled();
  });

  it("From stored files… lists stored files of an accepted type, filtered by name; one click chooses", async () => {
    ipc.artifactsQuery.mockResolvedValue({ items: [table, chart, bigTable], total: 3 });
    const { user } = renderPanel({ server: "demo", tool: summarizeCsv });
    await user.click(await screen.findByRole("button", { name: "From stored files…" }));
    const picker = await screen.findByRole("group", { name: "Stored files" });
    await waitFor(() => expect(within(picker).getAllByRole("button", { name: /\.csv/ })).toHaveLength(2));
    // Only accepted types; too large ones are shown, not choosable.
    expect(within(picker).queryByText("chart.png")).toBeNull();
    expect((within(picker).getByRole("button", { name: /big\.csv/ }) as HTMLButtonElement).disabled).toBe(true);
    await user.type(within(picker).getByRole("searchbox", { name: "Filter stored files by name" }), "sales");
    await waitFor(() => expect(ipc.artifactsQuery).toHaveBeenLastCalledWith(expect.objectContaining({ name_contains: "sales", limit: 100 })));
    await user.click(within(picker).getByRole("button", { name: /sales\.csv/ }));
    expect(screen.queryByRole("group", { name: "Stored files" })).toBeNull();
    expect(within(screen.getByRole("list", { name: "File for table" })).getByText("sales.csv")).toBeTruthy();
    expect(callButton().disabled).toBe(false);
  });

  it("files dropped from the desktop onto the field are stored and fill it", async () => {
    ipc.artifactImportPaths.mockResolvedValueOnce([chart]);
    renderPanel({ server: "demo", tool: describeImage });
    const field = await screen.findByRole("group", { name: /image/ });
    const hit = within(field).getByRole("button", { name: "Choose file…" });
    document.elementFromPoint = vi.fn(() => hit);
    act(() => ipc.desktopDrop?.({ type: "over", x: 40, y: 300 }));
    expect(field.hasAttribute("data-drop-hover")).toBe(true);
    act(() => ipc.desktopDrop?.({ type: "drop", paths: ["/home/ana/chart.png", "/home/ana/other.png"], x: 40, y: 300 }));
    expect(field.hasAttribute("data-drop-hover")).toBe(false);
    // One file for a single-file argument: the first.
    expect(ipc.artifactImportPaths).toHaveBeenCalledExactlyOnceWith(["/home/ana/chart.png"]);
    expect(await within(field).findByText("chart.png")).toBeTruthy();
    expect(screen.getByText("image takes one file: kept chart.png")).toBeTruthy();
  });

  it("a desktop drop elsewhere over the tool panel goes to its first file field; elsewhere in the window it does nothing", async () => {
    ipc.artifactImportPaths.mockResolvedValue([notes]);
    renderPanel({ server: "demo", tool: compareFiles });
    const field = await screen.findByRole("group", { name: /files/ });
    const outside = document.createElement("div");
    document.body.append(outside);
    document.elementFromPoint = vi.fn(() => outside);
    act(() => ipc.desktopDrop?.({ type: "drop", paths: ["/tmp/notes.txt"], x: 900, y: 300 }));
    expect(ipc.artifactImportPaths).not.toHaveBeenCalled();
    document.elementFromPoint = vi.fn(() => screen.getByRole("heading", { name: "Compare files" }));
    act(() => ipc.desktopDrop?.({ type: "drop", paths: ["/tmp/notes.txt"], x: 100, y: 20 }));
    expect(ipc.artifactImportPaths).toHaveBeenCalledExactlyOnceWith(["/tmp/notes.txt"]);
    expect(await within(field).findByText("notes.txt")).toBeTruthy();
    outside.remove();
  });

  it("in the JSON editor the references are typed; a wrong one is named and blocks the call", async () => {
    const { user } = renderPanel({ server: "demo", tool: summarizeCsv });
    await user.click(await screen.findByRole("tab", { name: "JSON" }));
    const text = screen.getByRole("textbox", { name: "Arguments (JSON)" });
    fireEvent.change(text, { target: { value: `{"table": "artifact:${chart.id}"}` } });
    expect(await screen.findByText("table: chart.png is image/png; this tool takes text/csv, .csv")).toBeTruthy();
    expect(callButton().disabled).toBe(true);
    fireEvent.change(text, { target: { value: `{"table": "artifact:demo_000000000000"}` } });
    expect(await screen.findByText("table: No stored file demo_000000000000")).toBeTruthy();
    expect(callButton().disabled).toBe(true);
    fireEvent.change(text, { target: { value: `{"table": "artifact:${table.id}"}` } });
    await waitFor(() => expect(callButton().disabled).toBe(false));
    await user.click(callButton());
    expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "summarize_csv", `{"table": "artifact:${table.id}"}`, false, "token-1");
    // The next tool opens in the form again.
    await user.click(screen.getByRole("tab", { name: "Form" }));
  });
});

describe("ToolPanel, a call with files in the history", () => {
  it("re-runs with the same references, and the chip shows the file again", async () => {
    ipc.artifactImportPick.mockResolvedValueOnce([chart, notes]);
    const { user, unmount } = renderPanel({ server: "demo", tool: compareFiles });
    await user.click(await screen.findByRole("button", { name: "Choose files…" }));
    await user.click(callButton());
    const sent = sentText({ files: [`artifact:${chart.id}`, `artifact:${notes.id}`] });
    expect(ipc.callTool).toHaveBeenLastCalledWith("demo", "compare_files", sent, false, "token-1");
    unmount();

    // The history keeps the references; Re-run opens the tool with them and calls once they are looked up.
    const onRerun = vi.fn();
    const history = render(<CallHistory onRerun={onRerun} />);
    const entry = history.container.querySelector<HTMLElement>('.call-record[data-tool="compare_files"]')!;
    expect(entry.querySelector(".call-record-arguments")?.textContent).toContain(`artifact:${notes.id}`);
    await user.click(within(entry).getByRole("button", { name: "Re-run" }));
    const rerun = onRerun.mock.calls[0][0];
    history.unmount();

    ipc.callTool.mockClear();
    renderPanel({ server: rerun.server, tool: rerun.tool, rerun: { arguments: rerun.arguments, nonce: 1 } });
    await waitFor(() => expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "compare_files", sent, false, "token-1"));
    expect(ipc.artifactRecord).toHaveBeenCalledWith(chart.id);
    expect(ipc.artifactRecord).toHaveBeenCalledWith(notes.id);
    expect(within(screen.getByRole("list", { name: "Files for files" })).getByText("notes.txt")).toBeTruthy();
  });

  it("a re-run whose file is gone is not sent; the field says why", async () => {
    renderPanel({ server: "demo", tool: describeImage, rerun: { arguments: sentText({ image: "artifact:demo_999999999999" }), nonce: 2 } });
    expect(await screen.findByText("No stored file demo_999999999999")).toBeTruthy();
    expect(callButton().disabled).toBe(true);
    expect(ipc.callTool).not.toHaveBeenCalled();
  });
});
