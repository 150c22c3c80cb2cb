// The tool search box: which tools match what the user typed.
import type { ToolView } from "./wire/ToolView";

/** The words of a query, lower-cased (blank → none, which matches everything). */
export function searchTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Whether every word of the query occurs in the tool's name, title or description (any case). */
export function toolMatches(tool: Pick<ToolView, "name" | "title" | "description">, terms: string[]): boolean {
  if (terms.length === 0) return true;
  const haystack = [tool.name, tool.title ?? "", tool.description ?? ""].join("\n").toLowerCase();
  return terms.every((term) => haystack.includes(term));
}

/** The tools matching `query`, in their order. */
export function filterTools<T extends Pick<ToolView, "name" | "title" | "description">>(tools: T[], query: string): T[] {
  const terms = searchTerms(query);
  return terms.length === 0 ? tools : tools.filter((tool) => toolMatches(tool, terms));
}
