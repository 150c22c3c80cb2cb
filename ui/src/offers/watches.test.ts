import { describe, expect, it } from "vitest";
import { heard, setWatch } from "./watches";

describe("watch states", () => {
  it("keeps the latest event per server and URI, and forgets an ended watch", () => {
    setWatch("demo", "demo://notes/scratch", "watching");
    expect(heard({ server: "demo", uri: "demo://notes/scratch", state: "updated", reads: 1, detail: null })).toBeNull();
    const note = heard({ server: "demo", uri: "demo://notes/scratch", state: "ended", reads: 1, detail: "the server exited" });
    expect(note).toBe("Stopped watching demo://notes/scratch: the server exited");
  });
});
