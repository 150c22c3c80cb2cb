import { useEffect, useState } from "react";
import { errorText, listTools } from "../ipc";
import type { ServerView } from "../wire/ServerView";
import type { ToolView } from "../wire/ToolView";

export interface ToolSelection {
  server: string;
  tool: ToolView;
}

interface Props {
  servers: ServerView[];
  selection: ToolSelection | null;
  onSelect: (selection: ToolSelection) => void;
}

export function ServerList({ servers, selection, onSelect }: Props) {
  if (servers.length === 0) {
    return <p className="muted">No servers configured.</p>;
  }
  return (
    <nav className="servers" aria-label="Servers and tools">
      {servers.map((server) => (
        <ServerTools key={server.name} server={server} selection={selection} onSelect={onSelect} />
      ))}
    </nav>
  );
}

type ToolsState = { kind: "loading" } | { kind: "ready"; tools: ToolView[] } | { kind: "failed"; error: string };

function ServerTools({ server, selection, onSelect }: { server: ServerView } & Omit<Props, "servers">) {
  const [state, setState] = useState<ToolsState>({ kind: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setState({ kind: "loading" });
    listTools(server.name).then(
      (tools) => live && setState({ kind: "ready", tools }),
      (error) => live && setState({ kind: "failed", error: errorText(error) }),
    );
    return () => {
      live = false;
    };
  }, [server.name, attempt]);

  return (
    <section className="server" data-server={server.name}>
      <h3 className="server-name" title={`${server.transport}: ${server.target}`}>
        <span className={`status-dot ${state.kind}`} aria-hidden="true" />
        {server.name}
      </h3>
      {state.kind === "loading" ? <p className="muted small">Connecting…</p> : null}
      {state.kind === "failed" ? (
        <div className="error small">
          <p>{state.error}</p>
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Retry
          </button>
        </div>
      ) : null}
      {state.kind === "ready" ? (
        <ul className="tools">
          {state.tools.map((tool) => {
            const active = selection?.server === server.name && selection.tool.name === tool.name;
            return (
              <li key={tool.name}>
                <button
                  type="button"
                  className={`tool-item${active ? " active" : ""}`}
                  data-tool={tool.name}
                  onClick={() => onSelect({ server: server.name, tool })}
                >
                  <span className="tool-title">{tool.title ?? tool.name}</span>
                  <span className="tool-name">{tool.name}</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
