import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ARTIFACT_DRAG_TYPE } from "../drag";
import { noteRead, setWatch } from "../offers/watches";
import { artifactTab, resourceReadOf } from "../test/canvas";
import type { CanvasView } from "../wire/CanvasView";
import { Canvas, LIVE_TITLE } from "./Canvas";

vi.mock("../ipc", () => ({
  artifactUrl: (id: string) => `artifact://localhost/${id}`,
  artifactViewUrl: (id: string, view: string) => `artifact://localhost/${id}/${view}`,
  onResourceWatch: () => () => {},
}));

describe("Canvas tab headers", () => {
  it("mark a tab whose resource is watched as live, until it is unwatched", () => {
    const view: CanvasView = {
      panes: [{ id: 1, tabs: [artifactTab(1, "demo_aaa", "scratch.ogg", "read-1"), artifactTab(2, "demo_bbb", "song.ogg", "call-2")], active_tab: 2, last_call: "call-2" }],
      active_pane: 1,
    };
    render(<Canvas view={view} send={() => {}} />);
    expect(screen.queryByTitle(LIVE_TITLE)).toBeNull();
    act(() => {
      setWatch("demo", "demo://notes/scratch", "starting");
      noteRead(resourceReadOf("demo", "demo://notes/scratch", "read-1", "demo_aaa", "scratch.ogg"));
      setWatch("demo", "demo://notes/scratch", "watching");
    });
    const marks = screen.getAllByTitle(LIVE_TITLE);
    expect(marks).toHaveLength(1);
    expect(marks[0].closest("[role=tab]")?.textContent).toContain("scratch.ogg");
    expect(marks[0].getAttribute("aria-label")).toBe("Live");
    act(() => setWatch("demo", "demo://notes/scratch", null));
    expect(screen.queryByTitle(LIVE_TITLE)).toBeNull();
  });
});

describe("Canvas tabs as drag sources", () => {
  it("a stored file's tab drags its artifact id (for a tool's file field)", () => {
    const view: CanvasView = { panes: [{ id: 1, tabs: [artifactTab(1, "demo_1f0c2b7e9a41", "song.ogg", "call-1")], active_tab: 1, last_call: "call-1" }], active_pane: 1 };
    render(<Canvas view={view} send={() => {}} />);
    const tab = screen.getByRole("tab", { name: /song\.ogg/ });
    expect(tab.getAttribute("draggable")).toBe("true");
    const data: Record<string, string> = {};
    fireEvent.dragStart(tab, { dataTransfer: { setData: (type: string, value: string) => (data[type] = value), effectAllowed: "all" } });
    expect(data).toEqual({ [ARTIFACT_DRAG_TYPE]: "demo_1f0c2b7e9a41", "text/plain": "artifact:demo_1f0c2b7e9a41" });
  });
});
