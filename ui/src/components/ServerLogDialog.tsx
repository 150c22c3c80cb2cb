import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { errorText, serverLog } from "../ipc";
import { keepKeysInDialog, useModalFocus } from "./modalFocus";

interface Props {
  server: string;
  onClose: () => void;
}

type LogState = { kind: "loading" } | { kind: "ready"; text: string; at: number } | { kind: "failed"; error: string };

/** The end of a server's log (stderr and MCP log messages), scrolled to the newest line. */
export function ServerLogDialog({ server, onClose }: Props) {
  const [state, setState] = useState<LogState>({ kind: "loading" });
  const text = useRef<HTMLPreElement>(null);

  const refresh = useCallback(() => {
    serverLog(server).then(
      (log) => setState({ kind: "ready", text: log, at: Date.now() }),
      (error) => setState({ kind: "failed", error: errorText(error) }),
    );
  }, [server]);

  useEffect(refresh, [refresh]);

  // Newest last: show the end.
  useLayoutEffect(() => {
    const pre = text.current;
    if (pre) pre.scrollTop = pre.scrollHeight;
  }, [state]);

  // A modal for the keyboard too: focus in (on Close), Tab kept inside, Escape closes.
  const dialog = useRef<HTMLDivElement>(null);
  const backdrop = useModalFocus(dialog, {
    onEscape: onClose,
    initialFocus: (root) => root.querySelector<HTMLElement>("button.server-log-close"),
  });

  return (
    <div className="elicitation-backdrop" {...backdrop} onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialog}
        className="elicitation-dialog server-log-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="server-log-title"
        data-server={server}
        tabIndex={-1}
        onKeyDown={keepKeysInDialog}
      >
        <div className="server-log-header">
          <div>
            <p className="eyebrow">Server log</p>
            <h2 id="server-log-title" className="elicitation-message">
              {server}
            </h2>
          </div>
          <div className="server-log-actions">
            <button type="button" className="secondary server-log-refresh" onClick={refresh}>
              Refresh
            </button>
            <button type="button" className="secondary server-log-close" onClick={onClose} aria-label="Close the log">
              Close
            </button>
          </div>
        </div>
        {state.kind === "failed" ? <p className="error small">{state.error}</p> : null}
        <pre ref={text} className="server-log-text" tabIndex={0} aria-label={`The end of ${server}'s log`}>
          {state.kind === "loading" ? "Loading…" : state.kind === "ready" ? state.text || "(nothing logged yet)" : ""}
        </pre>
        {state.kind === "ready" ? <p className="small muted server-log-note">The last 64 KB, read at {new Date(state.at).toLocaleTimeString()}.</p> : null}
      </div>
    </div>
  );
}
