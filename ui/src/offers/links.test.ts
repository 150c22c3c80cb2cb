import { describe, expect, it } from "vitest";
import { resourceLinks } from "./links";

const text = (t: string) => ({ text: t, source: "content[0]", audience: "both" }) as never;

describe("resource links", () => {
  it("reads back what the contract wrote, as the host does", () => {
    expect(resourceLinks([text("Resource link: guide.md <demo://guide.md> — What each demo tool returns")])).toEqual([
      { name: "guide.md", uri: "demo://guide.md", description: "What each demo tool returns" },
    ]);
    expect(resourceLinks([text("Resource link: a <b> <file:///x%20y>")])).toEqual([{ name: "a <b>", uri: "file:///x%20y", description: null }]);
    expect(resourceLinks([text("Resource link: x <>"), text("Some text <demo://guide.md>")])).toEqual([]);
  });
});
