import { DialogError } from "../DialogError";
import { useRef, useState } from "react";
import type { Approval } from "../../wire/Approval";
import type { SamplingPrompt } from "../../wire/SamplingPrompt";
import type { SamplingRequest } from "../../wire/SamplingRequest";
import { keepKeysInDialog, useModalFocus } from "../modalFocus";
import { useDialogAnswer } from "../useDialogAnswer";
import { blocksOf, Messages } from "./blocks";

interface Props {
  prompt: SamplingPrompt;
  /** Sends the decision; rejects with the backend's reason (shown in the dialog). */
  onAnswer: (approval: Approval) => Promise<void>;
}

/** The index of the last user message with a text block: the prompt the user may edit. */
function editableIndex(request: SamplingRequest): number {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role === "user" && blocksOf(m.content).some((b) => b.type === "text")) return i;
  }
  return -1;
}

function textOf(request: SamplingRequest, index: number): string {
  if (index < 0) return "";
  return blocksOf(request.messages[index].content)
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("\n");
}

/** `request` with the prompt's text blocks replaced by one text block (other blocks kept). */
export function withEdits(request: SamplingRequest, system: string, prompt: string, maxTokens: number): SamplingRequest {
  const index = editableIndex(request);
  const messages = request.messages.map((m, i) => {
    if (i !== index) return m;
    const others = blocksOf(m.content).filter((b) => b.type !== "text");
    return { ...m, content: [{ type: "text" as const, text: prompt }, ...others] };
  });
  return { ...request, messages, systemPrompt: system === "" ? undefined : system, maxTokens };
}

/**
 * A server asks for an LLM completion: everything it sends is shown (system prompt, messages
 * with tool blocks, tools, hints, limits), and the user approves, edits or rejects it. Escape
 * rejects.
 */
export function SamplingDialog({ prompt, onAnswer }: Props) {
  const { error, busy, send } = useDialogAnswer(onAnswer);
  const dialog = useRef<HTMLDivElement>(null);
  const request = prompt.request;
  const [editing, setEditing] = useState(false);
  const [system, setSystem] = useState(request.systemPrompt ?? "");
  const index = editableIndex(request);
  const [text, setText] = useState(textOf(request, index));
  const [maxTokens, setMaxTokens] = useState(request.maxTokens);
  const [model, setModel] = useState(prompt.model);
  const [review, setReview] = useState(prompt.review);
  const [reason, setReason] = useState("");
  const reject = (why: string) => send({ action: "reject", reason: why });
  const backdrop = useModalFocus(dialog, {
    onEscape: () => void reject("dismissed"),
    initialFocus: (root) => root.querySelector<HTMLElement>("button.sampling-approve"),
    busy,
  });

  function approve() {
    const edited = withEdits(request, system, text, maxTokens);
    const changed = editing && JSON.stringify(edited) !== JSON.stringify(request);
    const answer: Approval = { action: "approve", review };
    if (changed) answer.request = edited;
    if (model !== prompt.model) answer.model = model;
    void send(answer);
  }

  const hints = (request.modelPreferences?.hints ?? []).flatMap((h) => (h.name ? [h.name] : []));
  return (
    <div className="elicitation-backdrop" {...backdrop}>
      <div
        ref={dialog}
        className="elicitation-dialog sampling-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="sampling-title"
        tabIndex={-1}
        onKeyDown={keepKeysInDialog}
        data-id={prompt.id}
      >
        <p className="eyebrow">
          {prompt.server} · LLM request{prompt.structured ? " · structured output (__schema__)" : ""}
        </p>
        <h2 id="sampling-title" className="elicitation-message">
          {prompt.server} asks for an LLM completion
        </h2>
        <label className="sampling-field">
          Model ({prompt.provider})
          <select className="sampling-model" value={model} disabled={busy} onChange={(e) => setModel(e.target.value)}>
            {prompt.models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        {prompt.notes.length > 0 ? (
          <ul className="sampling-notes small">
            {prompt.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        ) : null}
        {editing ? (
          <div className="sampling-edit">
            <label className="sampling-field">
              System prompt
              <textarea className="sampling-edit-system" value={system} onChange={(e) => setSystem(e.target.value)} rows={2} />
            </label>
            {index >= 0 ? (
              <label className="sampling-field">
                Prompt
                <textarea className="sampling-edit-prompt" value={text} onChange={(e) => setText(e.target.value)} rows={4} />
              </label>
            ) : null}
            <label className="sampling-field">
              Max tokens
              <input className="sampling-edit-max-tokens" type="number" min={1} value={maxTokens} onChange={(e) => setMaxTokens(Math.max(1, Number(e.target.value) || 1))} />
            </label>
          </div>
        ) : (
          <div className="sampling-request">
            {request.systemPrompt ? (
              <p className="sampling-system">
                <span className="eyebrow">system</span> {request.systemPrompt}
              </p>
            ) : null}
            <Messages messages={request.messages} />
          </div>
        )}
        {(request.tools ?? []).length > 0 ? (
          <details className="sampling-tools">
            <summary>
              Tools offered: {(request.tools ?? []).map((t) => t.name).join(", ")} (choice: {request.toolChoice?.mode ?? "auto"})
            </summary>
            <pre>{JSON.stringify(request.tools ?? [], null, 2)}</pre>
          </details>
        ) : null}
        <p className="small sampling-limits">
          max tokens {request.maxTokens}
          {request.temperature !== undefined ? ` · temperature ${request.temperature}` : ""}
          {(request.stopSequences ?? []).length > 0 ? ` · stops at ${(request.stopSequences ?? []).map((s) => JSON.stringify(s)).join(", ")}` : ""}
          {hints.length > 0 ? ` · hints ${hints.join(", ")}` : ""}
        </p>
        <label className="small">
          <input type="checkbox" className="sampling-review-toggle" checked={review} onChange={(e) => setReview(e.target.checked)} /> Review the answer before it is sent
        </label>
        <label className="sampling-field small">
          Reason if rejected
          <input className="sampling-reason" value={reason} placeholder="rejected in the dialog" onChange={(e) => setReason(e.target.value)} />
        </label>
        <div className="elicitation-actions">
          <button type="button" className="primary sampling-approve" disabled={busy} onClick={approve}>
            {editing ? "Approve edited" : "Approve"}
          </button>
          {editing ? null : (
            <button type="button" className="secondary sampling-edit-button" disabled={busy} onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          <button type="button" className="secondary sampling-reject" disabled={busy} onClick={() => void reject(reason.trim() || "rejected in the dialog")} aria-keyshortcuts="Escape">
            Reject
          </button>
        </div>
        <DialogError error={error} />
      </div>
    </div>
  );
}
