import { describe, expect, it, vi } from "vitest";
import { allowlistChanged, onAllowlistChange } from "../allowlistEvents";
import type { CanvasTab } from "../wire/CanvasTab";
import type { DashboardTab } from "../wire/DashboardTab";
import { displayOrigin, restoredWithoutToken } from "./dashboard";

const dashboard = (token: string | null, persistence: DashboardTab["persistence"] = "pinned"): DashboardTab => ({
  dashboard_id: "d",
  url: "http://127.0.0.1:8765/dashboard",
  title: "Live",
  persistence,
  token,
});

const tab = (content: DashboardTab, by: CanvasTab["opened_by"]): CanvasTab => ({
  id: 1,
  label: "Live",
  content: { kind: "dashboard", ...content },
  opened_by: by,
  pinned: false,
  floating: false,
  focus: null,
});

describe("dashboard tabs", () => {
  it("know when they were restored without a token", () => {
    const restored = dashboard(null);
    expect(restoredWithoutToken(tab(restored, { kind: "user" }), restored)).toBe(true);
    const fresh = dashboard("t");
    expect(restoredWithoutToken(tab(fresh, { kind: "call", call_id: "c" }), fresh)).toBe(false);
    const session = dashboard(null, "session");
    expect(restoredWithoutToken(tab(session, { kind: "call", call_id: "c" }), session)).toBe(false);
  });

  it("show the origin of their URL", () => {
    expect(displayOrigin("http://127.0.0.1:8765/dashboard?token=x")).toBe("http://127.0.0.1:8765");
    expect(displayOrigin("not a url")).toBe("not a url");
  });

  it("hear about allowlist changes until they unsubscribe", () => {
    const listener = vi.fn();
    const off = onAllowlistChange(listener);
    allowlistChanged();
    off();
    allowlistChanged();
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
