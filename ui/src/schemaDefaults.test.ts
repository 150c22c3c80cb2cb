import { describe, expect, it } from "vitest";
import { defaultArguments } from "./schemaDefaults";

describe("defaultArguments", () => {
  it("takes each property's default", () => {
    const schema = {
      type: "object",
      properties: { values: { type: "array", default: [1, 2] }, title: { type: "string" }, n: { default: 0 } },
    };
    expect(defaultArguments(schema)).toEqual({ values: [1, 2], n: 0 });
  });

  it("skips null defaults and tolerates schemas without properties", () => {
    expect(defaultArguments({ properties: { title: { default: null } } })).toEqual({});
    expect(defaultArguments({ type: "object" })).toEqual({});
    expect(defaultArguments(null)).toEqual({});
    expect(defaultArguments({ properties: [1] })).toEqual({});
  });
});
