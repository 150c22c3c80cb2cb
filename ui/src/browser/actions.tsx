import { useState } from "react";
import { errorText } from "../ipc";

export type Notice = { kind: "ok" | "error"; text: string };

/** Actions on one file at a time per file: `busy[id]` says what runs on it meanwhile, and an
 * error becomes a notice. */
export function useItemActions(onNotice: (notice: Notice) => void) {
  const [busy, setBusy] = useState<Record<string, string>>({});
  const act = async (id: string, label: string, action: () => Promise<void>) => {
    setBusy((b) => ({ ...b, [id]: label }));
    try {
      await action();
    } catch (e) {
      onNotice({ kind: "error", text: errorText(e) });
    } finally {
      setBusy((b) => {
        const rest = { ...b };
        delete rest[id];
        return rest;
      });
    }
  };
  return { busy, act };
}

/** The browser's one-line notice, dismissable. */
export function NoticeLine({ notice, onDismiss }: { notice: Notice; onDismiss: () => void }) {
  return (
    <p className={`browser-notice ${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"}>
      <span>{notice.text}</span>
      <button type="button" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </p>
  );
}
