import { DialogError } from "../DialogError";
import { useRef, useState } from "react";
import type { Review } from "../../wire/Review";
import type { SamplingBlock } from "../../wire/SamplingBlock";
import type { SamplingReviewPrompt } from "../../wire/SamplingReviewPrompt";
import { keepKeysInDialog, useModalFocus } from "../modalFocus";
import { useDialogAnswer } from "../useDialogAnswer";
import { blocksOf, Messages } from "./blocks";

interface Props {
  prompt: SamplingReviewPrompt;
  onAnswer: (review: Review) => Promise<void>;
}

/** The completion, editable as JSON (text blocks and tool calls alike); `null` when it does not parse. */
function parseBlocks(text: string): SamplingBlock[] | null {
  try {
    const value = JSON.parse(text);
    return Array.isArray(value) ? (value as SamplingBlock[]) : null;
  } catch {
    return null;
  }
}

/** The model answered: the user sends it as it is, edits it, or rejects it. Escape rejects. */
export function SamplingReviewDialog({ prompt, onAnswer }: Props) {
  const { error, busy, send } = useDialogAnswer(onAnswer);
  const dialog = useRef<HTMLDivElement>(null);
  const original = blocksOf(prompt.result.content);
  const onlyText = original.every((b) => b.type === "text");
  const [text, setText] = useState(onlyText ? original.map((b) => (b.type === "text" ? b.text : "")).join("\n") : JSON.stringify(original, null, 2));
  const reject = (reason: string) => send({ action: "reject", reason });
  const backdrop = useModalFocus(dialog, {
    onEscape: () => void reject("dismissed in review"),
    initialFocus: (root) => root.querySelector<HTMLElement>("button.sampling-send"),
    busy,
  });
  const blocks: SamplingBlock[] | null = onlyText ? [{ type: "text", text }] : parseBlocks(text);
  const changed = JSON.stringify(blocks) !== JSON.stringify(original);

  function sendIt() {
    if (!blocks) return;
    void send(changed ? { action: "send", result: { ...prompt.result, content: blocks } } : { action: "send" });
  }

  return (
    <div className="elicitation-backdrop" {...backdrop}>
      <div ref={dialog} className="elicitation-dialog sampling-review" role="dialog" aria-modal="true" aria-labelledby="sampling-review-title" tabIndex={-1} onKeyDown={keepKeysInDialog} data-id={prompt.id}>
        <p className="eyebrow">
          {prompt.server} · {prompt.provider} · {prompt.result.model}
        </p>
        <h2 id="sampling-review-title" className="elicitation-message">
          Review the answer before it goes to {prompt.server}
        </h2>
        <Messages messages={prompt.request.messages.slice(-1)} />
        <label className="sampling-field">
          {onlyText ? "Answer" : "Answer (JSON blocks)"}
          <textarea className="sampling-review-text" value={text} rows={8} onChange={(e) => setText(e.target.value)} />
        </label>
        {blocks ? null : <p className="error small">Not valid JSON blocks: fix them to send.</p>}
        <div className="elicitation-actions">
          <button type="button" className="primary sampling-send" disabled={busy || !blocks} onClick={sendIt}>
            {changed ? "Send edited" : "Send"}
          </button>
          <button type="button" className="secondary sampling-review-reject" disabled={busy} onClick={() => void reject("rejected in review")}>
            Reject
          </button>
        </div>
        <DialogError error={error} />
      </div>
    </div>
  );
}
