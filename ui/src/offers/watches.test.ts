import { describe, expect, it } from "vitest";
import { current, heard, setWatch } from "./watches";

describe("watch states", () => {
  it("keeps the latest event per server and URI, and forgets an ended watch", () => {
    setWatch("demo", "demo://notes/scratch", "watching");
    expect(heard({ server: "demo", uri: "demo://notes/scratch", state: "updated", reads: 1, detail: null })).toBeNull();
    const note = heard({ server: "demo", uri: "demo://notes/scratch", state: "ended", reads: 1, detail: "the server exited" });
    expect(note).toBe("Stopped watching demo://notes/scratch: the server exited");
  });

  it("does not bring back a watch the user stopped when a late re-read arrives", () => {
    setWatch("demo", "demo://x", "watching");
    setWatch("demo", "demo://x", null);
    expect(heard({ server: "demo", uri: "demo://x", state: "updated", reads: 2, detail: null })).toBeNull();
    expect(current("demo", "demo://x")).toBeUndefined();
  });
});
