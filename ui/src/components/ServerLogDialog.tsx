import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { errorText, serverLog } from "../ipc";
import { LogDialogFrame } from "./LogDialogFrame";

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

  return (
    <LogDialogFrame eyebrow="Server log" server={server} className="server-log-dialog" prefix="server-log" closeLabel="Close the log" onRefresh={refresh} onClose={onClose}>
        {state.kind === "failed" ? <p className="error small">{state.error}</p> : null}
        <pre ref={text} className="server-log-text" tabIndex={0} aria-label={`The end of ${server}'s log`}>
          {state.kind === "loading" ? "Loading…" : state.kind === "ready" ? state.text || "(nothing logged yet)" : ""}
        </pre>
        {state.kind === "ready" ? <p className="small muted server-log-note">The last 64 KB, read at {new Date(state.at).toLocaleTimeString()}.</p> : null}
    </LogDialogFrame>
  );
}
