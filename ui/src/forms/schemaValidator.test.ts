import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { draftOf, schemaErrors, schemaValidator } from "./schemaValidator";

const nested: RJSFSchema = { $ref: "#/$defs/N" };
const schema: RJSFSchema = {
  type: "object",
  required: ["q", "n"],
  properties: {
    q: { type: "string", minLength: 2, title: "Query" },
    n: { type: "integer", minimum: 1 },
    tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
    nested,
    choice: { anyOf: [{ type: "string" }, { type: "number" }] },
  },
  $defs: { N: { type: "object", required: ["x"], properties: { x: { type: "number" } } } },
};

describe("schemaValidator (rjsf's ValidatorType without eval)", () => {
  it("accepts valid data", () => {
    expect(schemaValidator.validateFormData({ q: "ok", n: 2, nested: { x: 1 } }, schema)).toEqual({ errors: [], errorSchema: {} });
  });

  it("reports the most specific problems, each on its field", () => {
    const { errors, errorSchema } = schemaValidator.validateFormData({ q: "a", tags: ["c"], nested: {}, choice: true }, schema);
    const byProperty = Object.fromEntries(errors.map((e) => [e.property, e]));
    expect(Object.keys(byProperty).sort()).toEqual([".choice", ".n", ".nested.x", ".q", ".tags.0"]);
    expect(byProperty[".n"]).toMatchObject({ name: "required", message: "is required", stack: "'n' is required" });
    expect(byProperty[".q"]).toMatchObject({ name: "minLength", stack: "Query must be at least 2 characters long" });
    expect(byProperty[".nested.x"].name).toBe("required");
    expect(byProperty[".choice"].name).toBe("anyOf");
    expect(errorSchema).toMatchObject({ n: { __errors: ["is required"] }, nested: { x: { __errors: ["is required"] } } });
  });

  it("leaves out fields the user cleared (undefined), as JSON does", () => {
    expect(schemaValidator.validateFormData({ q: "ok", n: 1, tags: undefined }, schema).errors).toEqual([]);
  });

  it("resolves a subschema's refs against the root schema", () => {
    const option = { $ref: "#/$defs/N" };
    expect(schemaValidator.isValid(option, { x: 1 }, schema)).toBe(true);
    expect(schemaValidator.isValid(option, {}, schema)).toBe(false);
    // The same subschema object validated twice (it is not changed by the first time).
    expect(schemaValidator.isValid(nested, { x: 2 }, schema)).toBe(true);
    expect(schemaValidator.isValid(nested, { x: "2" }, schema)).toBe(false);
  });

  it("says when a schema cannot be used, instead of throwing", () => {
    const broken: RJSFSchema = { type: "object", properties: { a: { $ref: "#/$defs/missing" } } };
    const { errors } = schemaValidator.validateFormData({ a: 1 }, broken);
    expect(errors).toHaveLength(1);
    expect(errors[0].stack).toMatch(/^The schema cannot be used: Unresolved \$ref/);
    expect(schemaValidator.isValid(broken, { a: 1 }, broken)).toBe(false);
  });

  it("follows the declared draft, 2020-12 by default", () => {
    expect(draftOf({ $schema: "http://json-schema.org/draft-07/schema#" })).toBe("7");
    expect(draftOf({ $schema: "http://json-schema.org/draft-04/schema#" })).toBe("4");
    expect(draftOf({ $schema: "https://json-schema.org/draft/2019-09/schema" })).toBe("2019-09");
    expect(draftOf({})).toBe("2020-12");
    // draft-07 `items` as an array (tuples) works when declared.
    const tuple = { $schema: "http://json-schema.org/draft-07/schema#", type: "array", items: [{ type: "string" }, { type: "number" }] };
    expect(schemaErrors(tuple, ["a", 1])).toEqual([]);
    expect(schemaErrors(tuple, [1, "a"]).map((e) => e.instanceLocation).sort()).toEqual(["#/0", "#/1"]);
  });

  it("ignores formats it does not know (uint64, double from schemars)", () => {
    expect(schemaErrors({ type: "object", properties: { n: { type: "integer", format: "uint64" } } }, { n: 3 })).toEqual([]);
  });
});

describe("error wording", () => {
  const messages = (schema: RJSFSchema, data: unknown) => schemaValidator.validateFormData(data, schema).errors.map((e) => `${e.property} ${e.message}`);
  it("says what a field needs, in words", () => {
    const s: RJSFSchema = {
      type: "object",
      additionalProperties: false,
      properties: {
        n: { type: "integer", minimum: 1, maximum: 5 },
        x: { type: "number", exclusiveMinimum: 0 },
        s: { type: "string", minLength: 2, maxLength: 3, format: "email" },
        e: { enum: ["a", "b"] },
        list: { type: "array", minItems: 1 },
        t: { type: "string" },
      },
    };
    expect(messages(s, { n: 0, x: 0, s: "a", e: "c", list: [], t: 3, extra: 1 }).sort()).toEqual(
      [
        ".n must be at least 1",
        ".x must be greater than 0",
        ".s must be at least 2 characters long",
        ".s must be a valid email",
        '.e must be one of ["a","b"]',
        ".list needs at least 1 item",
        ".t must be string (not number)",
        ".extra is not allowed here",
      ].sort(),
    );
    expect(messages(s, { n: 6, s: "abcd@x.io" }).sort()).toEqual([".n must be at most 5", ".s must be at most 3 characters long"]);
  });
});
