import { describe, expect, it } from "vitest";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { SearchHit } from "../wire/SearchHit";
import {
  groupHits,
  hasText,
  memberText,
  moveSelection,
  newestOnly,
  NO_FILTERS,
  openAction,
  pendingText,
  placeText,
  searchScope,
  shownOrder,
  sinceFor,
  toSearchQuery,
} from "./searchState";

const record = (id: string, mime = "application/pdf"): ArtifactRecord => ({
  id,
  sha256: "00",
  name: `${id}.pdf`,
  mime,
  size: 10,
  server: "demo",
  tool: "report",
  call_id: "call-1",
  session_id: "s",
  created_at_ms: 0,
  last_used_at_ms: 0,
  persistence: "session",
  description: null,
});

const hit = (id: string, place: SearchHit["place"], position: number, mime?: string, member: string | null = null): SearchHit => ({
  artifact: record(id, mime),
  place,
  position,
  snippet: [],
  member,
});

const DAY = 86_400_000;

describe("the query", () => {
  it("sends the text exactly as typed (a trailing space ends the prefix) with the filters", () => {
    const now = Date.UTC(2026, 10, 27, 15, 0);
    expect(toSearchQuery('"net revenue" acme ', { family: "pdf", server: "demo", tool: "report", date: "week", member: null }, now)).toEqual({
      text: '"net revenue" acme ',
      session: null,
      server: "demo",
      tool: "report",
      family: "pdf",
      since_ms: now - 7 * DAY,
      until_ms: null,
      name_contains: null,
      pinned_only: false,
      member: null,
      shared_with_model: false,
      limit: 60,
    });
    expect(toSearchQuery("acme", NO_FILTERS, now)).toMatchObject({ server: null, tool: null, family: null, since_ms: null, member: null });
  });

  it("sends the member filter to the team's search only", () => {
    const filters = { ...NO_FILTERS, member: "bo", server: "demo" };
    expect(toSearchQuery("acme", filters, 0, "team")).toMatchObject({ text: "acme", member: "bo", server: "demo", limit: 60 });
    expect(toSearchQuery("acme", filters, 0, "local")).toMatchObject({ text: "acme", member: null, server: "demo" });
    expect(toSearchQuery("acme", filters, 0)).toMatchObject({ member: null });
  });

  it("turns the date choice into a start: midnight today (local), or days back", () => {
    const now = new Date(2026, 10, 27, 15, 30).getTime();
    expect(sinceFor("any", now)).toBeNull();
    expect(sinceFor("today", now)).toBe(new Date(2026, 10, 27).getTime());
    expect(sinceFor("week", now)).toBe(now - 7 * DAY);
    expect(sinceFor("month", now)).toBe(now - 30 * DAY);
  });

  it("has nothing to search for in blank text", () => {
    expect(hasText("")).toBe(false);
    expect(hasText("  \t")).toBe(false);
    expect(hasText(" a")).toBe(true);
  });
});

describe("the scope", () => {
  it("is the team only while there is a team store (or its status is still being asked for)", () => {
    const status = { member: "ada" };
    expect(searchScope("team", status)).toBe("team");
    expect(searchScope("team", undefined)).toBe("team");
    expect(searchScope("team", null)).toBe("local");
    expect(searchScope("local", status)).toBe("local");
    expect(searchScope("local", undefined)).toBe("local");
  });

  it("names who stored a team hit, mine with (you), and nobody for this machine's", () => {
    expect(memberText("bo", "ada")).toBe("bo");
    expect(memberText("ada", "ada")).toBe("ada (you)");
    expect(memberText("ada", null)).toBe("ada");
    expect(memberText(null, "ada")).toBeNull();
  });
});

describe("newestOnly", () => {
  it("lets only the newest request's answer through", () => {
    const requests = newestOnly();
    const first = requests.next();
    const second = requests.next();
    expect(requests.isNewest(first)).toBe(false);
    expect(requests.isNewest(second)).toBe(true);
    requests.drop();
    expect(requests.isNewest(second)).toBe(false);
  });
});

describe("groupHits", () => {
  it("puts each artifact's hits under it, artifacts in the order of their best hit, and numbers the hits as shown", () => {
    const hits = [hit("a", "page", 3), hit("b", "name", 0), hit("a", "page", 12), hit("c", "line", 7), hit("b", "call", 0)];
    const groups = groupHits(hits);
    expect(groups.map((g) => g.artifact.id)).toEqual(["a", "b", "c"]);
    expect(groups.map((g) => g.hits.map((h) => [h.hit.place, h.hit.position, h.index]))).toEqual([
      [["page", 3, 0], ["page", 12, 1]],
      [["name", 0, 2], ["call", 0, 3]],
      [["line", 7, 4]],
    ]);
    expect(shownOrder(groups).map((h) => `${h.artifact.id}:${h.position}`)).toEqual(["a:3", "a:12", "b:0", "b:0", "c:7"]);
    expect(groupHits([])).toEqual([]);
  });

  it("keeps who stored each file (team hits), null for this machine's", () => {
    const groups = groupHits([hit("a", "page", 1, undefined, "bo"), hit("a", "page", 2, undefined, "bo"), hit("b", "name", 0, undefined, "ada"), hit("c", "line", 1)]);
    expect(groups.map((g) => [g.artifact.id, g.member])).toEqual([
      ["a", "bo"],
      ["b", "ada"],
      ["c", null],
    ]);
  });
});

describe("moveSelection", () => {
  it("steps and stops at the ends", () => {
    expect(moveSelection(0, 1, 3)).toBe(1);
    expect(moveSelection(2, 1, 3)).toBe(2);
    expect(moveSelection(0, -1, 3)).toBe(0);
    expect(moveSelection(5, -1, 0)).toBe(0);
  });
});

describe("a hit's place", () => {
  it("says where, in words", () => {
    expect(placeText(hit("a", "page", 12))).toBe("page 12");
    expect(placeText(hit("a", "row", 340, "text/csv"))).toBe("row 340");
    expect(placeText(hit("a", "row", 0, "text/csv"))).toBe("header");
    expect(placeText(hit("a", "line", 7, "text/plain"))).toBe("line 7");
    expect(placeText(hit("a", "line", 2, "text/html; charset=utf-8"))).toBe("text block 2");
    expect(placeText(hit("a", "line", 2, "image/svg+xml"))).toBe("text block 2");
    expect(placeText(hit("a", "name", 0))).toBe("name");
    expect(placeText(hit("a", "call", 0))).toBe("call");
  });

  it("opens pages, rows and lines at the hit, names and calls as the file", () => {
    expect(openAction(hit("a", "page", 12))).toEqual({ kind: "open_at", place: "page", position: 12 });
    expect(openAction(hit("a", "row", 0))).toEqual({ kind: "open_at", place: "row", position: 0 });
    expect(openAction(hit("a", "line", 7))).toEqual({ kind: "open_at", place: "line", position: 7 });
    expect(openAction(hit("a", "name", 0))).toEqual({ kind: "open" });
    expect(openAction(hit("a", "call", 0))).toEqual({ kind: "open" });
  });
});

describe("pendingText", () => {
  it("says how many files are not searchable yet, and nothing when all are", () => {
    expect(pendingText(0)).toBeNull();
    expect(pendingText(1)).toBe("1 file still being indexed");
    expect(pendingText(12)).toBe("12 files still being indexed");
  });
});
