import type { CallOutcome } from "../wire/CallOutcome";
import type { ToolOutcome } from "../wire/ToolOutcome";

/** A resource or prompt read as the outcome view shows a call (they carry the same outcome). */
export function readAsOutcome(callId: string, server: string, tool: string, read: ToolOutcome): CallOutcome {
  return { ...read, call_id: callId, server, tool };
}
