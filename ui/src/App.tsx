import { useCallback, useEffect, useState } from "react";
import { Canvas } from "./components/Canvas";
import { ServerList, type ToolSelection } from "./components/ServerList";
import { ToolPanel } from "./components/ToolPanel";
import { errorText, listServers } from "./ipc";
import type { OutcomeArtifact } from "./wire/OutcomeArtifact";
import type { CallOutcome } from "./wire/CallOutcome";
import type { ServerView } from "./wire/ServerView";

export function App() {
  const [servers, setServers] = useState<ServerView[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selection, setSelection] = useState<ToolSelection | null>(null);
  const [tabs, setTabs] = useState<OutcomeArtifact[]>([]);
  const [activeTab, setActiveTab] = useState<string | null>(null);

  useEffect(() => {
    listServers().then(setServers, (e) => setLoadError(errorText(e)));
  }, []);

  // Every artifact meant for the user opens as a tab (append); the outcome's primary artifact
  // becomes active. The replace/append/split rules move into a Rust canvas crate (issue #7).
  const onOutcome = useCallback((outcome: CallOutcome) => {
    const forUser = outcome.artifacts.filter((a) => a.audience !== "assistant");
    if (forUser.length === 0 || !outcome.display.open_canvas) return;
    setTabs((previous) => {
      const known = new Set(previous.map((t) => t.id));
      return [...previous, ...forUser.filter((a) => !known.has(a.id))];
    });
    setActiveTab(outcome.display.primary ?? forUser[0].id);
  }, []);

  const closeTab = useCallback((id: string) => {
    setTabs((previous) => {
      const index = previous.findIndex((t) => t.id === id);
      const next = previous.filter((t) => t.id !== id);
      setActiveTab((active) => (active === id ? (next[Math.max(0, index - 1)]?.id ?? null) : active));
      return next;
    });
  }, []);

  return (
    <div className="app">
      <aside className="sidebar">
        <header className="brand">
          <span className="brand-mark" aria-hidden="true" />
          MCP Canvas
        </header>
        {loadError ? <p className="error">{loadError}</p> : null}
        <ServerList servers={servers} selection={selection} onSelect={setSelection} />
      </aside>
      <section className="tool-column">
        {selection ? (
          <ToolPanel key={`${selection.server}/${selection.tool.name}`} selection={selection} onOutcome={onOutcome} />
        ) : (
          <div className="empty-hint">
            <h2>Pick a tool</h2>
            <p>Choose a tool from a server on the left, give it arguments, and call it. Images, documents and reports it returns open in the canvas.</p>
          </div>
        )}
      </section>
      <main className="canvas-column">
        <Canvas tabs={tabs} activeTab={activeTab} onActivate={setActiveTab} onClose={closeTab} />
      </main>
    </div>
  );
}
