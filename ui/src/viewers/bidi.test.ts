import { describe, expect, it } from "vitest";
import { bidiParts, revealBidi } from "./bidi";

describe("bidirectional formatting characters in cells", () => {
  it("are split out and named; other text is left alone", () => {
    expect(bidiParts("plain")).toEqual([{ text: "plain" }]);
    expect(bidiParts("a\u202Eb\u2066c")).toEqual([
      { text: "a" },
      { control: "\u202E", abbr: "RLO", title: "U+202E RIGHT-TO-LEFT OVERRIDE (shown, not applied)" },
      { text: "b" },
      { control: "\u2066", abbr: "LRI", title: "U+2066 LEFT-TO-RIGHT ISOLATE (shown, not applied)" },
      { text: "c" },
    ]);
    // Right-to-left text and its marks are data, not tricks.
    expect(bidiParts("\u05E9\u200F1")).toEqual([{ text: "\u05E9\u200F1" }]);
  });

  it("are named in plain text for tooltips", () => {
    expect(revealBidi("invoice\u202Efdp.exe")).toBe("invoice⟨RLO⟩fdp.exe");
  });
});
