import { describe, expect, it } from "vitest";
import { artifactTab, resourceReadOf } from "../test/canvas";
import { artifactNamespace, current, heard, noteRead, setWatch, tabWatch } from "./watches";

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

describe("which canvas tab shows a watched resource", () => {
  it("is the tab of the window's read, then the re-reads' tabs of that server and file, until unwatched", () => {
    const uri = "demo://notes/scratch";
    setWatch("Demo Server", uri, "starting");
    noteRead(resourceReadOf("Demo Server", uri, "read-1", "demo-server_aaa", "scratch.ogg"));
    const first = artifactTab(1, "demo-server_aaa", "scratch.ogg", "read-1");
    expect(tabWatch(first)).toEqual({ server: "Demo Server", uri });
    // A re-read (done in Rust): new read id and bytes, same server and file name.
    expect(tabWatch(artifactTab(2, "demo-server_bbb", "scratch.ogg", "read-2"))).toEqual({ server: "Demo Server", uri });
    // The same file name from another server, or from a tool call, is not that resource.
    expect(tabWatch(artifactTab(3, "other_bbb", "scratch.ogg", "read-3"))).toBeNull();
    expect(tabWatch(artifactTab(4, "demo-server_ccc", "scratch.ogg", "call-4"))).toBeNull();
    setWatch("Demo Server", uri, null);
    expect(tabWatch(first)).toBeNull();
  });

  it("ignores reads of resources that are not watched", () => {
    noteRead(resourceReadOf("demo", "demo://other", "read-9", "demo_999", "other.ogg"));
    expect(tabWatch(artifactTab(9, "demo_999", "other.ogg", "read-9"))).toBeNull();
  });

  it("names artifact namespaces as the store does", () => {
    expect(artifactNamespace("Demo Server")).toBe("demo-server");
    expect(artifactNamespace("")).toBe("artifact");
    expect(artifactNamespace("a-very-long-server-name-indeed-yes")).toBe("a-very-long-server-name-");
    expect(artifactNamespace("\u212Aelvin")).toBe("-elvin");
  });
});
