import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { emptyOutcome } from "../test/outcomes";
import { loadStyles } from "../test/styles";
import type { PromptRead } from "../wire/PromptRead";
import type { PromptView } from "../wire/PromptView";
import { PromptsPanel } from "./PromptsPanel";

const ipc = vi.hoisted(() => ({
  serverPrompts: vi.fn(),
  promptRead: vi.fn(),
  completeArgument: vi.fn(),
}));
vi.mock("../ipc", async (importOriginal) => {
  // The real error readers: they only read a CommandError.
  const { errorText, errorKind } = await importOriginal<typeof import("../ipc")>();
  return {
    ...ipc,
    errorText,
    errorKind,
    onServerChanged: () => () => {},
    resourceRead: vi.fn(),
    restartServer: vi.fn(),
    signIn: vi.fn(),
  };
});

const LONG = "Summarizes a whole code review thread, with every reviewer's open questions, the files they touched and what is still blocking the merge, in the reviewer's own words";

const prompts: PromptView[] = [{ name: "review", title: "Review summary", description: LONG, arguments: [{ name: "pr", description: "Pull request number", required: true }] }];

const read = (markdown: string): PromptRead => ({
  ...emptyOutcome("prompts/get", "1 message"),
  read_id: "prompt-1",
  name: "review",
  description: null,
  messages: 1,
  markdown,
  json: "[]",
  cut: false,
});

describe("PromptsPanel", () => {
  beforeEach(() => {
    ipc.serverPrompts.mockReset().mockResolvedValue(prompts);
    ipc.promptRead.mockReset();
    ipc.completeArgument.mockReset().mockResolvedValue({ values: [], total: null, has_more: false, note: null });
  });

  it("wraps a prompt's description in the list instead of clipping it behind a sideways scroll", async () => {
    loadStyles("styles.css");
    render(<PromptsPanel server="demo" onClose={() => {}} />);
    const item = await screen.findByRole("button", { name: /Review summary/ });
    within(item).getByText(LONG);
    // In the list and over the chosen prompt's form: every place shows all of it.
    for (const description of screen.getAllByText(LONG)) {
      const style = getComputedStyle(description);
      expect(style.whiteSpace).not.toBe("nowrap");
      expect(style.overflow).not.toBe("hidden");
      expect(style.textOverflow).not.toBe("ellipsis");
    }
  });

  it("clears the previous transcript and its Copy buttons when a new request fails", async () => {
    const user = userEvent.setup();
    ipc.promptRead.mockResolvedValueOnce(read("# Review of PR 7")).mockRejectedValueOnce({ kind: "server_error", message: "server `demo` failed prompts/get: no PR 8" });
    render(<PromptsPanel server="demo" onClose={() => {}} />);
    await user.type(await screen.findByRole("combobox", { name: /pr/ }), "7");
    await user.click(screen.getByRole("button", { name: "Get prompt" }));
    expect(await screen.findByText("# Review of PR 7")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Copy as Markdown" })).toBeTruthy();

    await user.clear(screen.getByRole("combobox", { name: /pr/ }));
    await user.type(screen.getByRole("combobox", { name: /pr/ }), "8");
    await user.click(screen.getByRole("button", { name: "Get prompt" }));
    expect((await screen.findByRole("alert")).textContent).toContain("no PR 8");
    expect(screen.queryByText("# Review of PR 7")).toBeNull();
    expect(screen.queryByRole("button", { name: "Copy as Markdown" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Copy as JSON" })).toBeNull();
    await waitFor(() => expect(ipc.promptRead).toHaveBeenCalledTimes(2));
  });
});
