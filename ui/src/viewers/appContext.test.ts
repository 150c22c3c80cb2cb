import { describe, expect, it } from "vitest";
import { grantedMode, hostContext } from "./appContext";

describe("App display modes", () => {
  it("grants a mode only when both sides list it, else keeps the current one", () => {
    expect(grantedMode("pip", "inline", ["inline", "pip"])).toBe("pip");
    expect(grantedMode("pip", "fullscreen", ["inline", "fullscreen"])).toBe("fullscreen");
    expect(grantedMode("fullscreen", "inline", undefined)).toBe("fullscreen");
    expect(grantedMode("theater", "inline", undefined)).toBe("inline");
  });

  it("tells the App its tool, and no safe-area insets on a desktop", () => {
    const context = hostContext("inline", { width: 10, height: 20 }, { name: "render_chart", inputSchema: { type: "object" } });
    expect(context.toolInfo?.tool.name).toBe("render_chart");
    expect(context.safeAreaInsets).toEqual({ top: 0, right: 0, bottom: 0, left: 0 });
    expect(context.availableDisplayModes).toContain("pip");
    expect(hostContext("inline", { width: 1, height: 1 }).toolInfo).toBeUndefined();
  });
});
