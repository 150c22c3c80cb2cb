// A tool's file arguments in the window (issue 32): which arguments take files, the reference
// strings their values are (`artifact:<ID>`, or a list of them), and the checks made before a call
// is sent — the same as the host makes again (crates/host/src/files_in.rs: `reference_id`,
// `accepts`, `maxSize`). No React, no Tauri.
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import { formatBytes } from "../browser/filters";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { FileArgument } from "../wire/FileArgument";
import type { ToolView } from "../wire/ToolView";

/** The reference the window puts in a call's arguments for a stored file. */
export const reference = (id: string): string => `artifact:${id}`;

/** `<namespace>_<12 hex>`: an artifact id as the store makes them. */
const ARTIFACT_ID = /^[a-z0-9-]+_[0-9a-fA-F]{12}$/;

/** The artifact id in a reference as results show them — the bare id, `artifact:ID` or
 * `artifact://localhost/ID` — or `null` (as `files_in::reference_id`). */
export function referenceId(value: string): string | null {
  const text = value.trim();
  const id = text.startsWith("artifact://localhost/") ? text.slice("artifact://localhost/".length) : text.startsWith("artifact:") ? text.slice("artifact:".length) : text;
  return ARTIFACT_ID.test(id) ? id : null;
}

/** Whether `mime` (or the file name's extension) is among `accept` (empty: anything): `type/subtype`,
 * `type/*`, `.ext`, `*\/*`; case-insensitive. */
export function accepts(accept: string[], mime: string, name: string): boolean {
  if (accept.length === 0) return true;
  const essence = (mime.split(";")[0] ?? "").trim().toLowerCase();
  const dot = name.lastIndexOf(".");
  const extension = dot >= 0 ? name.slice(dot).toLowerCase() : null;
  return accept.some((entry) => {
    const a = entry.trim().toLowerCase();
    if (a === "*/*" || a === "*") return true;
    if (a.endsWith("/*")) return essence.split("/")[0] === a.slice(0, -2) && essence.includes("/");
    if (a.startsWith(".")) return extension === a;
    return a === essence;
  });
}

/** `text/csv, .csv` */
export const acceptText = (accept: string[]): string => accept.join(", ");

/** What the field says it takes: `text/csv, .csv · at most 10 MB`, or `null` for any file. */
export function takesText(arg: FileArgument): string | null {
  const parts = [arg.accept.length > 0 ? acceptText(arg.accept) : null, arg.max_size !== null ? `at most ${formatBytes(arg.max_size)}` : null].filter(Boolean);
  return parts.length > 0 ? parts.join(" · ") : null;
}

/** Why `record` cannot go to `arg` (its type, then its size), or `null`. */
export function recordProblem(arg: FileArgument, record: Pick<ArtifactRecord, "name" | "mime" | "size">): string | null {
  if (!accepts(arg.accept, record.mime, record.name)) return `${record.name} is ${record.mime || "of unknown type"}; this tool takes ${acceptText(arg.accept)}`;
  if (arg.max_size !== null && record.size > arg.max_size) return `${record.name} is ${formatBytes(record.size)}; this tool takes at most ${formatBytes(arg.max_size)}`;
  return null;
}

/** The file arguments of `tool`: those the host found (`file_arguments`), and any top-level
 * SEP-2356 property (`x-mcp-file` on a `format: uri` string, or an array of them) it did not list. */
export function fileArgumentsOf(tool: ToolView): FileArgument[] {
  const found = [...(tool.file_arguments ?? [])];
  const schema = tool.input_schema;
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (found.some((a) => a.name === name) || !isObject(property)) continue;
    const single = sep2356(property);
    if (single) found.push({ name, multiple: false, ...single });
    else if (property.type === "array" && isObject(property.items)) {
      const item = sep2356(property.items);
      if (item) found.push({ name, multiple: true, ...item });
    }
  }
  return found;
}

function sep2356(property: Record<string, unknown>): Pick<FileArgument, "accept" | "max_size"> | null {
  const descriptor = property["x-mcp-file"];
  if (!isObject(descriptor) || property.type !== "string" || property.format !== "uri") return null;
  const accept = Array.isArray(descriptor.accept) ? descriptor.accept.filter((a): a is string => typeof a === "string").map((a) => a.trim().toLowerCase()) : [];
  const max = descriptor.maxSize;
  return { accept, max_size: typeof max === "number" && Number.isFinite(max) && max >= 0 ? max : null };
}

/**
 * The schema the form is drawn from: each file argument a plain string (or list of strings) of
 * references, keeping its title, description and item bounds. The form checks the references
 * itself (type, size, existence); the host validates the real schema against what it sends (an
 * OpenAI file parameter may be declared as an object: its reference is still a string here).
 */
export function fileFormSchema(schema: RJSFSchema, args: FileArgument[]): RJSFSchema {
  if (args.length === 0 || !isObject(schema.properties)) return schema;
  const properties: Record<string, unknown> = { ...schema.properties };
  for (const arg of args) {
    const original = isObject(properties[arg.name]) ? (properties[arg.name] as Record<string, unknown>) : {};
    const kept: Record<string, unknown> = {};
    for (const key of ["title", "description"]) if (typeof original[key] === "string") kept[key] = original[key];
    if (arg.multiple) {
      for (const key of ["minItems", "maxItems"]) if (typeof original[key] === "number") kept[key] = original[key];
      properties[arg.name] = { ...kept, type: "array", items: { type: "string" } };
    } else {
      properties[arg.name] = { ...kept, type: "string" };
    }
  }
  return { ...schema, properties: properties as RJSFSchema["properties"] };
}

/** `ui` with each file argument drawn by `field` (the name of a custom field the form registers). */
export function withFileFields(ui: UiSchema, args: FileArgument[], field: string): UiSchema {
  if (args.length === 0) return ui;
  const next: UiSchema = { ...ui };
  for (const arg of args) {
    const own: UiSchema = isObject(ui[arg.name]) ? { ...(ui[arg.name] as UiSchema) } : {};
    delete own["ui:widget"];
    next[arg.name] = { ...own, "ui:field": field };
  }
  return next;
}

/** What the window knows of a stored file a reference names. */
export type RecordState = { kind: "loading" } | { kind: "ok"; record: ArtifactRecord } | { kind: "failed"; error: string };

/** One value of a file field, as its chip shows it. */
export type FileItem =
  /** A reference to a stored file: its record once known, and what is wrong with it for this argument. */
  | { kind: "stored"; value: string; id: string; state: RecordState | undefined; problem: string | null }
  /** A `data:` URI typed in (the host sends it as it is, within the same bounds). */
  | { kind: "inline"; value: string; mime: string; size: number; problem: string | null }
  /** Anything else. */
  | { kind: "invalid"; value: unknown; problem: string };

/** The check of one file field. */
export interface FieldCheck {
  items: FileItem[];
  /** What is wrong with the field as a whole, then with each item (what the field shows). */
  problems: string[];
  /** Some file it names is still being looked up. */
  pending: boolean;
}

/** The values of a field: `undefined`/`null`/`""`: none; a list (for `multiple`); else one. */
function valuesOf(arg: FileArgument, value: unknown): { values: unknown[]; problem: string | null } {
  if (value === undefined || value === null || value === "") return { values: [], problem: null };
  if (arg.multiple) return Array.isArray(value) ? { values: value, problem: null } : { values: [value], problem: `${arg.name} takes a list of files` };
  return Array.isArray(value) ? { values: value, problem: `${arg.name} takes one file` } : { values: [value], problem: null };
}

/** The bytes a `data:` URI's payload holds (about: base64 is 4 characters for 3 bytes). */
function inlineFacts(value: string): { mime: string; size: number } {
  const comma = value.indexOf(",");
  const header = value.slice("data:".length, comma < 0 ? undefined : comma);
  const data = comma < 0 ? "" : value.slice(comma + 1);
  const mime = header.split(";")[0] || "text/plain";
  const size = header.split(";").includes("base64") ? Math.floor((data.replace(/=+$/, "").length * 3) / 4) : decodeURIComponentSafe(data).length;
  return { mime, size };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Checks one field's value against its argument, with the records known so far. */
export function checkFileField(arg: FileArgument, value: unknown, records: Record<string, RecordState>): FieldCheck {
  const { values, problem } = valuesOf(arg, value);
  const items: FileItem[] = values.map((item) => {
    if (typeof item !== "string") return { kind: "invalid", value: item, problem: `${arg.name} takes a file reference (artifact:ID), not ${JSON.stringify(item)}` };
    if (item.startsWith("data:")) {
      const facts = inlineFacts(item);
      return { kind: "inline", value: item, ...facts, problem: recordProblem(arg, { name: "The inline file", ...facts }) };
    }
    const id = referenceId(item);
    if (!id) return { kind: "invalid", value: item, problem: `"${shorten(item)}" is not a file reference: choose a file, or give artifact:ID` };
    const state = records[id];
    const itemProblem = state?.kind === "ok" ? recordProblem(arg, state.record) : state?.kind === "failed" ? state.error : null;
    return { kind: "stored", value: item, id, state, problem: itemProblem };
  });
  const problems = [problem, ...items.map((i) => i.problem)].filter((p): p is string => p !== null);
  const pending = items.some((i) => i.kind === "stored" && (i.state === undefined || i.state.kind === "loading"));
  return { items, problems, pending };
}

/** The check of every file argument: per field; `blocked` while anything is wrong or still being
 * looked up (the Call button waits); `missing`: ids to look up. */
export function checkFileArguments(args: FileArgument[], values: Record<string, unknown>, records: Record<string, RecordState>) {
  const fields: Record<string, FieldCheck> = {};
  const missing = new Set<string>();
  for (const arg of args) {
    const check = checkFileField(arg, values[arg.name], records);
    fields[arg.name] = check;
    for (const item of check.items) if (item.kind === "stored" && item.state === undefined) missing.add(item.id);
  }
  const checks = Object.values(fields);
  const pending = checks.some((c) => c.pending);
  const problems = Object.entries(fields).flatMap(([name, c]) => c.problems.map((p) => ({ name, problem: p })));
  return { fields, problems, pending, blocked: pending || problems.length > 0, missing: [...missing] };
}

/** A field's value with `records` added: one file replaces the one there; a list gains those it
 * does not hold yet. `undefined` when empty (the argument is left out). */
export function withFiles(arg: FileArgument, value: unknown, records: Pick<ArtifactRecord, "id">[]): unknown {
  if (records.length === 0) return value;
  if (!arg.multiple) return reference(records[0].id);
  const current = Array.isArray(value) ? value : value === undefined || value === null || value === "" ? [] : [value];
  const held = new Set(current.map((v) => (typeof v === "string" ? referenceId(v) : null)).filter(Boolean));
  const added = records.filter((r, i) => !held.has(r.id) && records.findIndex((o) => o.id === r.id) === i).map((r) => reference(r.id));
  return [...current, ...added];
}

/** A field's value without its `index`-th file. */
export function withoutFile(arg: FileArgument, value: unknown, index: number): unknown {
  if (!arg.multiple || !Array.isArray(value)) return undefined;
  const rest = value.filter((_, i) => i !== index);
  return rest.length > 0 ? rest : undefined;
}

function shorten(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
