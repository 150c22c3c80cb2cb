import { beforeEach, describe, expect, it, vi } from "vitest";

const ipc = vi.hoisted(() => ({
  listServers: vi.fn(),
  listTools: vi.fn(),
}));
vi.mock("./ipc", () => ipc);

import { beginStartup, takeServers, takeTools } from "./startup";

const servers = [{ name: "demo" }, { name: "broken" }];

describe("start-up requests", () => {
  beforeEach(() => {
    ipc.listServers.mockReset().mockResolvedValue(servers);
    ipc.listTools.mockReset().mockImplementation((name: string) => (name === "broken" ? Promise.reject(new Error("no start")) : Promise.resolve([{ name: `${name}-tool` }])));
  });

  it("asks for the servers and each server's tools once, and hands each answer over once", async () => {
    beginStartup();
    const list = await takeServers();
    expect(list).toEqual(servers);
    expect(ipc.listServers).toHaveBeenCalledTimes(1);
    expect(ipc.listTools.mock.calls.map((c) => c[0])).toEqual(["demo", "broken"]);

    await expect(takeTools("demo")).resolves.toEqual([{ name: "demo-tool" }]);
    await expect(takeTools("broken")).rejects.toThrow("no start");
    expect(ipc.listTools).toHaveBeenCalledTimes(2);

    // Taken once: asking again lists afresh.
    await takeServers();
    await takeTools("demo");
    expect(ipc.listServers).toHaveBeenCalledTimes(2);
    expect(ipc.listTools).toHaveBeenCalledTimes(3);
  });

  it("without a start, every take is an ordinary request", async () => {
    await takeServers();
    await takeTools("demo");
    expect(ipc.listServers).toHaveBeenCalledTimes(1);
    expect(ipc.listTools).toHaveBeenCalledTimes(1);
  });
});
