import { describe, expect, it } from "vitest";
import { merged, prettyText } from "./ProtocolView";
import type { ProtocolEntry } from "../wire/ProtocolEntry";

const entry = (seq: number, text = "{}", cut = false): ProtocolEntry => ({
  seq,
  at_ms: 0,
  direction: "sent",
  kind: "request",
  method: "ping",
  id: String(seq),
  call: String(seq),
  bytes: 10,
  latency_ms: null,
  text,
  runs: 0,
  cut,
});

describe("protocol view", () => {
  it("holds at most the bound, dropping the oldest", () => {
    const held = [entry(1), entry(2), entry(3)];
    expect(merged(held, [entry(4), entry(5)], 4).map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    // Two polls that overlapped: what is held already is not added again.
    expect(merged(held, [entry(3), entry(4)]).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it("pretty-prints whole JSON and leaves a cut text as it is", () => {
    expect(prettyText(entry(1, '{"a":1}'))).toBe('{\n  "a": 1\n}');
    expect(prettyText(entry(1, '{"a":"xx… [cut: 10 bytes more]', true))).toBe('{"a":"xx… [cut: 10 bytes more]');
  });
});
