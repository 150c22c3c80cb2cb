import { describe, expect, it } from "vitest";
import { expandTemplate, templateVariables } from "./uriTemplate";

describe("URI templates", () => {
  it("lists each variable once, in order", () => {
    expect(templateVariables("demo://chart/{values}")).toEqual(["values"]);
    expect(templateVariables("file:///{+path}{?q,limit}{&q}")).toEqual(["path", "q", "limit"]);
    expect(templateVariables("x://{a:3}/{b*}")).toEqual(["a", "b"]);
    expect(templateVariables("no variables")).toEqual([]);
  });

  it("expands each operator as RFC 6570 does", () => {
    expect(expandTemplate("demo://chart/{values}", { values: "3,1,4" })).toBe("demo://chart/3%2C1%2C4");
    expect(expandTemplate("file:///{+path}", { path: "a b/c.txt" })).toBe("file:///a%20b/c.txt");
    expect(expandTemplate("x://s{?q,limit}", { q: "a&b", limit: "" })).toBe("x://s?q=a%26b");
    expect(expandTemplate("x://s{/a,b}", { a: "1", b: "2" })).toBe("x://s/1/2");
    expect(expandTemplate("x://{a:2}", { a: "hello" })).toBe("x://he");
    expect(expandTemplate("x://{a}", {})).toBe("x://");
  });

  it("cannot be made to climb out of a path segment", () => {
    expect(expandTemplate("notes://{name}.md", { name: "../../.bashrc" })).toBe("notes://..%2F..%2F.bashrc.md");
  });
});
