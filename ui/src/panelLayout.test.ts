import { describe, expect, it } from "vitest";
import { clampToolWidth, TOOL_WIDTH } from "./panelLayout";

describe("the tool panel's dragged width", () => {
  it("stays between its bounds, so the canvas keeps most of the window", () => {
    expect(clampToolWidth(100)).toBe(TOOL_WIDTH.min);
    expect(clampToolWidth(5000)).toBe(TOOL_WIDTH.max);
    expect(clampToolWidth(401.6)).toBe(402);
    expect(TOOL_WIDTH.min).toBeLessThanOrEqual(TOOL_WIDTH.default);
    expect(TOOL_WIDTH.default).toBeLessThanOrEqual(TOOL_WIDTH.max);
  });
});
