// What the @rjsf forms are drawn from: the schema, the uiSchema (order, labels, widgets), the
// starting values (the schema's defaults), and the two-way link between the form and the raw
// JSON text of the arguments.
import { getDefaultFormState, type Experimental_DefaultFormStateBehavior, type RJSFSchema, type UiSchema } from "@rjsf/utils";
import { asJson, schemaValidator } from "./schemaValidator";

/** Defaults only where the schema gives one: no empty objects, no `[null]` padding for minItems. */
export const DEFAULTS_BEHAVIOR: Experimental_DefaultFormStateBehavior = {
  emptyObjectFields: "skipEmptyDefaults",
  arrayMinItems: { populate: "never" },
};

/** The schema the form is drawn from: an object schema, else `null` (only raw JSON then). */
export function formSchemaOf(schema: unknown): RJSFSchema | null {
  if (!isObject(schema)) return null;
  if (schema.type !== undefined && schema.type !== "object") return null;
  return schema as RJSFSchema;
}

/**
 * A tool's form schema: as {@link formSchemaOf}, with `username` no longer required when the
 * schema declares it — the host fills it in with the configured identity before it validates
 * and sends (crates/host/src/arguments.rs), so the user need not type it.
 */
export function toolFormSchema(inputSchema: unknown): RJSFSchema | null {
  const schema = formSchemaOf(inputSchema);
  if (!schema || !Array.isArray(schema.required) || !isObject(schema.properties) || !("username" in schema.properties)) return schema;
  return { ...schema, required: schema.required.filter((name) => name !== "username") };
}

/** Whether the form would show no field at all (a tool without arguments). */
export function hasNoFields(schema: RJSFSchema): boolean {
  const properties = schema.properties;
  return !(isObject(properties) && Object.keys(properties).length > 0) && !schema.additionalProperties && !schema.anyOf && !schema.oneOf && !schema.allOf;
}

/** Notes on arguments the host fills in or rewrites (see crates/host/src/arguments.rs). */
const HOST_NOTES: Record<string, string> = {
  username: "MCP Canvas replaces this with your configured identity.",
  filename: "An artifact name of this session is passed to the tool as a download URL.",
  file_names: "Artifact names of this session are passed to the tool as download URLs.",
};

/**
 * The uiSchema: the root's own title and description hidden (the panel or dialog shows them),
 * required fields first, no submit button (the caller has its own), legacy `enumNames` as option
 * labels, multi-select arrays as checkboxes, and notes on arguments the host fills in.
 */
export function uiSchemaFor(schema: RJSFSchema, options: { hostNotes: boolean }): UiSchema {
  const ui: UiSchema = {
    "ui:options": { label: false },
    "ui:submitButtonOptions": { norender: true },
  };
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string" && name in properties) : [];
  if (required.length > 0) ui["ui:order"] = [...required, "*"];
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    const field: UiSchema = {};
    if (Array.isArray(property.enumNames) && Array.isArray(property.enum)) field["ui:enumNames"] = property.enumNames.map(String);
    const items = property.items;
    if (property.type === "array" && isObject(items) && (Array.isArray(items.enum) || Array.isArray(items.anyOf) || Array.isArray(items.oneOf))) {
      field["ui:widget"] = "checkboxes";
    }
    if (options.hostNotes && HOST_NOTES[name]) field["ui:help"] = HOST_NOTES[name];
    if (Object.keys(field).length > 0) ui[name] = field;
  }
  return ui;
}

/** The starting arguments: every default the schema gives (nested too), nothing else. */
export function initialArguments(schema: RJSFSchema): Record<string, unknown> {
  const state = getDefaultFormState(schemaValidator, schema, undefined, schema, false, DEFAULTS_BEHAVIOR);
  const data = asJson(state);
  return isObject(data) ? data : {};
}

/** The arguments exactly as they will be sent (fields the user cleared are left out). */
export function argumentsText(args: unknown): string {
  return JSON.stringify(asJson(args) ?? {}, null, 2);
}

export type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Reads the raw JSON text; the form can only take a JSON object. */
export function parseArguments(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isObject(value)) return { ok: false, error: "The arguments must be a JSON object ({ … })." };
  return { ok: true, value };
}

/** The arguments and their JSON text, kept in step whichever one the user edits. */
export interface ArgumentsState {
  /** What the form shows (the last text that parsed to an object, or the form's own data). */
  args: Record<string, unknown>;
  /** The JSON editor's text; sent as is while the JSON editor is open. */
  text: string;
  /** Why `text` does not parse to an object, when it does not. */
  textError: string | null;
}

export function fromArguments(args: Record<string, unknown>): ArgumentsState {
  return { args, text: argumentsText(args), textError: null };
}

/** The form changed: the text follows. */
export function formEdited(_state: ArgumentsState, args: unknown): ArgumentsState {
  const data = asJson(args);
  return fromArguments(isObject(data) ? data : {});
}

/** The text changed: the form follows when it parses; otherwise the form keeps its last values. */
export function textEdited(state: ArgumentsState, text: string): ArgumentsState {
  const parsed = parseArguments(text);
  return parsed.ok ? { args: parsed.value, text, textError: null } : { ...state, text, textError: parsed.error };
}

/** One field set (a needsInput choice): both follow. */
export function fieldSet(state: ArgumentsState, field: string, value: unknown): ArgumentsState {
  return fromArguments({ ...state.args, [field]: value });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
