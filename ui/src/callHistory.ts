// The calls made from the window in this run, newest first: what was called with which exact
// arguments, how it ended, and when — for Re-run and Copy arguments.
import type { CallOutcome } from "./wire/CallOutcome";
import type { ToolView } from "./wire/ToolView";

/** How many calls are kept. */
export const HISTORY_LIMIT = 50;

/**
 * `ok`: the tool answered; `tool_error`: it answered with an error; `needs_input`: it asked for
 * more; `failed`: the call did not complete (bad arguments, server down, cancelled).
 */
export type CallStatus = "ok" | "tool_error" | "needs_input" | "failed";

export interface CallRecord {
  /** Unique in this run. */
  id: string;
  server: string;
  /** The tool as listed when it was called (Re-run selects it again). */
  tool: ToolView;
  /** The exact argument text that was sent. */
  arguments: string;
  status: CallStatus;
  /** The summary, or the error, in one line. */
  detail: string;
  /** When the call ended (ms since the epoch). */
  at: number;
}

/** How an outcome ended. */
export function statusOf(outcome: CallOutcome): CallStatus {
  if (outcome.error) return "tool_error";
  if (outcome.needs_input) return "needs_input";
  return "ok";
}

export const STATUS_WORDS: Record<CallStatus, string> = {
  ok: "ok",
  tool_error: "tool error",
  needs_input: "needs input",
  failed: "failed",
};

/** The first line of `text`, at most `max` characters. */
export function oneLine(text: string, max = 120): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A record for a call that returned an outcome. */
export function recordOutcome(id: string, server: string, tool: ToolView, args: string, outcome: CallOutcome, at: number): CallRecord {
  const detail = outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : (outcome.needs_input?.message ?? outcome.summary);
  return { id, server, tool, arguments: args, status: statusOf(outcome), detail: oneLine(detail), at };
}

/** A record for a call that failed before the tool answered. */
export function recordFailure(id: string, server: string, tool: ToolView, args: string, error: string, at: number): CallRecord {
  return { id, server, tool, arguments: args, status: "failed", detail: oneLine(error), at };
}

/** `history` with `record` in front, at most `limit` long. */
export function addCall(history: CallRecord[], record: CallRecord, limit = HISTORY_LIMIT): CallRecord[] {
  return [record, ...history].slice(0, Math.max(0, limit));
}

/** The arguments as pretty JSON when they are JSON, else as they were typed. */
export function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** `14:03:27` in the user's locale format. */
export function timeOfDay(at: number): string {
  return new Date(at).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
