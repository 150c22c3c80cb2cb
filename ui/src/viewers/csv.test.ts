import { describe, expect, it } from "vitest";
import { parseCsv } from "./csv";

describe("parseCsv", () => {
  it("handles quotes, doubled quotes and newlines in fields", () => {
    const { rows } = parseCsv('name,note\n"Smith, J","said ""hi""\nthen left"\nplain,x\n', 100);
    expect(rows).toEqual([
      ["name", "note"],
      ["Smith, J", 'said "hi"\nthen left'],
      ["plain", "x"],
    ]);
  });

  it("stops at maxRows and says there is more", () => {
    const { rows, more } = parseCsv("a\n1\n2\n3\n", 2);
    expect(rows).toEqual([["a"], ["1"]]);
    expect(more).toBe(true);
  });

  it("detects tabs and semicolons", () => {
    expect(parseCsv("a\tb\n1\t2", 10).rows).toEqual([["a", "b"], ["1", "2"]]);
    expect(parseCsv("a;b\n1;2", 10).rows).toEqual([["a", "b"], ["1", "2"]]);
  });
});
