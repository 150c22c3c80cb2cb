import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ElicitationAnswer } from "../wire/ElicitationAnswer";
import type { ElicitationPrompt } from "../wire/ElicitationPrompt";
import { ElicitationDialog } from "./ElicitationDialog";

// The demo's ask_preferences question (crates/demo/src/tools/interactive.rs).
const requestedSchema = {
  type: "object",
  description: "Preferences for the MCP Canvas demo",
  properties: {
    theme: { type: "string", enum: ["light", "dark", "system"], title: "Theme", description: "Colour theme for the canvas" },
    font_size: { type: "number", minimum: 8, maximum: 32, title: "Font size", description: "Text size in points (8–32)", default: 14 },
    notifications: { type: "boolean", title: "Notifications", description: "Show a notification when a long job finishes", default: true },
    display_name: { type: "string", maxLength: 64, title: "Display name", description: "How the canvas greets you (up to 64 characters)", default: "Canvas user" },
  },
  required: ["theme", "font_size"],
};

const formPrompt: ElicitationPrompt = {
  mode: "form",
  id: "e1",
  server: "demo",
  message: "How would you like MCP Canvas to look?",
  fields: [],
  attempt: 1,
  problems: [],
  requested_schema: requestedSchema,
};

const urlPrompt: ElicitationPrompt = {
  mode: "url",
  id: "e2",
  server: "demo",
  message: "Open this page to link your (pretend) demo account.",
  url: "https://accounts.example.com/link?token=abc123&next=%2Fdone",
  domain: "accounts.example.com",
  warnings: ["The address has a token in it: anyone who sees it can use it."],
};

function renderDialog(prompt: ElicitationPrompt) {
  const onAnswer = vi.fn<(answer: ElicitationAnswer) => Promise<void>>().mockResolvedValue(undefined);
  const user = userEvent.setup();
  render(
    <>
      <button type="button">Behind the dialog</button>
      <ElicitationDialog prompt={prompt} onAnswer={onAnswer} />
    </>,
  );
  return { user, onAnswer };
}

/** The form is loaded lazily: wait for its first field. */
const themeField = () => screen.findByRole("combobox", { name: /Theme/ }, { timeout: 5000 });

describe("ElicitationDialog, form", () => {
  it("is a labelled modal; focus moves to the first field once the form is drawn", async () => {
    renderDialog(formPrompt);
    const dialog = screen.getByRole("dialog", { name: "How would you like MCP Canvas to look?" });
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    expect(dialog.textContent).toContain("demo asks");
    const theme = await themeField();
    await waitFor(() => expect(document.activeElement).toBe(theme));
    // Defaults are filled in.
    expect((screen.getByRole("spinbutton", { name: /Font size/ }) as HTMLInputElement).value).toBe("14");
    expect((screen.getByRole("textbox", { name: /Display name/ }) as HTMLInputElement).value).toBe("Canvas user");
  });

  it("refuses to accept without the required field, then accepts once it is filled in", async () => {
    const { user, onAnswer } = renderDialog(formPrompt);
    await themeField();
    await user.click(screen.getByRole("button", { name: "Accept" }));
    const dialog = screen.getByRole("dialog");
    await waitFor(() => expect(dialog.textContent).toContain("is required"));
    expect(onAnswer).not.toHaveBeenCalled();

    await user.selectOptions(await themeField(), "dark");
    const name = screen.getByRole("textbox", { name: /Display name/ });
    await user.clear(name);
    await user.type(name, "Ada Lovelace");
    await user.click(screen.getByRole("button", { name: "Accept" }));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({
      action: "accept",
      content: { theme: "dark", font_size: 14, notifications: true, display_name: "Ada Lovelace" },
    });
  });

  it("Enter in a field accepts the form (when it is valid)", async () => {
    const { user, onAnswer } = renderDialog(formPrompt);
    await user.selectOptions(await themeField(), "light");
    await user.click(screen.getByRole("spinbutton", { name: /Font size/ }));
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ action: "accept", content: expect.objectContaining({ theme: "light" }) }));
  });

  it("Enter with the required field missing shows the problem and sends nothing", async () => {
    const { user, onAnswer } = renderDialog(formPrompt);
    await themeField();
    await user.click(screen.getByRole("textbox", { name: /Display name/ }));
    await user.keyboard("{Enter}");
    await waitFor(() => expect(screen.getByRole("dialog").textContent).toContain("is required"));
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it("Escape cancels", async () => {
    const { user, onAnswer } = renderDialog(formPrompt);
    await themeField();
    await user.keyboard("{Escape}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: "cancel" });
  });

  it("Decline and Cancel are buttons that say what they send", async () => {
    const { user, onAnswer } = renderDialog(formPrompt);
    await themeField();
    await user.click(screen.getByRole("button", { name: "Decline" }));
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "decline" });
  });

  it("keeps Tab inside the dialog: past the last button comes the first field again", async () => {
    const { user } = renderDialog(formPrompt);
    const theme = await themeField();
    await waitFor(() => expect(document.activeElement).toBe(theme));
    const cancel = screen.getByRole("button", { name: "Cancel" });
    const dialog = screen.getByRole("dialog");
    for (let i = 0; i < 20 && document.activeElement !== cancel; i++) {
      await user.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    expect(document.activeElement).toBe(cancel);
    await user.tab();
    expect(document.activeElement).toBe(theme);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(cancel);
  });

  it("shows why the previous answer was refused", async () => {
    renderDialog({ ...formPrompt, attempt: 2, problems: ["font_size: must be at most 32"] });
    expect(within(screen.getByRole("dialog")).getByRole("alert").textContent).toContain("font_size: must be at most 32");
  });
});

describe("ElicitationDialog, URL", () => {
  it("shows the full URL and its domain, and the warnings", () => {
    renderDialog(urlPrompt);
    const dialog = screen.getByRole("dialog", { name: "Open this page to link your (pretend) demo account." });
    expect(dialog.querySelector(".elicitation-domain")?.textContent).toBe("accounts.example.com");
    expect(dialog.querySelector(".elicitation-full-url")?.textContent).toBe("https://accounts.example.com/link?token=abc123&next=%2Fdone");
    expect(within(dialog).getByRole("alert").textContent).toContain("has a token in it");
    // The domain and URL are the dialog's description, read out with it.
    const description = document.getElementById(dialog.getAttribute("aria-describedby")!);
    expect(description?.textContent).toContain("accounts.example.com");
    expect(description?.textContent).toContain("token=abc123");
  });

  it("starts on Decline, so Enter right away opens nothing", async () => {
    const { user, onAnswer } = renderDialog(urlPrompt);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Decline" }));
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: "decline" });
  });

  it("Escape cancels", async () => {
    const { user, onAnswer } = renderDialog(urlPrompt);
    await user.keyboard("{Escape}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: "cancel" });
  });

  it("accepts only on Open in browser", async () => {
    const { user, onAnswer } = renderDialog(urlPrompt);
    await user.click(screen.getByRole("button", { name: "Open in browser" }));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: "accept" });
  });

  it("keeps Tab inside the dialog", async () => {
    const { user } = renderDialog(urlPrompt);
    const open = screen.getByRole("button", { name: "Open in browser" });
    const cancel = screen.getByRole("button", { name: "Cancel" });
    await user.tab({ shift: true });
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(cancel);
    await user.tab();
    expect(document.activeElement).toBe(open);
  });

  it("ignores Escape while the answer is being sent", async () => {
    let finish: () => void = () => {};
    const onAnswer = vi.fn<(answer: ElicitationAnswer) => Promise<void>>().mockImplementation(() => new Promise<void>((resolve) => (finish = resolve)));
    const user = userEvent.setup();
    render(<ElicitationDialog prompt={urlPrompt} onAnswer={onAnswer} />);
    await user.click(screen.getByRole("button", { name: "Open in browser" }));
    await user.keyboard("{Escape}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: "accept" });
    finish();
  });
});
