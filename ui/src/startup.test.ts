import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ServerChangedEvent } from "./wire/ServerChangedEvent";

const ipc = vi.hoisted(() => ({
  listServers: vi.fn(),
  listTools: vi.fn(),
  onServerChanged: vi.fn(),
}));
vi.mock("./ipc", () => ipc);

const servers = [{ name: "demo" }, { name: "broken" }];
let announce: (change: ServerChangedEvent) => void = () => undefined;
const stop = vi.fn();

/** A fresh copy of the module (its state is per page load). */
async function startup() {
  vi.resetModules();
  return await import("./startup");
}

describe("start-up requests", () => {
  beforeEach(() => {
    ipc.listServers.mockReset().mockResolvedValue(servers);
    ipc.listTools.mockReset().mockImplementation((name: string) => (name === "broken" ? Promise.reject(new Error("no start")) : Promise.resolve([{ name: `${name}-tool` }])));
    stop.mockReset();
    ipc.onServerChanged.mockReset().mockImplementation((callback: (change: ServerChangedEvent) => void) => {
      announce = callback;
      return stop;
    });
  });

  it("asks for the servers and each server's tools once, and hands each answer over once", async () => {
    const { beginStartup, takeServers, takeTools } = await startup();
    beginStartup();
    const list = await takeServers();
    expect(list).toEqual(servers);
    expect(ipc.listServers).toHaveBeenCalledTimes(1);
    expect(ipc.listTools.mock.calls.map((c) => c[0])).toEqual(["demo", "broken"]);

    await expect(takeTools("demo")).resolves.toEqual([{ name: "demo-tool" }]);
    await expect(takeTools("broken")).rejects.toThrow("no start");
    expect(ipc.listTools).toHaveBeenCalledTimes(2);
    // Everything taken: no more listening.
    expect(stop).toHaveBeenCalledTimes(1);

    // Taken once: asking again lists afresh.
    await takeServers();
    await takeTools("demo");
    expect(ipc.listServers).toHaveBeenCalledTimes(2);
    expect(ipc.listTools).toHaveBeenCalledTimes(3);
  });

  it("lists a server afresh when it said its tools changed before its list was taken", async () => {
    const { beginStartup, takeServers, takeTools } = await startup();
    beginStartup();
    await takeServers();
    announce({ server: "demo", list: "tools" } as ServerChangedEvent);
    announce({ server: "broken", list: "prompts" } as ServerChangedEvent);
    ipc.listTools.mockResolvedValueOnce([{ name: "new-tool" }]);
    await expect(takeTools("demo")).resolves.toEqual([{ name: "new-tool" }]);
    expect(ipc.listTools).toHaveBeenCalledTimes(3);
    // Another list changing is not the tools.
    await expect(takeTools("broken")).rejects.toThrow("no start");
    expect(ipc.listTools).toHaveBeenCalledTimes(3);
  });

  it("without a start, every take is an ordinary request", async () => {
    const { takeServers, takeTools } = await startup();
    await takeServers();
    await takeTools("demo");
    expect(ipc.listServers).toHaveBeenCalledTimes(1);
    expect(ipc.listTools).toHaveBeenCalledTimes(1);
    expect(ipc.onServerChanged).not.toHaveBeenCalled();
  });
});
