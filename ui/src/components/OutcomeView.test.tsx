import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { emptyOutcome } from "../test/outcomes";
import type { CallOutcome } from "../wire/CallOutcome";
import { OutcomeView } from "./OutcomeView";

const base: CallOutcome = emptyOutcome("search_patterns", "The search needs more input.");

describe("OutcomeView", () => {
  it("offers needsInput options and suggestions as buttons that fill their field", async () => {
    const onChoose = vi.fn();
    const user = userEvent.setup();
    render(
      <OutcomeView
        outcome={{
          ...base,
          needs_input: {
            message: "What should I search for?",
            fields: ["q"],
            reason: "The query is empty.",
            suggestions: { q: ["revenue"] },
            options: [
              { label: "Sales", value: "sales", description: "Sales dashboards", field: "q" },
              { label: "Ask me later", value: "later", description: null, field: null },
            ],
          },
        }}
        onChoose={onChoose}
      />,
    );
    expect(screen.getByText("What should I search for?")).toBeTruthy();
    expect(screen.getByText("The query is empty.")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "q: Sales" }));
    expect(onChoose).toHaveBeenLastCalledWith("q", "sales");
    await user.click(screen.getByRole("button", { name: "q: revenue" }));
    expect(onChoose).toHaveBeenLastCalledWith("q", "revenue");
    // An option that names no field cannot fill one in.
    const later = screen.getByRole("button", { name: "Ask me later" });
    expect(later).toHaveProperty("disabled", true);
    await user.click(later);
    expect(onChoose).toHaveBeenCalledTimes(2);
  });

  it("shows the tool's error, whether retrying may help, and the warnings", async () => {
    const user = userEvent.setup();
    render(
      <OutcomeView
        outcome={{
          ...base,
          summary: "Failed.",
          error: { code: "RATE_LIMITED", message: "Too many requests.", retryable: true, details: null },
          warnings: ["a base64 block was not valid and was skipped", "the declared MIME type was wrong"],
        }}
        onChoose={() => {}}
      />,
    );
    expect(screen.getByText("RATE_LIMITED").parentElement?.textContent).toBe("RATE_LIMITED Too many requests. (retrying may help)");
    const warnings = screen.getByText("2 warnings");
    expect(screen.getByText("the declared MIME type was wrong")).toBeTruthy();
    await user.click(warnings);
    expect(warnings.closest("details")?.open).toBe(true);
  });

  it("offers Fix the arguments for a tool's own error where there is a form, not when a retry may help", async () => {
    const onFix = vi.fn();
    const user = userEvent.setup();
    const failed = { ...base, error: { code: "TOOL_ERROR", message: "unknown pattern", retryable: null, details: null } };
    const { rerender } = render(<OutcomeView outcome={failed} onChoose={() => {}} onFixArguments={onFix} />);
    await user.click(screen.getByRole("button", { name: "Fix the arguments" }));
    expect(onFix).toHaveBeenCalledOnce();
    // A resource or prompt read has no argument form.
    rerender(<OutcomeView outcome={failed} onChoose={() => {}} />);
    expect(screen.queryByRole("button", { name: "Fix the arguments" })).toBeNull();
    rerender(<OutcomeView outcome={{ ...failed, error: { ...failed.error, retryable: true } }} onChoose={() => {}} onFixArguments={onFix} />);
    expect(screen.queryByRole("button", { name: "Fix the arguments" })).toBeNull();
    rerender(<OutcomeView outcome={base} onChoose={() => {}} onFixArguments={onFix} />);
    expect(screen.queryByRole("button", { name: "Fix the arguments" })).toBeNull();
  });
});

