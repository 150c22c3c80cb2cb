import { describe, expect, it } from "vitest";
import type { TeamLogEntry } from "../wire/TeamLogEntry";
import { auditMembers, auditServers, auditTools, DEFAULT_AUDIT_FILTERS, isFailure, toAuditQuery, whatText } from "./teamAudit";

const sources = [
  { member: "bo", server: "demo", tool: "summarize_numbers" },
  { member: "ada", server: "demo", tool: "render_chart" },
  { member: "ada", server: "reports", tool: "render" },
  { member: "ada", server: "demo", tool: null },
];

const call = (uid: string, outcome = "ok"): TeamLogEntry => ({
  kind: "call",
  uid,
  member: "ada",
  server: "demo",
  tool: "render_chart",
  outcome,
  at_ms: 1,
  artifact_ids: [],
  call: null,
  exchange: null,
});

describe("the team's audit view", () => {
  it("asks for what the filters say, from when they say", () => {
    expect(toAuditQuery(DEFAULT_AUDIT_FILTERS, 0, 10_000_000)).toEqual({ kind: null, member: null, server: null, tool: null, outcome: null, since_ms: null, until_ms: null, limit: 100, offset: 0 });
    const q = toAuditQuery({ ...DEFAULT_AUDIT_FILTERS, member: "ada", since: "hour", tool: "render_chart" }, 100, 10_000_000);
    expect([q.member, q.since_ms, q.tool, q.offset]).toEqual(["ada", 10_000_000 - 3_600_000, "render_chart", 100]);
    // Sampling exchanges have no tool.
    expect(toAuditQuery({ ...DEFAULT_AUDIT_FILTERS, kind: "sampling", tool: "render_chart" }, 0, 1).tool).toBeNull();
  });

  it("offers the members, servers and tools of the rows, narrowed by what is chosen", () => {
    expect(auditMembers(sources)).toEqual(["ada", "bo"]);
    expect(auditServers(sources, null)).toEqual(["demo", "reports"]);
    expect(auditServers(sources, "bo")).toEqual(["demo"]);
    expect(auditTools(sources, "ada", "demo")).toEqual(["render_chart"]);
    expect(auditTools(sources, null, null)).toEqual(["render", "render_chart", "summarize_numbers"]);
  });

  it("says what each row was and whether it failed", () => {
    expect(whatText(call("a"))).toBe("demo / render_chart");
    expect(whatText({ ...call("s", "automatic"), kind: "sampling", tool: null })).toBe("demo · sampling");
    expect(isFailure(call("a"))).toBe(false);
    expect(isFailure(call("b", "tool_error"))).toBe(true);
    expect(isFailure({ ...call("s", "rejected"), kind: "sampling" })).toBe(true);
  });
});
