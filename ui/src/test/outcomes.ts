import type { CallOutcome } from "../wire/CallOutcome";

/** A call's outcome with nothing in it but a summary, for component tests to fill in. */
export function emptyOutcome(tool: string, summary: string): CallOutcome {
  return {
    call_id: "call-1",
    server: "demo",
    tool,
    summary,
    results: null,
    texts: [],
    artifacts: [],
    display: { open_canvas: false, primary: null, mode: "replace", viewer: null },
    dashboard: null,
    needs_input: null,
    error: null,
    kind: null,
    warnings: [],
    meta: null,
  };
}
