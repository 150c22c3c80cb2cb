import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "./App";
import { teamStatusOf } from "./test/team";
import type { CanvasView } from "./wire/CanvasView";
import type { TeamStatus } from "./wire/TeamStatus";

// The canvas reaches the UI one way: `canvasView` once at start, then `canvas-changed` pushes
// (`onCanvasChanged`). Commands that change it (`canvasIntent`, `artifactOpen`, `artifactRemove`)
// resolve to nothing.
const ipc = vi.hoisted(() => {
  const canvas: { listener: ((view: CanvasView) => void) | null } = { listener: null };
  const quiet = () => () => {};
  return {
    canvas,
    listServers: vi.fn(() => Promise.resolve([])),
    serverStatuses: vi.fn(() => Promise.resolve([])),
    canvasView: vi.fn<() => Promise<CanvasView>>(),
    canvasIntent: vi.fn(() => Promise.resolve()),
    onCanvasChanged: vi.fn((listener: (view: CanvasView) => void) => {
      canvas.listener = listener;
      return () => {
        canvas.listener = null;
      };
    }),
    onElicitation: vi.fn(quiet),
    onElicitationClosed: vi.fn(quiet),
    onSamplingRequest: vi.fn(quiet),
    onSamplingReview: vi.fn(quiet),
    onSamplingClosed: vi.fn(quiet),
    onConfirmRequest: vi.fn(quiet),
    onConfirmClosed: vi.fn(quiet),
    onProxiedCall: vi.fn(quiet),
    onServerChanged: vi.fn(quiet),
    // The canvas's tab headers follow resource watches (offers/watches.ts).
    onResourceWatch: vi.fn(quiet),
    // The search palette asks for its filters' servers and tools when it opens.
    artifactsSources: vi.fn(() => Promise.resolve([])),
    artifactsSearch: vi.fn(),
    // …and whether there is a team to search (null: a local store).
    teamStatus: vi.fn<() => Promise<TeamStatus | null>>(() => Promise.resolve(null)),
    teamSearch: vi.fn(() => Promise.resolve([])),
    teamMembers: vi.fn(() => Promise.resolve([])),
  };
});
vi.mock("./ipc", () => ({
  ...ipc,
  errorText: (error: unknown) => String(error),
  artifactUrl: (id: string) => `artifact://localhost/${id}`,
  artifactViewUrl: (id: string, view: string) => `artifact://localhost/${id}/${view}`,
}));

/** One pane with an image tab per name (tab ids from 1), the last one active. */
function canvasOf(...names: string[]): CanvasView {
  const tabs = names.map((name, i) => ({
    id: i + 1,
    label: name,
    content: { kind: "artifact" as const, artifact_id: `demo_${i + 1}`, name, mime: "image/png", viewer: "image" as const },
    opened_by: { kind: "call" as const, call_id: "call-1" },
    pinned: false,
    floating: false,
    focus: null,
  }));
  return { panes: [{ id: 1, tabs, active_tab: tabs.at(-1)?.id ?? null, last_call: "call-1" }], active_pane: 1 };
}

const tabLabels = () => screen.queryAllByRole("tab").map((tab) => tab.querySelector(".tab-label")?.textContent);

describe("App, the canvas", () => {
  beforeEach(() => {
    ipc.canvasView.mockReset();
    ipc.canvasIntent.mockClear();
    ipc.canvas.listener = null;
  });

  it("draws the canvas read at start, then only what Rust pushes; an intent draws nothing by itself", async () => {
    ipc.canvasView.mockResolvedValue(canvasOf("a.png", "b.png"));
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(tabLabels()).toEqual(["a.png", "b.png"]));

    await user.click(screen.getByRole("button", { name: "Close a.png" }));
    expect(ipc.canvasIntent).toHaveBeenCalledWith({ intent: "close_tab", tab: 1 });
    expect(tabLabels()).toEqual(["a.png", "b.png"]);

    act(() => ipc.canvas.listener?.(canvasOf("b.png")));
    expect(tabLabels()).toEqual(["b.png"]);
  });

  it("keeps a pushed canvas when the first read answers after it", async () => {
    let answer: (view: CanvasView) => void = () => {};
    ipc.canvasView.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    render(<App />);
    await waitFor(() => expect(ipc.canvas.listener).not.toBeNull());
    act(() => ipc.canvas.listener?.(canvasOf("new.png")));
    await act(async () => answer(canvasOf("old.png")));
    expect(tabLabels()).toEqual(["new.png"]);
  });
});

describe("App, the search palette", () => {
  beforeEach(() => {
    ipc.canvasView.mockReset().mockResolvedValue(canvasOf("a.png"));
    ipc.canvasIntent.mockClear();
  });

  it("opens with Ctrl+K from anywhere in the window; Escape closes it and gives focus back", async () => {
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(tabLabels()).toEqual(["a.png"]));
    const tab = screen.getByRole("button", { name: "a.png" });
    tab.focus();
    await user.keyboard("{Control>}k{/Control}");
    const dialog = screen.getByRole("dialog", { name: "Search artifacts" });
    expect(document.activeElement).toBe(within(dialog).getByRole("combobox", { name: "Search the text of stored files" }));
    // Keys typed in the palette stay in it: Ctrl+W closes no tab behind it.
    await user.keyboard("{Control>}w{/Control}");
    expect(ipc.canvasIntent).not.toHaveBeenCalled();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(tab);
  });

  it("opens from the search field in the sidebar, and from the canvas while the side panels are hidden", async () => {
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByRole("button", { name: /^Search files/ }));
    expect(screen.getByRole("dialog", { name: "Search artifacts" })).toBeTruthy();
    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Hide the server list and tool panel" }));
    await user.click(screen.getByRole("button", { name: "Search files" }));
    expect(screen.getByRole("dialog", { name: "Search artifacts" })).toBeTruthy();
  });

  it("opens again on the scope last chosen (This machine | Team) with a team store", async () => {
    ipc.teamStatus.mockResolvedValue(teamStatusOf());
    try {
      const user = userEvent.setup();
      render(<App />);
      await waitFor(() => expect(tabLabels()).toEqual(["a.png"]));
      await user.keyboard("{Control>}k{/Control}");
      const scope = () => within(screen.getByRole("group", { name: "Whose files" }));
      await user.click(await screen.findByRole("button", { name: "Team" }));
      expect(scope().getByRole("button", { name: "Team" }).getAttribute("aria-pressed")).toBe("true");
      await user.keyboard("{Escape}");
      expect(screen.queryByRole("dialog")).toBeNull();
      await user.keyboard("{Control>}k{/Control}");
      expect(scope().getByRole("button", { name: "Team" }).getAttribute("aria-pressed")).toBe("true");
      expect(scope().getByRole("button", { name: "This machine" }).getAttribute("aria-pressed")).toBe("false");
    } finally {
      ipc.teamStatus.mockResolvedValue(null);
    }
  });
});
