import { act, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
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
