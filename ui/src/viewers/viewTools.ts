/** A tool an App's view exposes (ext-apps: the View answers the host's `tools/list`). */
export interface ViewTool {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: Record<string, unknown>;
}

/** At most this many of a view's tools are shown (a view is not trusted to be small). */
export const MAX_VIEW_TOOLS = 100;
/** A title longer than this is cut (a view could send anything). */
const MAX_LABEL = 200;
/** A tool whose name is longer than this is not offered (its name is what the view is called with). */
const MAX_NAME = 200;
/** A description longer than this is cut. */
const MAX_DESCRIPTION = 2000;

const text = (value: unknown, max: number): string | null => (typeof value === "string" && value.trim() !== "" ? value.slice(0, max) : null);

/**
 * The tools in a view's `tools/list` answer, as the bar shows them: only entries with a string
 * name of at most 200 characters, each name once, at most {@link MAX_VIEW_TOOLS}; an input schema that is not an object
 * schema becomes the empty one (the form then offers no fields, and the view decides).
 */
export function readViewTools(answer: unknown): ViewTool[] {
  const listed = answer && typeof answer === "object" ? (answer as { tools?: unknown }).tools : undefined;
  if (!Array.isArray(listed)) return [];
  const seen = new Set<string>();
  const tools: ViewTool[] = [];
  for (const item of listed) {
    if (tools.length >= MAX_VIEW_TOOLS) break;
    if (!item || typeof item !== "object") continue;
    const entry = item as Record<string, unknown>;
    // A name is called as it is: one too long to show whole is left out, never cut.
    const name = typeof entry.name === "string" && entry.name.length <= MAX_NAME ? text(entry.name, MAX_NAME) : null;
    if (name === null || seen.has(name)) continue;
    seen.add(name);
    const schema = entry.inputSchema;
    const inputSchema = schema && typeof schema === "object" && !Array.isArray(schema) && (schema as { type?: unknown }).type === "object" ? (schema as Record<string, unknown>) : { type: "object" };
    tools.push({ name, title: text(entry.title, MAX_LABEL), description: text(entry.description, MAX_DESCRIPTION), inputSchema });
  }
  return tools;
}
