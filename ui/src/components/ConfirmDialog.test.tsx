import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ConfirmPrompt } from "../wire/ConfirmPrompt";
import { ConfirmDialog } from "./ConfirmDialog";

const prompt: ConfirmPrompt = { id: "c1", server: "demo", tool: "purge_cache", arguments: { older_than_days: 7 }, on_behalf_of: "the MCP Canvas proxy" };

function renderDialog(onAnswer = vi.fn<(confirmed: boolean) => Promise<void>>().mockResolvedValue(undefined)) {
  const user = userEvent.setup();
  render(
    <>
      <button type="button">Behind the dialog</button>
      <ConfirmDialog prompt={prompt} onAnswer={onAnswer} />
    </>,
  );
  return { user, onAnswer };
}

describe("ConfirmDialog", () => {
  it("is a labelled modal saying who asks, the tool, the server and the exact arguments", () => {
    renderDialog();
    const dialog = screen.getByRole("alertdialog", { name: "The MCP Canvas proxy wants to run purge_cache of demo, which may change or delete data." });
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    expect(dialog.textContent).toContain('"older_than_days": 7');
    expect(screen.getByRole("button", { name: "Run it" }).tagName).toBe("BUTTON");
    expect(screen.getByRole("button", { name: "Don't run" }).tagName).toBe("BUTTON");
  });

  it("starts on the safe answer: Enter right away does not run the tool", async () => {
    const { user, onAnswer } = renderDialog();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Don't run" }));
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith(false);
  });

  it("keeps Tab and Shift+Tab inside the dialog", async () => {
    const { user } = renderDialog();
    const run = screen.getByRole("button", { name: "Run it" });
    const refuse = screen.getByRole("button", { name: "Don't run" });
    await user.tab();
    expect(document.activeElement).toBe(run);
    await user.tab();
    expect(document.activeElement).toBe(refuse);
    await user.tab();
    expect(document.activeElement).toBe(run);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(refuse);
    expect(document.activeElement).not.toBe(screen.getByRole("button", { name: "Behind the dialog" }));
  });

  it("Escape is Don't run", async () => {
    const { user, onAnswer } = renderDialog();
    await user.keyboard("{Escape}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith(false);
  });

  it("runs the tool only on Run it", async () => {
    const { user, onAnswer } = renderDialog();
    await user.click(screen.getByRole("button", { name: "Run it" }));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith(true);
  });

  it("shows why an answer could not be sent, and can be answered again", async () => {
    const onAnswer = vi.fn<(confirmed: boolean) => Promise<void>>().mockRejectedValueOnce("the question is no longer open").mockResolvedValue(undefined);
    const { user } = renderDialog(onAnswer);
    await user.click(screen.getByRole("button", { name: "Run it" }));
    expect((await screen.findByRole("alert")).textContent).toBe("the question is no longer open");
    await waitFor(() => expect(screen.getByRole("button", { name: "Don't run" })).toHaveProperty("disabled", false));
    await user.click(screen.getByRole("button", { name: "Don't run" }));
    expect(onAnswer).toHaveBeenLastCalledWith(false);
  });

  it("gives focus back to where it was when it closes", async () => {
    const user = userEvent.setup();
    const { rerender } = render(
      <>
        <button type="button">Call tool</button>
        {null}
      </>,
    );
    const before = screen.getByRole("button", { name: "Call tool" });
    before.focus();
    rerender(
      <>
        <button type="button">Call tool</button>
        <ConfirmDialog prompt={prompt} onAnswer={async () => {}} />
      </>,
    );
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Don't run" }));
    // A click on the backdrop does not take focus out of the dialog.
    await user.click(document.querySelector(".elicitation-backdrop")!);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Don't run" }));
    rerender(
      <>
        <button type="button">Call tool</button>
        {null}
      </>,
    );
    expect(document.activeElement).toBe(before);
  });
});
