import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ExchangeRecord } from "../../wire/ExchangeRecord";
import { answerLine, SamplingLogDialog } from "./SamplingLogDialog";

const user = { role: "user" as const, content: [{ type: "text" as const, text: "Describe Oslo." }] };
const toolUse = { type: "tool_use" as const, id: "call_1", name: "__schema__", input: { name: "Oslo", population: 700000 } };
const structured: ExchangeRecord = {
  id: 2,
  server: "demo",
  atMs: Date.UTC(2026, 10, 25, 9, 30),
  decision: "edited",
  request: { messages: [user], maxTokens: 200, systemPrompt: "Be brief." },
  editedRequest: { messages: [{ role: "user", content: [{ type: "text", text: "Describe Bergen." }] }], maxTokens: 96, systemPrompt: "Be brief." },
  response: { model: "smollm2", stopReason: "toolUse", role: "assistant", content: [toolUse] },
  exchange: {
    request: user,
    response: { role: "assistant", content: [toolUse] },
    messages: [user, { role: "assistant", content: [toolUse] }, { role: "user", content: [{ type: "tool_result", toolUseId: "call_1", content: [{ type: "text", text: "ok" }] }] }],
    parsed: { name: "Oslo", population: 700000 },
  },
  provider: "local",
  model: "smollm2",
  latencyMs: 412,
  usage: { inputTokens: 31, outputTokens: 17 },
  structured: true,
};
const rejected: ExchangeRecord = {
  id: 1,
  server: "demo",
  atMs: Date.UTC(2026, 10, 25, 9, 29),
  decision: "rejected",
  request: { messages: [user], maxTokens: 50 },
  provider: "local",
  model: "",
  latencyMs: 0,
  usage: { inputTokens: 0, outputTokens: 0 },
  structured: false,
  error: "the user rejected the request: not now",
};

const samplingLog = vi.fn();
vi.mock("../../ipc", () => ({
  samplingLog: (server: string) => samplingLog(server),
  errorText: (e: unknown) => String(e),
}));

describe("SamplingLogDialog", () => {
  it("lists a server's exchanges newest first and opens one with its messages, the acknowledgement and what was parsed", async () => {
    samplingLog.mockResolvedValue([structured, rejected]);
    render(<SamplingLogDialog server="demo" onClose={() => undefined} />);
    const entries = await screen.findAllByRole("listitem", { name: (_, el) => el.classList.contains("sampling-log-entry") });
    expect(samplingLog).toHaveBeenCalledWith("demo");
    expect(entries.map((e) => e.getAttribute("data-decision"))).toEqual(["edited", "rejected"]);
    expect(entries[0].textContent).toContain("local/smollm2 · 412 ms · 31→17 tokens");
    expect(entries[1].textContent).toContain("not now");
    await userEvent.click(screen.getByText(/approved, edited/));
    expect(screen.getByText("Messages for history (3)")).toBeTruthy();
    expect(screen.getByText(/user · acknowledgement/)).toBeTruthy();
    expect(screen.getByText(/went to the model changed/)).toBeTruthy();
    expect(entries[0].querySelector(".sampling-log-parsed")?.textContent).toContain('"population": 700000');
  });

  it("says when a server has asked for nothing, and shows a failure to read", async () => {
    samplingLog.mockResolvedValueOnce([]);
    const { unmount } = render(<SamplingLogDialog server="quiet" onClose={() => undefined} />);
    expect(await screen.findByText("quiet has not asked for a completion yet.")).toBeTruthy();
    unmount();
    samplingLog.mockRejectedValueOnce("catalog locked");
    render(<SamplingLogDialog server="demo" onClose={() => undefined} />);
    expect(await screen.findByText("catalog locked")).toBeTruthy();
  });

  it("sums an answer up on one line", () => {
    expect(answerLine(structured)).toBe('__schema__({"name":"Oslo","population":700000})');
    expect(answerLine(rejected)).toBe("the user rejected the request: not now");
  });
});
