import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Approval } from "../../wire/Approval";
import type { Review } from "../../wire/Review";
import type { SamplingPrompt } from "../../wire/SamplingPrompt";
import type { SamplingReviewPrompt } from "../../wire/SamplingReviewPrompt";
import { SamplingDialog } from "./SamplingDialog";
import { SamplingReviewDialog } from "./SamplingReviewDialog";

const prompt: SamplingPrompt = {
  id: "s1",
  server: "demo",
  provider: "local",
  model: "smollm2",
  models: ["smollm2", "bigger"],
  structured: false,
  notes: ["maxTokens 500 capped to 96 by policy"],
  review: false,
  request: {
    systemPrompt: "You are a concise assistant.",
    maxTokens: 96,
    messages: [
      { role: "user", content: [{ type: "text", text: "Weather in Oslo?" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] },
      { role: "assistant", content: { type: "tool_use", id: "c1", name: "get_weather", input: { city: "Oslo" } } },
      { role: "user", content: { type: "tool_result", toolUseId: "c1", content: [{ type: "text", text: "3 °C" }] } },
      { role: "user", content: { type: "text", text: "Summarize." } },
    ],
    tools: [{ name: "get_weather", description: "Weather by city", inputSchema: { type: "object" } }],
    toolChoice: { mode: "auto" },
    stopSequences: [],
  },
};

function renderDialog() {
  const onAnswer = vi.fn<(a: Approval) => Promise<void>>().mockResolvedValue(undefined);
  const user = userEvent.setup();
  render(<SamplingDialog prompt={prompt} onAnswer={onAnswer} />);
  return { user, onAnswer };
}

describe("SamplingDialog", () => {
  it("shows everything the server sends: system prompt, every block kind, tools, caps", () => {
    renderDialog();
    const dialog = screen.getByRole("dialog", { name: "demo asks for an LLM completion" });
    const text = dialog.textContent ?? "";
    for (const part of ["You are a concise assistant.", "Weather in Oslo?", "calls get_weather", '"city": "Oslo"', "tool result · c1", "3 °C", "Summarize.", "get_weather (choice: auto)", "capped to 96"]) {
      expect(text).toContain(part);
    }
    expect(dialog.querySelector("img.sampling-image")?.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
  });

  it("approves unchanged without sending a request, or with another model and review", async () => {
    const { user, onAnswer } = renderDialog();
    await user.click(screen.getByRole("button", { name: "Approve" }));
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "approve", review: false });
  });

  it("sends the edited prompt, keeping the other blocks and messages", async () => {
    const { user, onAnswer } = renderDialog();
    await user.selectOptions(screen.getByRole("combobox"), "bigger");
    await user.click(screen.getByRole("checkbox", { name: /Review the answer/ }));
    await user.click(screen.getByRole("button", { name: "Edit" }));
    const promptBox = screen.getByRole("textbox", { name: "Prompt" });
    await user.clear(promptBox);
    await user.type(promptBox, "Only the temperature.");
    await user.click(screen.getByRole("button", { name: "Approve edited" }));
    const answer = onAnswer.mock.lastCall![0] as Extract<Approval, { action: "approve" }>;
    expect(answer.model).toBe("bigger");
    expect(answer.review).toBe(true);
    expect(answer.request!.messages[3].content).toEqual([{ type: "text", text: "Only the temperature." }]);
    expect(answer.request!.messages.slice(0, 3)).toEqual(prompt.request.messages.slice(0, 3));
  });

  it("rejects with the typed reason, and Escape rejects as dismissed", async () => {
    const { user, onAnswer } = renderDialog();
    await user.type(screen.getByRole("textbox", { name: "Reason if rejected" }), "too costly");
    await user.click(screen.getByRole("button", { name: "Reject" }));
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "reject", reason: "too costly" });
  });

  it("Escape rejects as dismissed (a sent answer disables the dialog until it closes)", async () => {
    const { user, onAnswer } = renderDialog();
    await user.keyboard("{Escape}");
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "reject", reason: "dismissed" });
  });
});

describe("SamplingReviewDialog", () => {
  const review: SamplingReviewPrompt = {
    id: "s2",
    server: "demo",
    provider: "local",
    request: prompt.request,
    result: { model: "smollm2", role: "assistant", stopReason: "endTurn", content: { type: "text", text: "It is 3 °C." } },
  };

  it("sends unchanged, or the edited text as the completion", async () => {
    const onAnswer = vi.fn<(r: Review) => Promise<void>>().mockResolvedValue(undefined);
    const user = userEvent.setup();
    const first = render(<SamplingReviewDialog prompt={review} onAnswer={onAnswer} />);
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "send" });
    first.unmount();
    render(<SamplingReviewDialog prompt={review} onAnswer={onAnswer} />);
    const box = screen.getByRole("textbox", { name: "Answer" });
    await user.clear(box);
    await user.type(box, "Cold.");
    await user.click(screen.getByRole("button", { name: "Send edited" }));
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "send", result: { ...review.result, content: [{ type: "text", text: "Cold." }] } });
  });

  it("a tool_use answer is edited as JSON and cannot be sent while it does not parse", async () => {
    const onAnswer = vi.fn<(r: Review) => Promise<void>>().mockResolvedValue(undefined);
    const user = userEvent.setup();
    const structured = { ...review, result: { ...review.result, content: { type: "tool_use" as const, id: "c", name: "__schema__", input: { n: 1 } } } };
    render(<SamplingReviewDialog prompt={structured} onAnswer={onAnswer} />);
    const box = screen.getByRole("textbox", { name: "Answer (JSON blocks)" });
    await user.type(box, "{{oops");
    expect((screen.getByRole("button", { name: /Send/ }) as HTMLButtonElement).disabled).toBe(true);
  });
});
