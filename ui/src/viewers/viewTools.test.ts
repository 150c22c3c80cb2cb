import { describe, expect, it } from "vitest";
import { MAX_VIEW_TOOLS, readViewTools } from "./viewTools";

describe("readViewTools", () => {
  it("keeps named tools with their titles, descriptions and object schemas", () => {
    const tools = readViewTools({
      tools: [
        { name: "get-allocations", title: "Get Budget Allocations", description: "Current allocations", inputSchema: { type: "object", properties: {} } },
        { name: "set-total-budget", inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] } },
      ],
    });
    expect(tools.map((t) => [t.name, t.title])).toEqual([
      ["get-allocations", "Get Budget Allocations"],
      ["set-total-budget", null],
    ]);
    expect(tools[1].inputSchema).toMatchObject({ required: ["amount"] });
  });

  it("drops what is not a tool, repeats, and a view's flood", () => {
    const flood = Array.from({ length: 500 }, (_, i) => ({ name: `t${i}` }));
    expect(readViewTools({ tools: [null, 3, { title: "no name" }, { name: "" }, { name: "a" }, { name: "a" }, ...flood] }).map((t) => t.name).slice(0, 3)).toEqual(["a", "t0", "t1"]);
    expect(readViewTools({ tools: flood })).toHaveLength(MAX_VIEW_TOOLS);
    expect(readViewTools({ tools: "nope" })).toEqual([]);
    expect(readViewTools(null)).toEqual([]);
  });

  it("never hands the form a schema that is not an object schema", () => {
    const [tool] = readViewTools({ tools: [{ name: "x", inputSchema: { type: "string" } }] });
    expect(tool.inputSchema).toEqual({ type: "object" });
    // A name too long to show whole is not offered: the view would be called with a name it does not have.
    expect(readViewTools({ tools: [{ name: "y".repeat(1000) }, { name: "z", title: "t".repeat(5000), description: "d".repeat(5000) }] }).map((t) => [t.name, t.title?.length, t.description?.length])).toEqual([["z", 200, 2000]]);
  });
});
