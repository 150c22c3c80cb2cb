import { useState } from "react";
import { errorKind, errorText, restartServer, signIn } from "../ipc";
import type { ErrorKind } from "../wire/ErrorKind";

interface Props {
  /** What the command rejected with. */
  error: unknown;
  /** The server involved, when there is one (Sign in and Restart act on it). */
  server?: string;
  /** Called after the remedy worked (signed in, restarted): try again. */
  onRetry?: () => void;
  /** "Fix the arguments": put the user back in the form. */
  onFixArguments?: () => void;
  className?: string;
}

/** Each kind in words, at the head of its card: what happened, before the message says why. */
export const KIND_LABEL: Record<ErrorKind, string> = {
  sign_in: "Needs sign-in",
  server_down: "Server stopped",
  server_error: "Server error",
  bad_arguments: "Bad arguments",
  not_found: "Not found",
  needs_confirmation: "Needs confirmation",
  timeout: "Timed out",
  cancelled: "Cancelled",
  refused: "Refused",
  config: "Configuration",
  storage: "Storage",
  bug: "Bug",
};

/** What each kind offers, in words. */
export const REMEDY: Partial<Record<ErrorKind, string>> = {
  sign_in: "Sign in",
  server_down: "Restart the server",
  bad_arguments: "Fix the arguments",
  bug: "Copy a bug report",
};

/**
 * A command's error with what can be done about it, by its kind: sign in to the server, restart
 * it, go back to the arguments, or copy a bug report. Other kinds (a timeout, a refusal, a
 * missing name) are shown with their message, which says what to do.
 */
export function CommandErrorView({ error, server, onRetry, onFixArguments, className = "" }: Props) {
  const kind = errorKind(error);
  const message = errorText(error);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  async function act() {
    setBusy(true);
    setNote(null);
    try {
      if (kind === "sign_in" && server) {
        await signIn(server);
        onRetry?.();
      } else if (kind === "server_down" && server) {
        await restartServer(server);
        onRetry?.();
      } else if (kind === "bad_arguments") {
        onFixArguments?.();
      } else if (kind === "bug") {
        const report = [`MCP Canvas error (${kind})`, message, `at ${new Date().toISOString()}`, `in ${navigator.userAgent}`].join("\n");
        await navigator.clipboard.writeText(report);
        setNote("Copied: paste it into a new issue for MCP Canvas.");
      }
    } catch (e) {
      setNote(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  const offered = REMEDY[kind] && ((kind !== "sign_in" && kind !== "server_down") || server) && (kind !== "bad_arguments" || onFixArguments);
  return (
    <div className={`command-error error small ${className}`} data-kind={kind} role="alert">
      <p className="command-error-kind">{KIND_LABEL[kind] ?? kind}</p>
      <p className="command-error-message">{message}</p>
      {offered ? (
        <button type="button" className={`command-error-action remedy-${kind}`} disabled={busy} onClick={() => void act()}>
          {busy ? "…" : REMEDY[kind]}
        </button>
      ) : null}
      {note ? <p className="muted small command-error-note">{note}</p> : null}
    </div>
  );
}
