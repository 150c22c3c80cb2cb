// The words of the proxy's confirmation dialog, apart from React so they can be unit-tested.
import type { ConfirmPrompt } from "../wire/ConfirmPrompt";

/** "<Who> wants to run <tool> of <server>", starting with a capital letter. */
export function confirmHeadline(prompt: ConfirmPrompt): string {
  const who = prompt.on_behalf_of.trim() || "Another program";
  const Who = `${who.charAt(0).toUpperCase()}${who.slice(1)}`;
  // An App's `ui/download-file`: files to keep, not a tool to run.
  if (prompt.tool === "ui/download-file") {
    const files = Array.isArray(prompt.arguments.files) ? (prompt.arguments.files as Array<{ name?: string }>) : [];
    const names = files.map((f) => f.name || "(unnamed)").join(", ");
    return `${Who} wants to save ${files.length === 1 ? "a file" : `${files.length} files`} in MCP Canvas: ${names}`;
  }
  return `${Who} wants to run ${prompt.tool} of ${prompt.server}`;
}

/** The exact arguments, pretty-printed; says so when there are none. */
export function prettyArguments(args: Record<string, unknown>): string {
  return Object.keys(args).length === 0 ? "(no arguments)" : JSON.stringify(args, null, 2);
}
