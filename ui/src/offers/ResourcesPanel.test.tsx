import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { emptyOutcome } from "../test/outcomes";
import { loadStyles } from "../test/styles";
import type { ResourceList } from "../wire/ResourceList";
import type { ResourceRead } from "../wire/ResourceRead";
import { RESOURCE_PAGE, ResourcesPanel } from "./ResourcesPanel";

// 150 resources: the first RESOURCE_PAGE are listed, "Show 50 more" after them.

const ipc = vi.hoisted(() => ({
  serverResources: vi.fn(),
  resourceRead: vi.fn(),
  resourceWatch: vi.fn(),
  resourceUnwatch: vi.fn(),
}));
vi.mock("../ipc", async (importOriginal) => {
  // The real error readers: they only read a CommandError.
  const { errorText, errorKind } = await importOriginal<typeof import("../ipc")>();
  return {
    ...ipc,
    errorText,
    errorKind,
    onServerChanged: () => () => {},
    onResourceWatch: () => () => {},
    completeArgument: vi.fn(),
    restartServer: vi.fn(),
    signIn: vi.fn(),
  };
});

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

const list = (count: number): ResourceList => ({
  server: "demo",
  supported: true,
  templates: [],
  resources: Array.from({ length: count }, (_, i) => ({ uri: `demo://reports/${i}`, name: `report-${i}.xlsx`, title: null, description: null, mime: XLSX, size: 2048 })),
});

const read = (uri: string, summary: string): ResourceRead => ({ ...emptyOutcome("resources/read", summary), read_id: `read-${uri}`, uri });

describe("ResourcesPanel", () => {
  beforeEach(() => {
    ipc.serverResources.mockReset().mockResolvedValue(list(150));
    ipc.resourceRead.mockReset();
  });

  it("shows each resource's MIME type whole (it wraps; never cut with an ellipsis)", async () => {
    loadStyles("styles.css");
    render(<ResourcesPanel server="demo" onClose={() => {}} />);
    const row = (await screen.findByText("demo://reports/0")).closest("li")!;
    const mime = within(row).getByText(XLSX);
    expect(mime.textContent).toBe(XLSX);
    for (let node: HTMLElement | null = mime; node && node !== row; node = node.parentElement) {
      const style = getComputedStyle(node);
      expect(style.whiteSpace).not.toBe("nowrap");
      expect(style.textOverflow).not.toBe("ellipsis");
      expect(style.overflow).not.toBe("hidden");
    }
    expect(within(row).getByText(/^2(\.0)? KB$/)).toBeTruthy();
  });

  it("shows what was read under the resource's own row, not below a 100-row list", async () => {
    const user = userEvent.setup();
    ipc.resourceRead.mockImplementation(async (_server: string, uri: string) => read(uri, `Read ${uri}`));
    expect(RESOURCE_PAGE).toBe(100);
    render(<ResourcesPanel server="demo" onClose={() => {}} />);
    const row = (await screen.findByText("demo://reports/90")).closest("li")!;
    await user.click(within(row).getByRole("button", { name: "Open" }));
    const shown = await screen.findByRole("region", { name: "Last read" });
    expect(shown.closest("li")).toBe(row);
    expect(within(shown).getByText("Read demo://reports/90")).toBeTruthy();
    // Before the rest of the list, well before "Show more".
    const more = screen.getByRole("button", { name: "Show 50 more of 50" });
    expect(shown.compareDocumentPosition(more) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(shown.compareDocumentPosition(screen.getByText("demo://reports/91")) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("replaces the last read with the error of a read that failed, in that resource's row", async () => {
    const user = userEvent.setup();
    ipc.resourceRead.mockResolvedValueOnce(read("demo://reports/3", "Read report 3")).mockRejectedValueOnce({ kind: "not_found", message: "no resource demo://reports/4" });
    render(<ResourcesPanel server="demo" onClose={() => {}} />);
    await user.click(within((await screen.findByText("demo://reports/3")).closest("li")!).getByRole("button", { name: "Open" }));
    expect(await screen.findByText("Read report 3")).toBeTruthy();
    const row4 = screen.getByText("demo://reports/4").closest("li")!;
    await user.click(within(row4).getByRole("button", { name: "Open" }));
    const alert = await screen.findByRole("alert");
    expect(alert.closest("li")).toBe(row4);
    expect(alert.textContent).toContain("no resource demo://reports/4");
    expect(screen.queryByText("Read report 3")).toBeNull();
    await waitFor(() => expect(screen.queryByRole("region", { name: "Last read" })).toBeNull());
  });
});
