import { describe, expect, it } from "vitest";
import { filterTools, searchTerms, toolMatches } from "./toolSearch";

const tool = (name: string, title: string | null = null, description: string | null = null) => ({ name, title, description });
const tools = [
  tool("render_chart", "Render a chart", "Draws a bar chart as a PNG image."),
  tool("make_report", null, "An HTML report with a chart and a CSV."),
  tool("purge_cache", "Purge the cache", "Deletes cached files."),
];

describe("tool search", () => {
  it("keeps every tool for a blank query", () => {
    expect(searchTerms("   ")).toEqual([]);
    expect(filterTools(tools, "")).toBe(tools);
    expect(filterTools(tools, "  \t")).toEqual(tools);
  });
  it("matches the name, the title or the description, in any case", () => {
    expect(filterTools(tools, "PURGE").map((t) => t.name)).toEqual(["purge_cache"]);
    expect(filterTools(tools, "render a").map((t) => t.name)).toEqual(["render_chart"]);
    expect(filterTools(tools, "csv").map((t) => t.name)).toEqual(["make_report"]);
  });
  it("needs every word to match, anywhere", () => {
    expect(filterTools(tools, "chart png").map((t) => t.name)).toEqual(["render_chart"]);
    expect(filterTools(tools, "chart").map((t) => t.name)).toEqual(["render_chart", "make_report"]);
    expect(filterTools(tools, "chart deletes")).toEqual([]);
  });
  it("copes with a tool without title or description", () => {
    expect(toolMatches(tool("whoami"), ["who"])).toBe(true);
    expect(toolMatches(tool("whoami"), ["null"])).toBe(false);
  });
});
