import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { loadStyles } from "../test/styles";
import { CompletingInput } from "./CompletingInput";

const ipc = vi.hoisted(() => ({ completeArgument: vi.fn() }));
vi.mock("../ipc", () => ({ ...ipc, errorText: (e: unknown) => String(e) }));

const target = { kind: "prompt" as const, name: "scaffold" };

/** A prompt's form as the Prompts panel draws it: two fields, then the button. */
function Form({ onSubmit }: { onSubmit: () => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const field = (name: string) => (
    <CompletingInput server="demo" target={target} name={name} label={name} value={values[name] ?? ""} context={{}} onChange={(v) => setValues((old) => ({ ...old, [name]: v }))} />
  );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {field("language")}
      {field("framework")}
      <button type="submit">Get prompt</button>
    </form>
  );
}

async function openList() {
  const user = userEvent.setup();
  const onSubmit = vi.fn();
  render(<Form onSubmit={onSubmit} />);
  await user.type(screen.getByRole("combobox", { name: "language" }), "py");
  const list = await screen.findByRole("listbox", { name: "Suggestions for language" });
  return { user, onSubmit, list };
}

describe("CompletingInput's suggestions", () => {
  beforeEach(() => {
    ipc.completeArgument.mockReset().mockResolvedValue({ values: ["python", "pyret", "pyside", "pypy", "pyodide", "pyscript"], total: null, has_more: false, note: null });
  });

  it("sit in the flow under their field, before the next field, never over it", async () => {
    loadStyles("styles.css");
    const { list } = await openList();
    expect(["absolute", "fixed"]).not.toContain(getComputedStyle(list).position);
    expect(["absolute", "fixed"]).not.toContain(getComputedStyle(list.parentElement!).position);
    const next = screen.getByRole("combobox", { name: "framework" });
    expect(list.compareDocumentPosition(next) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(list.contains(next)).toBe(false);
  });

  it("close on Escape, keeping the focus in the field", async () => {
    const { user } = await openList();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole("combobox", { name: "language" }));
  });

  it("are not tab stops: Tab goes to the next field and closes them", async () => {
    const { user } = await openList();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("combobox", { name: "framework" }));
    await waitFor(() => expect(screen.queryByRole("listbox", { name: "Suggestions for language" })).toBeNull());
  });

  it("let the button below be clicked while they are open, and close", async () => {
    const { user, onSubmit } = await openList();
    await user.click(screen.getByRole("button", { name: "Get prompt" }));
    expect(onSubmit).toHaveBeenCalledOnce();
    await waitFor(() => expect(screen.queryByRole("listbox")).toBeNull());
  });

  it("are picked with the arrows and Enter, or a click", async () => {
    const { user } = await openList();
    await user.keyboard("{ArrowDown}{ArrowDown}{Enter}");
    expect(screen.getByRole("combobox", { name: "language" })).toHaveProperty("value", "pyret");
    expect(screen.queryByRole("listbox")).toBeNull();
    await user.type(screen.getByRole("combobox", { name: "language" }), "x");
    await user.click((await screen.findByRole("option", { name: "pypy" })).querySelector("button")!);
    expect(screen.getByRole("combobox", { name: "language" })).toHaveProperty("value", "pypy");
  });
});
