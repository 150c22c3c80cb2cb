import { useCallback, useEffect, useMemo, useState } from "react";
import { droppedArtifactId, useSpringOpen } from "../drag";
import { fileArgumentsOf } from "../forms/fileArguments";
import { errorKind, errorText, listTools, onServerChanged, restartServer, serverStatuses, setServerTimeout, stopServer } from "../ipc";
import { takeTools } from "../startup";
import { filterTools } from "../toolSearch";
import type { ServerState } from "../wire/ServerState";
import type { ServerStatus } from "../wire/ServerStatus";
import type { ServerView } from "../wire/ServerView";
import type { ToolView } from "../wire/ToolView";
import { ServerLogDialog } from "./ServerLogDialog";
import { CommandErrorView } from "./CommandErrorView";
import { SignInRow } from "./SignInRow";
import { SamplingLogDialog } from "./sampling/SamplingLogDialog";

export interface ToolSelection {
  server: string;
  tool: ToolView;
  /** Set when the call history asks to run this tool again with these exact arguments. */
  rerun?: { arguments: string; nonce: number };
  /** Set when a stored file was dropped on the tool: it goes into the tool's first file field. */
  dropped?: { id: string; nonce: number };
}

/** What else of a server the tool column can show. */
export type OfferView = { server: string; view: "resources" | "prompts" | "skills" | "protocol" };

interface Props {
  servers: ServerView[];
  selection: ToolSelection | null;
  onSelect: (selection: ToolSelection) => void;
  offer?: OfferView | null;
  onOffer?: (offer: OfferView) => void;
}

/** How often the servers' states are fetched again (they change when servers exit or start). */
const STATUS_POLL_MS = 3000;

export const STATE_WORDS: Record<ServerState, string> = {
  running: "running",
  not_started: "not started",
  exited: "exited",
  failed: "failed",
  stopped: "stopped",
};

/** The servers, each with its state, Restart, Log and tools; a search box filters the tools. */
export function ServerList({ servers, selection, onSelect, offer = null, onOffer = () => {} }: Props) {
  const [query, setQuery] = useState("");
  const [statuses, setStatuses] = useState<Record<string, ServerStatus>>({});
  const [logOf, setLogOf] = useState<string | null>(null);
  const [samplingOf, setSamplingOf] = useState<string | null>(null);

  const refreshStatuses = useCallback(() => {
    serverStatuses().then(
      (list) => setStatuses(Object.fromEntries(list.map((s) => [s.server, s]))),
      (error) => console.warn("server_statuses:", errorText(error)),
    );
  }, []);

  useEffect(() => {
    refreshStatuses();
    const timer = window.setInterval(refreshStatuses, STATUS_POLL_MS);
    return () => window.clearInterval(timer);
  }, [refreshStatuses]);

  if (servers.length === 0) {
    return <p className="muted">No servers configured.</p>;
  }
  return (
    <>
      <div className="tool-search-box">
        <input
          type="search"
          className="tool-search"
          placeholder="Search tools"
          aria-label="Search tools by name, title or description"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setQuery("");
          }}
        />
      </div>
      <nav className="servers" aria-label="Servers and tools">
        {servers.map((server) => (
          <ServerTools
            key={server.name}
            server={server}
            status={statuses[server.name] ?? null}
            query={query}
            selection={selection}
            onSelect={onSelect}
            onShowLog={() => setLogOf(server.name)}
            onShowSampling={() => setSamplingOf(server.name)}
            onStatusChange={refreshStatuses}
            offer={offer?.server === server.name ? offer.view : null}
            onOffer={(view) => onOffer({ server: server.name, view })}
          />
        ))}
      </nav>
      {logOf ? <ServerLogDialog server={logOf} onClose={() => setLogOf(null)} /> : null}
      {samplingOf ? <SamplingLogDialog server={samplingOf} onClose={() => setSamplingOf(null)} /> : null}
    </>
  );
}

type ToolsState = { kind: "loading" } | { kind: "ready"; tools: ToolView[] } | { kind: "failed"; error: unknown };

interface ServerProps {
  server: ServerView;
  status: ServerStatus | null;
  query: string;
  selection: ToolSelection | null;
  onSelect: (selection: ToolSelection) => void;
  onShowLog: () => void;
  onShowSampling: () => void;
  onStatusChange: () => void;
  offer: OfferView["view"] | null;
  onOffer: (view: OfferView["view"]) => void;
}

function ServerTools({ server, status, query, selection, onSelect, onShowLog, onShowSampling, onStatusChange, offer, onOffer }: ServerProps) {
  const [state, setState] = useState<ToolsState>({ kind: "loading" });
  // Bumped to list the tools again (Retry, Restart, the server's tools/list_changed).
  const [listing, setListing] = useState(0);
  const [restarting, setRestarting] = useState(false);
  const [restartError, setRestartError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    // A re-list keeps showing the tools it has until the new list arrives.
    setState((s) => (s.kind === "ready" ? s : { kind: "loading" }));
    // The first listing may have been asked for at start-up (startup.ts).
    (listing === 0 ? takeTools(server.name) : listTools(server.name))
      .then(
        (tools) => live && setState({ kind: "ready", tools }),
        (error) => live && setState({ kind: "failed", error }),
      )
      // Listing starts the server: its state changed.
      .finally(() => live && onStatusChange());
    return () => {
      live = false;
    };
  }, [server.name, listing, onStatusChange]);

  // The server says its tools changed: list them again.
  useEffect(
    () =>
      onServerChanged((change) => {
        if (change.server === server.name && change.list === "tools") setListing((n) => n + 1);
      }),
    [server.name],
  );

  async function stop() {
    setRestartError(null);
    try {
      await stopServer(server.name);
    } catch (error) {
      setRestartError(errorText(error));
    } finally {
      onStatusChange();
    }
  }

  async function restart() {
    setRestarting(true);
    setRestartError(null);
    try {
      await restartServer(server.name);
      setListing((n) => n + 1);
    } catch (error) {
      setRestartError(errorText(error));
    } finally {
      setRestarting(false);
      onStatusChange();
    }
  }

  const shown = state.kind === "ready" ? filterTools(state.tools, query) : [];
  const stateClass = restarting ? "restarting" : (status?.state ?? "unknown");
  const stateWords = restarting ? "restarting…" : status ? STATE_WORDS[status.state] : "…";
  const problem = status?.last_error && status.state !== "running" ? status.last_error : null;
  const hover = status
    ? [
        `${server.transport}: ${server.target}`,
        `State: ${STATE_WORDS[status.state]}`,
        status.failures > 0 ? `Failures in a row: ${status.failures}` : null,
        status.last_error ? `Last error: ${status.last_error}` : null,
        status.next_start_wait_s > 0 ? `Next start waits ${status.next_start_wait_s} s` : null,
        `Log: ${status.log}`,
      ]
        .filter(Boolean)
        .join("\n")
    : `${server.transport}: ${server.target}`;

  return (
    <section className="server" data-server={server.name} data-state={stateClass}>
      <div className="server-header">
        <h3 className="server-name" title={hover}>
          <span className={`status-dot ${stateClass}`} aria-hidden="true" />
          <span className="server-label">{server.name}</span>
        </h3>
        <div className="server-actions">
          <button type="button" className="server-action server-restart" disabled={restarting} onClick={restart} title={`Stop ${server.name} and start it again`}>
            Restart
          </button>
          {status?.state === "running" ? (
            <button type="button" className="server-action server-stop" onClick={stop} title={`Stop ${server.name} now (its next use starts it again)`}>
              Stop
            </button>
          ) : null}
          <button type="button" className="server-action server-log" onClick={onShowLog} title={`The end of ${server.name}'s log`}>
            Log
          </button>
          <button type="button" className="server-action server-sampling" onClick={onShowSampling} title={`The LLM completions ${server.name} asked for (sampling)`}>
            Sampling
          </button>
        </div>
      </div>
      <p className="server-state" title={hover}>
        {stateWords}
        {status && status.state !== "running" && status.next_start_wait_s > 0 ? ` · next start in ${status.next_start_wait_s} s` : ""}
      </p>
      {server.sign_in ? <SignInRow server={server.name} initial={server.sign_in} listing={listing + (state.kind === "failed" ? 0.5 : 0)} onSignedIn={() => setListing((n) => n + 1)} /> : null}
      <TimeoutSetting server={server} onError={setRestartError} />
      {problem || (status && status.failures > 0) ? (
        <details className="server-problem">
          <summary>
            {status && status.failures > 0 ? `${status.failures} failure${status.failures === 1 ? "" : "s"} in a row` : "Last error"}
            {status && status.next_start_wait_s > 0 ? ` · next start in ${status.next_start_wait_s} s` : ""}
          </summary>
          {status?.last_error ? <p>{status.last_error}</p> : null}
        </details>
      ) : null}
      {restartError ? <p className="error small server-restart-error">{restartError}</p> : null}
      {state.kind === "loading" ? <p className="muted small">Connecting…</p> : null}
      {state.kind === "failed" && server.sign_in && errorKind(state.error) === "sign_in" ? (
        <p className="muted small">Sign in to list its tools.</p>
      ) : state.kind === "failed" ? (
        <div className="tools-failed">
          <CommandErrorView error={state.error} server={server.name} onRetry={() => setListing((n) => n + 1)} />
          <button type="button" onClick={() => setListing((n) => n + 1)}>
            Retry
          </button>
        </div>
      ) : null}
      <div className="server-offers" role="group" aria-label={`More of ${server.name}`}>
        <button type="button" className="server-offer" data-offer="resources" aria-pressed={offer === "resources"} onClick={() => onOffer("resources")} title={`${server.name}'s resources and resource templates`}>
          Resources
        </button>
        <button type="button" className="server-offer" data-offer="prompts" aria-pressed={offer === "prompts"} onClick={() => onOffer("prompts")} title={`${server.name}'s prompts`}>
          Prompts
        </button>
        <button type="button" className="server-offer" data-offer="skills" aria-pressed={offer === "skills"} onClick={() => onOffer("skills")} title={`${server.name}'s skills (io.modelcontextprotocol/skills)`}>
          Skills
        </button>
        <button type="button" className="server-offer" data-offer="protocol" aria-pressed={offer === "protocol"} onClick={() => onOffer("protocol")} title={`Every message between MCP Canvas and ${server.name}`}>
          Protocol
        </button>
      </div>
      {state.kind === "ready" ? (
        shown.length === 0 ? (
          <p className="muted small no-tools">{state.tools.length === 0 ? "No tools." : "No matching tools."}</p>
        ) : (
          <ul className="tools">
            {shown.map((tool) => {
              const active = offer === null && selection?.server === server.name && selection.tool.name === tool.name;
              return <ToolItem key={tool.name} server={server.name} tool={tool} active={active} onSelect={onSelect} />;
            })}
          </ul>
        )
      ) : null}
    </section>
  );
}

/** One tool in the list. A tool with file arguments opens while a stored file (a row of the
 * artifact browser, a canvas tab) is held over it, so the file can be carried on to its field;
 * dropped on the tool itself, the file goes into its first file field. */
function ToolItem({ server, tool, active, onSelect }: { server: string; tool: ToolView; active: boolean; onSelect: (selection: ToolSelection) => void }) {
  const takesFiles = useMemo(() => fileArgumentsOf(tool).length > 0, [tool]);
  const spring = useSpringOpen(takesFiles ? () => onSelect({ server, tool }) : null);
  return (
    <li>
      <button
        type="button"
        className={`tool-item${active ? " active" : ""}${spring.armed ? " drop-armed" : ""}`}
        data-tool={tool.name}
        title={tool.description ?? undefined}
        onClick={() => onSelect({ server, tool })}
        {...spring.handlers}
        onDrop={(event) => {
          const id = takesFiles ? droppedArtifactId(event.dataTransfer) : null;
          if (!id) return;
          event.preventDefault();
          spring.disarm();
          onSelect({ server, tool, dropped: { id, nonce: Date.now() } });
        }}
      >
        <span className="tool-title">{tool.title ?? tool.name}</span>
        <span className="tool-name">{tool.name}</span>
      </button>
    </li>
  );
}

/** The server's own call timeout (`timeout_seconds` in servers.json); empty means the default. */
function TimeoutSetting({ server, onError }: { server: ServerView; onError: (error: string | null) => void }) {
  const initial = server.timeout_seconds === null ? "" : String(server.timeout_seconds);
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState(initial);
  useEffect(() => {
    setSaved(initial);
    setDraft(initial);
  }, [initial]);
  async function commit() {
    if (draft.trim() === saved.trim()) return;
    const seconds = draft.trim() === "" ? null : Number(draft);
    if (seconds !== null && !(Number.isFinite(seconds) && seconds > 0)) {
      onError("A timeout is a number of seconds above 0 (empty: the default, 60 s).");
      return;
    }
    try {
      await setServerTimeout(server.name, seconds);
      setSaved(draft);
      onError(null);
    } catch (error) {
      onError(errorText(error));
    }
  }
  return (
    <details className="server-settings">
      <summary>Call timeout: {saved.trim() === "" ? "default (60 s)" : `${saved} s`}</summary>
      <label>
        Seconds per call
        <input
          className="server-timeout"
          inputMode="decimal"
          value={draft}
          placeholder="60"
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => void commit()}
          onKeyDown={(e) => e.key === "Enter" && void commit()}
        />
      </label>
    </details>
  );
}
