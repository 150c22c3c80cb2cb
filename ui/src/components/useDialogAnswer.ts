import { useState } from "react";

/** The text of whatever the backend rejected an answer with. */
function errorMessage(e: unknown): string {
  return typeof e === "string" ? e : e instanceof Error ? e.message : JSON.stringify(e);
}

/**
 * Sending a dialog's answer: `busy` while it goes, and the backend's reason when it is refused
 * (the dialog then stays open, ready for another try).
 */
export function useDialogAnswer<A>(onAnswer: (answer: A) => Promise<void>) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function send(answer: A) {
    setBusy(true);
    setError(null);
    try {
      await onAnswer(answer);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  }
  return { error, busy, send };
}
