import { DialogError } from "./DialogError";
import { useRef } from "react";
import type { ConfirmPrompt } from "../wire/ConfirmPrompt";
import { confirmHeadline, prettyArguments } from "./confirmText";
import { keepKeysInDialog, useModalFocus } from "./modalFocus";
import { useDialogAnswer } from "./useDialogAnswer";

interface Props {
  prompt: ConfirmPrompt;
  /** Sends the decision; rejects with the backend's reason (shown in the dialog). */
  onAnswer: (confirmed: boolean) => Promise<void>;
}

/**
 * Another program (the proxy) wants to run a tool that may change or delete data: run it or not.
 * Keyboard: focus starts on "Don't run", Tab stays inside, Escape is "Don't run".
 */
export function ConfirmDialog({ prompt, onAnswer }: Props) {
  // An App's `ui/download-file` is asked with the same dialog: files to keep, not a tool to run.
  const download = prompt.tool === "ui/download-file";
  const { error, busy, send } = useDialogAnswer(onAnswer);
  const dialog = useRef<HTMLDivElement>(null);
  const backdrop = useModalFocus(dialog, {
    onEscape: () => void send(false),
    initialFocus: (root) => root.querySelector<HTMLElement>("button.proxy-confirm-refuse"),
    busy,
  });

  return (
    <div className="elicitation-backdrop" {...backdrop}>
      <div
        ref={dialog}
        className="elicitation-dialog proxy-confirm"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="proxy-confirm-title"
        aria-describedby="proxy-confirm-description"
        tabIndex={-1}
        onKeyDown={keepKeysInDialog}
        data-id={prompt.id}
      >
        <p className="eyebrow">{prompt.server} · confirmation needed</p>
        <h2 id="proxy-confirm-title" className="elicitation-message">
          {confirmHeadline(prompt)}
          {download ? "." : ", which may change or delete data."}
        </h2>
        <div id="proxy-confirm-description" className="dialog-description">
          <p className="small">{download ? "They will be stored here and opened in the canvas (Save as… from there):" : "It will run with exactly these arguments:"}</p>
          <pre className="confirm-arguments proxy-confirm-arguments">{prettyArguments(prompt.arguments)}</pre>
        </div>
        <div className="elicitation-actions">
          <button type="button" className="primary danger proxy-confirm-run" disabled={busy} onClick={() => send(true)}>
            {download ? "Save" : "Run it"}
          </button>
          <button type="button" className="secondary proxy-confirm-refuse" disabled={busy} onClick={() => send(false)} aria-keyshortcuts="Escape">
            {download ? "Don't save" : "Don't run"}
          </button>
        </div>
        <DialogError error={error} />
      </div>
    </div>
  );
}
