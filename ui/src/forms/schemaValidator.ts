// The JSON Schema validator behind the @rjsf forms (tool arguments, servers' form questions).
//
// Not @rjsf/validator-ajv8: Ajv compiles every schema into JavaScript with `new Function`, which
// the window's CSP (`script-src 'self'`, no 'unsafe-eval') refuses — and allowing eval there would
// let a server's schema feed generated code in the one window that may call every tool. This is
// the same `ValidatorType` on @cfworker/json-schema, an interpreting validator (drafts 4, 7,
// 2019-09, 2020-12; no eval, no dependencies). The host validates again before anything is sent.
// (@rjsf/validator-ajv8 stays in package.json only because @rjsf/core's entry module imports it
// for its test helper `getTestRegistry`; it is tree-shaken out: the bundle holds no Ajv.)
import { dereference, validate, type OutputUnit, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import {
  toErrorSchema,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";

/** The base URI a schema without `$id` is resolved against (never fetched). */
const BASE = "urn:mcp-canvas:schema";

/** The draft a schema declares with `$schema`; 2020-12 (MCP's default) when it declares none. */
export function draftOf(schema: unknown): SchemaDraft {
  const declared = isObject(schema) && typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-04")) return "4";
  if (declared.includes("draft-06") || declared.includes("draft-07")) return "7";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Data as it will be sent: JSON has no `undefined` (a field the user cleared is left out). */
export function asJson(data: unknown): unknown {
  return data === undefined ? undefined : JSON.parse(JSON.stringify(data));
}

/**
 * The errors of `data` against `schema` (refs inside resolved against `root`, the whole schema),
 * as the validator reports them: most specific only — a wrapper such as `properties` or `$ref`
 * is dropped when an error below it says what is wrong, and what failed inside an `anyOf`/`oneOf`
 * is folded into that one error. Throws when the schema cannot be used (an unresolved `$ref`).
 */
export function schemaErrors(schema: unknown, data: unknown, root: unknown = schema): OutputUnit[] {
  // @cfworker/json-schema annotates the schema objects it indexes: work on copies.
  const rootCopy = structuredClone(root) as Schema | boolean;
  const lookup = dereference(rootCopy as Schema, Object.create(null), new URL(BASE));
  let target = rootCopy;
  if (schema !== root) {
    target = structuredClone(schema) as Schema | boolean;
    // Indexed under the root's URI (at a pointer no schema uses) so its `#/...` refs mean the root's.
    const rootUri = typeof rootCopy === "object" && rootCopy.__absolute_uri__ ? rootCopy.__absolute_uri__ : BASE;
    dereference(target as Schema, lookup, new URL(rootUri), "/__mcp_canvas_subschema__");
  }
  const instance = asJson(data) ?? null;
  const { valid, errors } = validate(instance, target as Schema, draftOf(root), lookup, false);
  return valid ? [] : mostSpecific(errors);
}

function mostSpecific(errors: OutputUnit[]): OutputUnit[] {
  // `false` schemas (`additionalProperties: false`...) are reported again by their parent keyword,
  // which names the property.
  errors = errors.filter((e) => e.keyword !== "false");
  const unions = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf").map((e) => e.keywordLocation + "/");
  const outsideUnions = errors.filter((e) => !unions.some((u) => e.keywordLocation.startsWith(u)));
  return outsideUnions.filter((e) => !outsideUnions.some((other) => other !== e && other.keywordLocation.startsWith(e.keywordLocation + "/")));
}

/** `#/a/0/b~1c` → `.a.0.b/c` (the property path rjsf places errors by). */
function propertyPath(instanceLocation: string): string {
  const pointer = instanceLocation.replace(/^#/, "");
  if (pointer === "") return "";
  return pointer
    .split("/")
    .slice(1)
    .map((part) => "." + part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join("");
}

/** The validator's words for `unit`, said of the field, and the property a problem with one of an
 * object's keys belongs to (`required`, `additionalProperties`: the key, like Ajv's errors). */
function worded(unit: OutputUnit): { message: string; key?: string } {
  const text = unit.error.replace(/\s+/g, " ").replace(/\.$/, "");
  const match = (pattern: RegExp) => pattern.exec(text);
  let m: RegExpExecArray | null;
  switch (unit.keyword) {
    case "required":
      return { message: "is required", key: match(/required property "(.*)"$/)?.[1] };
    case "additionalProperties":
    case "unevaluatedProperties":
      return { message: "is not allowed here", key: match(/^Property "(.*)" does not match/)?.[1] };
    case "type":
      return { message: text.replace(/^Instance type "(\w+)" is invalid\. Expected (.+)$/, (_, is, expected) => `must be ${expected.replace(/"/g, "").replace(/, /g, " or ")} (not ${is})`) };
    case "minimum":
    case "exclusiveMinimum":
      if ((m = match(/is less than or equal to (\S+)$/))) return { message: `must be greater than ${m[1]}` };
      if ((m = match(/is less than (\S+)$/))) return { message: unit.keyword === "minimum" ? `must be at least ${m[1]}` : `must be greater than ${m[1]}` };
      break;
    case "maximum":
    case "exclusiveMaximum":
      if ((m = match(/is greater than or equal to (\S+)$/))) return { message: `must be less than ${m[1]}` };
      if ((m = match(/is greater than (\S+)$/))) return { message: unit.keyword === "maximum" ? `must be at most ${m[1]}` : `must be less than ${m[1]}` };
      break;
    case "multipleOf":
      if ((m = match(/is not a multiple of (\S+)$/))) return { message: `must be a multiple of ${m[1]}` };
      break;
    case "minLength":
      if ((m = match(/< (\d+)\)$/))) return { message: `must be at least ${m[1]} character${m[1] === "1" ? "" : "s"} long` };
      break;
    case "maxLength":
      if ((m = match(/> (\d+)\)$/))) return { message: `must be at most ${m[1]} character${m[1] === "1" ? "" : "s"} long` };
      break;
    case "minItems":
      if ((m = match(/< (\d+)\)$/))) return { message: `needs at least ${m[1]} item${m[1] === "1" ? "" : "s"}` };
      break;
    case "maxItems":
      if ((m = match(/> (\d+)\)$/))) return { message: `takes at most ${m[1]} item${m[1] === "1" ? "" : "s"}` };
      break;
    case "enum":
      if ((m = match(/does not match any of (.*)$/))) return { message: `must be one of ${m[1]}` };
      break;
    case "const":
      if ((m = match(/does not match (.*)$/))) return { message: `must be ${m[1]}` };
      break;
    case "format":
      if ((m = match(/format "(.*)"$/))) return { message: `must be a valid ${m[1]}` };
      break;
    case "pattern":
      return { message: "does not have the expected form (pattern)" };
    case "anyOf":
      return { message: "does not match any of the allowed forms" };
    case "oneOf":
      return { message: "must match exactly one of the allowed forms" };
  }
  return { message: text.replace(/^Instance /, "") };
}

/** One validator error in rjsf's shape, worded for a person. */
export function toRjsfError(unit: OutputUnit, schema: unknown): RJSFValidationError {
  let property = propertyPath(unit.instanceLocation);
  const { message, key } = worded(unit);
  // Placed on the key itself so its field shows it.
  if (key !== undefined) property = `${property}.${key}`;
  const title = titleAt(schema, property);
  const label = title ?? (property ? `'${property.slice(1)}'` : "");
  return {
    name: unit.keyword,
    property,
    message,
    params: {},
    stack: `${label} ${message}`.trim(),
    schemaPath: unit.keywordLocation,
    title: title ?? "",
  };
}

/** The `title` of the property at `.a.b` of an object schema, when it has one. */
function titleAt(schema: unknown, property: string): string | undefined {
  let current: unknown = schema;
  for (const name of property.split(".").slice(1)) {
    const properties = isObject(current) ? current.properties : undefined;
    current = isObject(properties) ? properties[name] : undefined;
  }
  return property && isObject(current) && typeof current.title === "string" ? current.title : undefined;
}

/** rjsf's `ValidatorType` over {@link schemaErrors}. */
export class SchemaValidator implements ValidatorType {
  validateFormData(
    formData: unknown,
    schema: RJSFSchema,
    customValidate?: CustomValidator,
    transformErrors?: ErrorTransformer,
    uiSchema?: UiSchema,
  ): ValidationData<unknown> {
    const { errors: units = [], validationError } = this.rawValidation<OutputUnit>(schema, formData);
    let errors = units.map((unit) => toRjsfError(unit, schema));
    if (validationError) errors.push({ stack: `The schema cannot be used: ${validationError.message}` });
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema<unknown>(errors);
    if (customValidate) {
      // Not used by this app's forms; kept so the contract holds.
      console.warn("SchemaValidator: customValidate is not supported");
    }
    return { errors, errorSchema };
  }

  isValid(schema: RJSFSchema, formData: unknown, rootSchema: RJSFSchema): boolean {
    try {
      return schemaErrors(schema, formData, rootSchema).length === 0;
    } catch {
      return false;
    }
  }

  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: unknown): { errors?: Result[]; validationError?: Error } {
    try {
      const errors = schemaErrors(schema, formData);
      return { errors: errors.length ? (errors as Result[]) : undefined };
    } catch (error) {
      return { validationError: error instanceof Error ? error : new Error(String(error)) };
    }
  }
}

/** The one validator the forms share (it keeps no state). */
export const schemaValidator = new SchemaValidator();

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
