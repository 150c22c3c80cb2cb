import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { argumentsText, fieldSet, formEdited, formSchemaOf, fromArguments, hasNoFields, initialArguments, parseArguments, textEdited, toolFormSchema, uiSchemaFor } from "./formConfig";

const chart: RJSFSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["values"],
  properties: {
    title: { type: ["string", "null"], default: null },
    values: { type: "array", items: { type: "number" }, default: [3, 7] },
    style: { type: "object", properties: { color: { type: "string", default: "blue" }, width: { type: "integer" } } },
    files: { type: "array", items: { type: "string" }, minItems: 1 },
  },
};

describe("starting arguments", () => {
  it("are the schema's defaults, nested ones too, and nothing else", () => {
    expect(initialArguments(chart)).toEqual({ title: null, values: [3, 7], style: { color: "blue" } });
    expect(initialArguments({ type: "object", properties: {} })).toEqual({});
    expect(initialArguments({ type: "object", properties: { n: { type: "integer", minimum: 1 } } })).toEqual({});
  });
});

describe("the form's schema", () => {
  it("is an object schema or none", () => {
    expect(formSchemaOf(chart)).toBe(chart);
    expect(formSchemaOf({ properties: {} })).not.toBeNull();
    expect(formSchemaOf({ type: "string" })).toBeNull();
    expect(formSchemaOf(null)).toBeNull();
    expect(formSchemaOf([])).toBeNull();
  });
  it("leaves `username` to the host, which fills it in", () => {
    const whoami = { type: "object", required: ["username", "note"], properties: { username: { type: "string" }, note: { type: "string" } } };
    expect(toolFormSchema(whoami)?.required).toEqual(["note"]);
    expect(whoami.required).toEqual(["username", "note"]);
    const other = { type: "object", required: ["username"], properties: {} };
    expect(toolFormSchema(other)).toBe(other);
  });
  it("knows when there is nothing to fill in", () => {
    expect(hasNoFields({ type: "object", properties: {} })).toBe(true);
    expect(hasNoFields({ type: "object" })).toBe(true);
    expect(hasNoFields(chart)).toBe(false);
  });
});

describe("the uiSchema", () => {
  it("puts required fields first, hides the root title and the submit button", () => {
    const ui = uiSchemaFor(chart, { hostNotes: true });
    expect(ui["ui:order"]).toEqual(["values", "*"]);
    expect(ui["ui:options"]).toEqual({ label: false });
    expect(ui["ui:submitButtonOptions"]).toEqual({ norender: true });
  });
  it("labels legacy enumNames, shows multi-selects as checkboxes, notes what the host fills in", () => {
    const ui = uiSchemaFor(
      ({
        type: "object",
        required: ["missing"],
        properties: {
          size: { type: "string", enum: ["s", "l"], enumNames: ["Small", "Large"] },
          tags: { type: "array", items: { anyOf: [{ const: "a", title: "A" }] } },
          username: { type: "string" },
        },
      }) as RJSFSchema,
      { hostNotes: true },
    );
    expect(ui["ui:order"]).toBeUndefined();
    expect(ui.size).toEqual({ "ui:enumNames": ["Small", "Large"] });
    expect(ui.tags).toEqual({ "ui:widget": "checkboxes" });
    expect(ui.username["ui:help"]).toContain("identity");
    expect(uiSchemaFor({ type: "object", properties: { username: { type: "string" } } }, { hostNotes: false }).username).toBeUndefined();
  });
});

describe("form and JSON text in step", () => {
  it("writes the text from the form, leaving out cleared fields", () => {
    const state = formEdited(fromArguments({}), { title: "Signups", subtitle: undefined, values: [1, 2] });
    expect(state.args).toEqual({ title: "Signups", values: [1, 2] });
    expect(state.text).toBe('{\n  "title": "Signups",\n  "values": [\n    1,\n    2\n  ]\n}');
    expect(argumentsText(state.args)).toBe(state.text);
  });
  it("reads the form from text that parses to an object, and keeps the last one otherwise", () => {
    let state = textEdited(fromArguments({ a: 1 }), '{"a": 2}');
    expect(state).toEqual({ args: { a: 2 }, text: '{"a": 2}', textError: null });
    state = textEdited(state, '{"a": 2');
    expect(state.args).toEqual({ a: 2 });
    expect(state.text).toBe('{"a": 2');
    expect(state.textError).toMatch(/^Not valid JSON/);
    state = textEdited(state, "[1]");
    expect(state.textError).toBe("The arguments must be a JSON object ({ … }).");
    state = textEdited(state, '{"b": true}');
    expect(state).toEqual({ args: { b: true }, text: '{"b": true}', textError: null });
  });
  it("sets one field from a needsInput choice in both", () => {
    const state = fieldSet(textEdited(fromArguments({ q: "" }), "{oops"), "q", "effect");
    expect(state).toEqual({ args: { q: "effect" }, text: '{\n  "q": "effect"\n}', textError: null });
  });
  it("parses only JSON objects", () => {
    expect(parseArguments("{}")).toEqual({ ok: true, value: {} });
    expect(parseArguments("null").ok).toBe(false);
    expect(parseArguments("").ok).toBe(false);
  });
});
