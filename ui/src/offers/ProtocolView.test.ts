import { describe, expect, it } from "vitest";
import { catchUp, merged, prettyText } from "./ProtocolView";
import type { ProtocolEntry } from "../wire/ProtocolEntry";
import type { ProtocolPage } from "../wire/ProtocolPage";

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

/** A server's log as the host pages it (crates/client/src/trace.rs `ProtocolLog::page`): the
 * oldest `limit` after `after`, bounded at `bound` entries, the oldest dropped. */
class FakeLog {
  kept: ProtocolEntry[] = [];
  next = 1;
  dropped = 0;
  asked: number[] = [];
  constructor(private bound = 5000) {}
  record(n: number) {
    for (let i = 0; i < n; i++) this.kept.push(entry(this.next++));
    while (this.kept.length > this.bound) {
      this.kept.shift();
      this.dropped++;
    }
  }
  page = async (after: number, limit = 500): Promise<ProtocolPage> => {
    this.asked.push(after);
    const start = this.kept.findIndex((e) => e.seq > after);
    const rest = start < 0 ? [] : this.kept.slice(start);
    const entries = rest.slice(0, limit);
    const full = entries.length === limit;
    const lastSeq = this.next - 1;
    return {
      server: "demo",
      entries,
      through_seq: full ? entries[entries.length - 1].seq : Math.max(after, lastSeq),
      more: full && rest.length > limit,
      last_seq: lastSeq,
      dropped: this.dropped,
      missed: Math.max(0, this.dropped - after),
      kept: this.kept.length,
    };
  };
}

describe("protocol view catch-up", () => {
  it("reads a burst larger than a page whole and in order, asking on from where each page ended", async () => {
    const log = new FakeLog();
    log.record(3);
    const first = await catchUp(log.page, 0);
    expect(first.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(first.through).toBe(3);
    // 1,200 between two polls: three pages in one poll.
    log.record(1200);
    log.asked = [];
    const burst = await catchUp(log.page, first.through);
    expect(burst.entries.map((e) => e.seq)).toEqual(Array.from({ length: 1200 }, (_, i) => i + 4));
    expect(log.asked).toEqual([3, 503, 1003]);
    expect(burst).toMatchObject({ through: 1203, more: false, missed: 0 });
    // What the view holds is then every message, none twice.
    const held = merged(first.entries, burst.entries, 5000);
    expect(held.map((e) => e.seq)).toEqual(Array.from({ length: 1203 }, (_, i) => i + 1));
  });

  it("stops after its page budget and the next poll goes on from there", async () => {
    const log = new FakeLog();
    log.record(1200);
    const one = await catchUp(log.page, 0, 2);
    expect(one.entries.length).toBe(1000);
    expect(one).toMatchObject({ through: 1000, more: true });
    const two = await catchUp(log.page, one.through, 2);
    expect(two.entries.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1001));
    expect(two.more).toBe(false);
    // Stopped from outside (the view closed): nothing more is asked.
    log.asked = [];
    await catchUp(log.page, 0, 20, () => true);
    expect(log.asked).toEqual([]);
  });

  it("says how many the log dropped before the view read them, and not the history a first read starts after", async () => {
    const log = new FakeLog(1000);
    log.record(1500);
    const first = await catchUp(log.page, 0);
    expect(first.entries[0].seq).toBe(501);
    expect(first).toMatchObject({ dropped: 500, missed: 0 });
    log.record(1300);
    const next = await catchUp(log.page, first.through);
    expect(next).toMatchObject({ dropped: 1800, missed: 300, through: 2800 });
    expect(next.entries[0].seq).toBe(1801);
  });
});
