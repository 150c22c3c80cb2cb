import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { emptyOutcome } from "../test/outcomes";
import type { CallOutcome } from "../wire/CallOutcome";
import type { ToolView } from "../wire/ToolView";
import { ToolPanel } from "./ToolPanel";

// ToolPanel calls the backend through ipc.ts (the one module that imports @tauri-apps).
const ipc = vi.hoisted(() => ({
  callTool: vi.fn(),
  cancelCall: vi.fn(),
  onCallProgress: vi.fn(() => () => {}),
}));
vi.mock("../ipc", () => ({
  ...ipc,
  newCallToken: () => "token-1",
  errorText: (error: unknown) => (typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)),
  errorKind: (error: unknown) => (typeof error === "object" && error !== null && "kind" in error ? error.kind : "bug"),
  restartServer: vi.fn(),
  signIn: vi.fn(),
  resourceRead: vi.fn(),
}));

// The demo's purge_cache: no arguments, annotated destructive.
const purgeCache: ToolView = {
  name: "purge_cache",
  title: "Purge the cache",
  description: "Empties the demo server's in-memory cache.",
  input_schema: { type: "object", properties: {} },
  read_only: false,
  destructive: true,
  ui: null,
  file_arguments: [],
};

const outcome: CallOutcome = emptyOutcome("purge_cache", "Purged 3 cache entries.");

function renderPanel() {
  const onOutcome = vi.fn();
  const user = userEvent.setup();
  render(<ToolPanel selection={{ server: "demo", tool: purgeCache }} onOutcome={onOutcome} />);
  return { user, onOutcome };
}

describe("ToolPanel, a tool that may delete data", () => {
  beforeEach(() => {
    ipc.callTool.mockReset().mockResolvedValue(outcome);
  });

  it("asks first with the exact arguments; focus starts on Don't run, and Escape runs nothing", async () => {
    const { user } = renderPanel();
    const call = screen.getByRole("button", { name: "Call tool" });
    await user.click(call);
    const confirmation = screen.getByRole("alertdialog", { name: /Purge the cache may change or delete data/ });
    expect(confirmation.textContent).toContain("{}");
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Don't run" }));
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(ipc.callTool).not.toHaveBeenCalled();
    // Back on the button that asked.
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Call tool" }));
  });

  it("Don't run runs nothing", async () => {
    const { user } = renderPanel();
    await user.click(screen.getByRole("button", { name: "Call tool" }));
    await user.keyboard("{Enter}");
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(ipc.callTool).not.toHaveBeenCalled();
  });

  it("Run it calls the tool, confirmed, with the arguments shown, and shows the outcome", async () => {
    const { user, onOutcome } = renderPanel();
    await user.click(screen.getByRole("button", { name: "Call tool" }));
    await user.click(screen.getByRole("button", { name: "Run it" }));
    expect(ipc.callTool).toHaveBeenCalledExactlyOnceWith("demo", "purge_cache", "{}", true, "token-1");
    expect(await screen.findByText("Purged 3 cache entries.")).toBeTruthy();
    await waitFor(() => expect(onOutcome).toHaveBeenCalledWith(outcome));
  });
});

// The demo's search_patterns: one argument, read-only (no confirmation).
const searchPatterns: ToolView = {
  name: "search_patterns",
  title: "Search patterns",
  description: null,
  input_schema: { type: "object", properties: { query: { type: "string", title: "query" } } },
  read_only: true,
  destructive: false,
  ui: null,
  file_arguments: [],
};

describe("ToolPanel, errors and what follows them", () => {
  beforeEach(() => {
    ipc.callTool.mockReset();
  });

  it("a successful call clears the previous call's error card", async () => {
    ipc.callTool.mockRejectedValueOnce({ kind: "server_down", message: "server `demo` exited (code 1)" }).mockResolvedValueOnce(emptyOutcome("search_patterns", "Found 2 patterns."));
    const user = userEvent.setup();
    render(<ToolPanel selection={{ server: "demo", tool: searchPatterns }} onOutcome={() => {}} />);
    await user.click(screen.getByRole("button", { name: "Call tool" }));
    const card = await screen.findByRole("alert");
    expect(card.textContent).toContain("Server stopped");
    await user.click(screen.getByRole("button", { name: "Call tool" }));
    expect(await screen.findByText("Found 2 patterns.")).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByText(/exited \(code 1\)/)).toBeNull();
  });

  it("a tool's own error (isError) offers Fix the arguments, which puts the focus in the form", async () => {
    ipc.callTool.mockResolvedValueOnce({ ...emptyOutcome("search_patterns", "Failed."), error: { code: "TOOL_ERROR", message: "query must name a pattern", retryable: null, details: null } });
    const user = userEvent.setup();
    render(<ToolPanel selection={{ server: "demo", tool: searchPatterns }} onOutcome={() => {}} />);
    const query = await screen.findByRole("textbox", { name: "query" });
    await user.click(screen.getByRole("button", { name: "Call tool" }));
    await user.click(await screen.findByRole("button", { name: "Fix the arguments" }));
    expect(document.activeElement).toBe(query);
  });
});
