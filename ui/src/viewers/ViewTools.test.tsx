import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { CallOutcome } from "../wire/CallOutcome";
import { ViewTools } from "./ViewTools";
import type { ViewTool } from "./viewTools";

const tools: ViewTool[] = [
  { name: "get-allocations", title: "Get Budget Allocations", description: "The current allocations", inputSchema: { type: "object", properties: {} } },
  { name: "set-total-budget", title: "Set Total Budget", description: null, inputSchema: { type: "object", properties: { amount: { type: "number", title: "amount" } }, required: ["amount"] } },
];

const outcome = (summary: string, error = false): CallOutcome =>
  ({ call_id: "c", server: "budget", tool: "view:x", summary, texts: [], artifacts: [], display: { mode: "append" }, error: error ? { code: "x", message: summary } : null, warnings: [] }) as unknown as CallOutcome;

describe("ViewTools", () => {
  it("is nothing when the view offers no tools", () => {
    const { container } = render(<ViewTools tools={[]} problem={null} run={vi.fn()} />);
    expect(container.textContent).toBe("");
  });

  it("is folded, then runs the chosen tool in the view and shows its answer", async () => {
    const user = userEvent.setup();
    const run = vi.fn<(name: string, args: Record<string, unknown>) => Promise<CallOutcome>>().mockResolvedValue(outcome('{"totalBudget":250000}'));
    render(<ViewTools tools={tools} problem={null} run={run} />);
    expect(screen.queryByRole("button", { name: "Run in the view" })).toBeNull();
    await user.click(screen.getByRole("button", { name: /View tools \(2\)/ }));
    expect(screen.getByText("The current allocations")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Run in the view" }));
    await waitFor(() => expect(run).toHaveBeenCalledWith("get-allocations", {}));
    expect((await screen.findByText('{"totalBudget":250000}')).closest("pre")?.dataset.state).toBe("ok");
  });

  it("checks the arguments against the tool's schema before the view is asked", async () => {
    const user = userEvent.setup();
    const run = vi.fn<(name: string, args: Record<string, unknown>) => Promise<CallOutcome>>().mockResolvedValue(outcome("set"));
    render(<ViewTools tools={tools} problem={null} run={run} />);
    await user.click(screen.getByRole("button", { name: /View tools/ }));
    await user.selectOptions(screen.getByRole("combobox"), "set-total-budget");
    await user.click(screen.getByRole("button", { name: "Run in the view" }));
    await waitFor(() => expect(document.querySelector(".schema-form")).toBeTruthy());
    expect(run).not.toHaveBeenCalled();
    await user.type(await screen.findByRole("spinbutton"), "250000");
    await user.click(screen.getByRole("button", { name: "Run in the view" }));
    await waitFor(() => expect(run).toHaveBeenCalledWith("set-total-budget", { amount: 250000 }));
  });

  it("starts each tool from its own schema's defaults, also the first one shown", async () => {
    const user = userEvent.setup();
    const run = vi.fn<(name: string, args: Record<string, unknown>) => Promise<CallOutcome>>().mockResolvedValue(outcome("ok"));
    const zoom: ViewTool = { name: "zoom", title: null, description: null, inputSchema: { type: "object", properties: { level: { type: "number", default: 1.5 } } } };
    const { rerender } = render(<ViewTools tools={[zoom, tools[1]]} problem={null} run={run} />);
    await user.click(screen.getByRole("button", { name: /View tools/ }));
    await waitFor(() => expect(document.querySelector(".schema-form")).toBeTruthy());
    await user.click(screen.getByRole("button", { name: "Run in the view" }));
    await waitFor(() => expect(run).toHaveBeenLastCalledWith("zoom", { level: 1.5 }));
    // The view's list changed and `zoom` is gone: the next tool shown does not get zoom's arguments.
    rerender(<ViewTools tools={[tools[1]]} problem={null} run={run} />);
    await user.type(await screen.findByRole("spinbutton"), "7");
    await user.click(screen.getByRole("button", { name: "Run in the view" }));
    await waitFor(() => expect(run).toHaveBeenLastCalledWith("set-total-budget", { amount: 7 }));
  });

  it("says why when the view failed or answered with an error", async () => {
    const user = userEvent.setup();
    const run = vi
      .fn<(name: string, args: Record<string, unknown>) => Promise<CallOutcome>>()
      .mockRejectedValueOnce(new Error("the view did not answer within 120 s"))
      .mockResolvedValueOnce(outcome("Error: Configuration not loaded", true));
    render(<ViewTools tools={tools} problem="The view did not list its tools: timeout" run={run} />);
    await user.click(screen.getByRole("button", { name: /View tools/ }));
    expect(screen.getByText("The view did not list its tools: timeout")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Run in the view" }));
    expect((await screen.findByText(/Failed: the view did not answer within 120 s/)).dataset.state).toBe("failed");
    await user.click(screen.getByRole("button", { name: "Run in the view" }));
    expect((await screen.findByText("Error: Configuration not loaded")).dataset.state).toBe("tool_error");
  });
});
