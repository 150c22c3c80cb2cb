import { describe, expect, it } from "vitest";
import { keysLabel, shortcutFor, SHORTCUTS, type KeyPress } from "./shortcuts";

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: true, metaKey: false, shiftKey: false, altKey: false, ...mods });

describe("shortcutFor", () => {
  it("maps tab switching and closing", () => {
    expect(shortcutFor(press("Tab"))).toBe("next_tab");
    expect(shortcutFor(press("Tab", { shiftKey: true }))).toBe("previous_tab");
    expect(shortcutFor(press("PageDown"))).toBe("next_tab");
    expect(shortcutFor(press("PageUp"))).toBe("previous_tab");
    expect(shortcutFor(press("w"))).toBe("close_tab");
    expect(shortcutFor(press("W"))).toBe("close_tab");
  });

  it("maps zoom with and without Shift (+ is Shift+= on most layouts)", () => {
    expect(shortcutFor(press("="))).toBe("zoom_in");
    expect(shortcutFor(press("+", { shiftKey: true }))).toBe("zoom_in");
    expect(shortcutFor(press("-"))).toBe("zoom_out");
    expect(shortcutFor(press("_", { shiftKey: true }))).toBe("zoom_out");
    expect(shortcutFor(press("0"))).toBe("zoom_reset");
  });

  it("takes Cmd like Ctrl, and needs one of them", () => {
    expect(shortcutFor(press("w", { ctrlKey: false, metaKey: true }))).toBe("close_tab");
    expect(shortcutFor(press("w", { ctrlKey: false }))).toBeNull();
    expect(shortcutFor(press("Tab", { ctrlKey: false }))).toBeNull();
    expect(shortcutFor(press("=", { ctrlKey: false }))).toBeNull();
  });

  it("ignores Alt combinations, other keys and shifted variants that mean something else", () => {
    expect(shortcutFor(press("w", { altKey: true }))).toBeNull();
    expect(shortcutFor(press("W", { shiftKey: true }))).toBeNull();
    expect(shortcutFor(press("a"))).toBeNull();
    expect(shortcutFor(press("0", { shiftKey: true }))).toBeNull();
    expect(shortcutFor(press("PageDown", { shiftKey: true }))).toBeNull();
  });

  it("documents every action", () => {
    const actions = new Set(SHORTCUTS.map((s) => s.action));
    expect(actions).toEqual(new Set(["next_tab", "previous_tab", "close_tab", "zoom_in", "zoom_out", "zoom_reset", "toggle_panels", "open_search"]));
  });
});

describe("Ctrl+B", () => {
  it("hides or shows the side panels, and is listed", () => {
    expect(shortcutFor(press("b"))).toBe("toggle_panels");
    expect(shortcutFor(press("B", { shiftKey: true }))).toBeNull();
    expect(shortcutFor(press("b", { ctrlKey: false }))).toBeNull();
    expect(SHORTCUTS.some((s) => s.action === "toggle_panels")).toBe(true);
  });
});

describe("Ctrl+K", () => {
  it("opens the search palette, with Cmd on macOS too, and is listed", () => {
    expect(shortcutFor(press("k"))).toBe("open_search");
    expect(shortcutFor(press("K"))).toBe("open_search");
    expect(shortcutFor(press("k", { ctrlKey: false, metaKey: true }))).toBe("open_search");
    expect(shortcutFor(press("k", { ctrlKey: false }))).toBeNull();
    expect(shortcutFor(press("K", { shiftKey: true }))).toBeNull();
    expect(shortcutFor(press("k", { altKey: true }))).toBeNull();
    expect(SHORTCUTS.find((s) => s.action === "open_search")?.keys).toBe("Ctrl+K");
  });
});

describe("keysLabel", () => {
  it("names Ctrl as ⌘ on macOS only", () => {
    expect(keysLabel("Ctrl+K", "MacIntel")).toBe("⌘K");
    expect(keysLabel("Ctrl+=, Ctrl++", "MacIntel")).toBe("⌘=, ⌘+");
    expect(keysLabel("Ctrl+K", "Linux x86_64")).toBe("Ctrl+K");
    expect(keysLabel("Ctrl+K", "Win32")).toBe("Ctrl+K");
  });
});
