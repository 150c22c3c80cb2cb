import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ArtifactPage } from "../wire/ArtifactPage";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { TeamStatus } from "../wire/TeamStatus";
import { ArtifactBrowser } from "./ArtifactBrowser";

const ipc = vi.hoisted(() => ({
  artifactsQuery: vi.fn<(query: unknown) => Promise<ArtifactPage>>(),
  artifactsSources: vi.fn<() => Promise<never[]>>(),
  artifactsUsage: vi.fn<() => Promise<never>>(),
  // A local store: no team, only this machine's files.
  teamStatus: vi.fn<() => Promise<TeamStatus | null>>(),
  teamSync: vi.fn(),
  artifactOpen: vi.fn(),
  artifactRemove: vi.fn(),
  artifactSaveAs: vi.fn(),
  artifactSetPinned: vi.fn(),
  artifactModelShared: vi.fn<(id: string) => Promise<boolean>>(),
  artifactSetModelShared: vi.fn<(id: string, shared: boolean) => Promise<void>>(),
}));
vi.mock("../ipc", async (importOriginal) => {
  const { errorText } = await importOriginal<typeof import("../ipc")>();
  return { ...ipc, errorText, artifactViewUrl: (id: string, view: string) => `artifact://localhost/${id}/${view}` };
});

vi.stubGlobal(
  "IntersectionObserver",
  class {
    observe() {}
    unobserve() {}
    disconnect() {}
  },
);

const REPORT: ArtifactRecord = {
  id: "demo_report",
  sha256: "00",
  name: "q3-report.pdf",
  mime: "application/pdf",
  size: 1000,
  server: "demo",
  tool: "report",
  call_id: "call-1",
  session_id: "s",
  created_at_ms: Date.now() - 5 * 60_000,
  last_used_at_ms: 0,
  persistence: "session",
  description: null,
};

beforeEach(() => {
  ipc.artifactsQuery.mockReset().mockResolvedValue({ items: [REPORT], total: 1 });
  ipc.artifactsSources.mockReset().mockResolvedValue([]);
  ipc.artifactsUsage.mockReset().mockReturnValue(new Promise(() => undefined));
  ipc.teamStatus.mockReset().mockResolvedValue(null);
  ipc.artifactModelShared.mockReset().mockResolvedValue(false);
  ipc.artifactSetModelShared.mockReset().mockResolvedValue();
});

describe("ArtifactBrowser: letting AI hosts use a file", () => {
  it("reads whether the file is the models', and lets them use it at a click, the label flipping", async () => {
    const user = userEvent.setup();
    render(<ArtifactBrowser onClose={() => undefined} refresh={0} />);
    const let_ = await screen.findByRole("button", { name: "Let AI hosts use q3-report.pdf" });
    expect(ipc.artifactModelShared).toHaveBeenCalledWith("demo_report");
    expect(let_.getAttribute("aria-pressed")).toBe("false");
    await user.click(let_);
    expect(ipc.artifactSetModelShared).toHaveBeenCalledExactlyOnceWith("demo_report", true);
    const stop = await screen.findByRole("button", { name: "Stop AI hosts using q3-report.pdf" });
    expect(stop.textContent).toBe("Stop AI hosts using");
    expect(stop.getAttribute("aria-pressed")).toBe("true");
  });

  it("shows the store's refusal and puts the label back", async () => {
    let refuse: (e: unknown) => void = () => undefined;
    ipc.artifactSetModelShared.mockReturnValue(new Promise((_, reject) => (refuse = reject)));
    const user = userEvent.setup();
    render(<ArtifactBrowser onClose={() => undefined} refresh={0} />);
    await user.click(await screen.findByRole("button", { name: "Let AI hosts use q3-report.pdf" }));
    // Optimistic: flipped while the store answers.
    expect(screen.getByRole("button", { name: "Stop AI hosts using q3-report.pdf" })).toBeTruthy();
    refuse(new Error("The file is gone"));
    expect((await screen.findByRole("alert")).textContent).toContain("The file is gone");
    await waitFor(() => expect(screen.getByRole("button", { name: "Let AI hosts use q3-report.pdf" }).getAttribute("aria-pressed")).toBe("false"));
    expect(screen.queryByRole("button", { name: /Stop AI hosts using/ })).toBeNull();
  });
});
