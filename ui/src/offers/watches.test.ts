import { describe, expect, it } from "vitest";
import { artifactTab, resourceReadOf } from "../test/canvas";
import { current, heard, noteRead, setWatch, tabWatch } from "./watches";

describe("watch states", () => {
  it("keeps the latest event per server and URI, and forgets an ended watch", () => {
    setWatch("demo", "demo://notes/scratch", "watching");
    expect(heard({ server: "demo", uri: "demo://notes/scratch", state: "updated", reads: 1, detail: null, read_id: "read-2" })).toBeNull();
    const note = heard({ server: "demo", uri: "demo://notes/scratch", state: "ended", reads: 1, detail: "the server exited", read_id: null });
    expect(note).toBe("Stopped watching demo://notes/scratch: the server exited");
  });

  it("does not bring back a watch the user stopped when a late re-read arrives", () => {
    setWatch("demo", "demo://x", "watching");
    setWatch("demo", "demo://x", null);
    expect(heard({ server: "demo", uri: "demo://x", state: "updated", reads: 2, detail: null, read_id: "read-3" })).toBeNull();
    expect(current("demo", "demo://x")).toBeUndefined();
  });
});

describe("which canvas tab shows a watched resource", () => {
  it("is the tab of the window's read, then the tabs of the re-reads its events name, until unwatched", () => {
    const uri = "demo://notes/scratch";
    setWatch("Demo Server", uri, "starting");
    noteRead(resourceReadOf("Demo Server", uri, "read-1", "demo-server_aaa", "scratch.ogg"));
    const first = artifactTab(1, "demo-server_aaa", "scratch.ogg", "read-1");
    expect(tabWatch(first)).toEqual({ server: "Demo Server", uri });
    // A re-read (done in Rust) opened a tab with new bytes: not known until its event names it.
    const reread = artifactTab(2, "demo-server_bbb", "scratch.ogg", "read-2");
    expect(tabWatch(reread)).toBeNull();
    expect(heard({ server: "Demo Server", uri, state: "updated", reads: 1, detail: null, read_id: "read-2" })).toBeNull();
    expect(tabWatch(reread)).toEqual({ server: "Demo Server", uri });
    // A failed re-read names no read.
    expect(heard({ server: "Demo Server", uri, state: "failed", reads: 2, detail: "gone", read_id: null })).toBeNull();
    expect(tabWatch(reread)).toEqual({ server: "Demo Server", uri });
    // A tool call's tab with the same file name is not that resource.
    expect(tabWatch(artifactTab(4, "demo-server_ccc", "scratch.ogg", "call-4"))).toBeNull();
    setWatch("Demo Server", uri, null);
    expect(tabWatch(first)).toBeNull();
    expect(tabWatch(reread)).toBeNull();
  });

  it("does not mark another resource of the same server that yields the same file name", () => {
    const uri = "demo://notes/scratch";
    setWatch("demo", uri, "watching");
    noteRead(resourceReadOf("demo", uri, "read-10", "demo_aaa", "scratch.ogg"));
    expect(heard({ server: "demo", uri, state: "updated", reads: 1, detail: null, read_id: "read-11" })).toBeNull();
    // The user opened another resource of the server, whose file is also scratch.ogg.
    const other = resourceReadOf("demo", "demo://archive/scratch", "read-12", "demo_bbb", "scratch.ogg");
    noteRead(other);
    expect(tabWatch(artifactTab(12, "demo_bbb", "scratch.ogg", "read-12"))).toBeNull();
    expect(tabWatch(artifactTab(11, "demo_ccc", "scratch.ogg", "read-11"))).toEqual({ server: "demo", uri });
    setWatch("demo", uri, null);
  });

  it("ignores reads of resources that are not watched", () => {
    noteRead(resourceReadOf("demo", "demo://other", "read-9", "demo_999", "other.ogg"));
    expect(tabWatch(artifactTab(9, "demo_999", "other.ogg", "read-9"))).toBeNull();
  });
});
