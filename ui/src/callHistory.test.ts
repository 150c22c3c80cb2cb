import { describe, expect, it } from "vitest";
import { addCall, HISTORY_LIMIT, oneLine, prettyArguments, recordFailure, recordOutcome, statusOf, type CallRecord } from "./callHistory";
import type { CallOutcome } from "./wire/CallOutcome";
import type { ToolView } from "./wire/ToolView";

const tool: ToolView = { name: "render_chart", title: null, description: null, input_schema: {}, read_only: true, destructive: null, ui: null, file_arguments: [] };

function outcome(extra: Partial<CallOutcome> = {}): CallOutcome {
  return { call_id: "call_1", server: "demo", tool: "render_chart", summary: "Weekly signups: 6 bars.\nStored PNG image.", needs_input: null, error: null, ...extra } as CallOutcome;
}

const record = (id: string): CallRecord => recordFailure(id, "demo", tool, "{}", "boom", 0);

describe("call history", () => {
  it("keeps the newest first and at most the limit", () => {
    let history: CallRecord[] = [];
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) history = addCall(history, record(`c${i}`));
    expect(history).toHaveLength(HISTORY_LIMIT);
    expect(history[0].id).toBe(`c${HISTORY_LIMIT + 4}`);
    expect(history.at(-1)!.id).toBe("c5");
    expect(addCall([record("a")], record("b"), 1).map((r) => r.id)).toEqual(["b"]);
  });
  it("records the exact arguments and how the call ended", () => {
    const ok = recordOutcome("call_1", "demo", tool, '{"values":[1,2]}', outcome(), 1000);
    expect(ok).toMatchObject({ server: "demo", arguments: '{"values":[1,2]}', status: "ok", detail: "Weekly signups: 6 bars.", at: 1000 });
    const toolError = outcome({ error: { code: "NOT_FOUND", message: "no such chart", retryable: null, details: null } });
    expect(statusOf(toolError)).toBe("tool_error");
    expect(recordOutcome("call_2", "demo", tool, "{}", toolError, 0).detail).toBe("NOT_FOUND: no such chart");
    const needsInput = outcome({ needs_input: { message: "Which query?", reason: null, options: [], suggestions: {} } as unknown as CallOutcome["needs_input"] });
    expect(statusOf(needsInput)).toBe("needs_input");
    expect(recordFailure("t", "demo", tool, "{oops", "not valid JSON", 0)).toMatchObject({ status: "failed", arguments: "{oops" });
  });
  it("keeps file arguments as the references that were sent (a re-run sends the same files)", () => {
    const sent = '{\n  "files": [\n    "artifact:demo_1f0c2b7e9a41",\n    "artifact:demo_2a0c2b7e9a42"\n  ]\n}';
    const call = recordOutcome("call_3", "demo", { ...tool, name: "compare_files" }, sent, outcome(), 0);
    expect(call.arguments).toBe(sent);
    expect(JSON.parse(prettyArguments(call.arguments))).toEqual({ files: ["artifact:demo_1f0c2b7e9a41", "artifact:demo_2a0c2b7e9a42"] });
  });
  it("shows JSON arguments indented and anything else as typed", () => {
    expect(prettyArguments('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyArguments("{oops")).toBe("{oops");
  });
  it("cuts details to one short line", () => {
    expect(oneLine("first\nsecond")).toBe("first");
    expect(oneLine("x".repeat(200), 10)).toBe(`${"x".repeat(9)}…`);
  });
});
