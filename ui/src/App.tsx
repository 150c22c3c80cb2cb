import { usePanelLayout } from "./panelLayout";
import { useCallback, useEffect, useState } from "react";
import type { CallRecord } from "./callHistory";
import { CallHistory } from "./components/CallHistory";
import { ArtifactBrowser } from "./browser/ArtifactBrowser";
import type { Scope } from "./browser/team";
import { Canvas } from "./components/Canvas";
import { ConfirmDialog } from "./components/ConfirmDialog";
import { ElicitationDialog } from "./components/ElicitationDialog";
import { SamplingDialog } from "./components/sampling/SamplingDialog";
import { SamplingReviewDialog } from "./components/sampling/SamplingReviewDialog";
import { ServerList, type OfferView, type ToolSelection } from "./components/ServerList";
import { PromptsPanel } from "./offers/PromptsPanel";
import { ProtocolView } from "./offers/ProtocolView";
import { SkillsPanel } from "./offers/SkillsPanel";
import { ResourcesPanel } from "./offers/ResourcesPanel";
import { SearchIcon, SearchPalette } from "./search/SearchPalette";
import { SettingsPanel } from "./components/SettingsPanel";
import { ToolPanel } from "./components/ToolPanel";
import {
  answerConfirmation,
  answerElicitation,
  answerSampling,
  answerSamplingReview,
  onSamplingClosed,
  onSamplingRequest,
  onSamplingReview,
  canvasIntent,
  canvasView,
  errorText,
  onConfirmClosed,
  onCanvasChanged,
  onConfirmRequest,
  onElicitation,
  onElicitationClosed,
  onProxiedCall,
} from "./ipc";
import { keysLabel, shortcutFor } from "./shortcuts";
import { takeServers } from "./startup";
import { emitZoom } from "./viewers/zoom";
import type { CanvasIntent } from "./wire/CanvasIntent";
import type { CanvasView } from "./wire/CanvasView";
import type { ConfirmPrompt } from "./wire/ConfirmPrompt";
import type { ElicitationAnswer } from "./wire/ElicitationAnswer";
import type { ElicitationPrompt } from "./wire/ElicitationPrompt";
import type { SamplingPrompt } from "./wire/SamplingPrompt";
import type { SamplingReviewPrompt } from "./wire/SamplingReviewPrompt";
import type { ServerView } from "./wire/ServerView";

/** Ctrl+K, or ⌘K on macOS: what the search buttons say. */
const SEARCH_KEYS = keysLabel("Ctrl+K", typeof navigator === "undefined" ? "" : navigator.platform || navigator.userAgent);

export function App() {
  const layout = usePanelLayout();
  const [servers, setServers] = useState<ServerView[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selection, setSelection] = useState<ToolSelection | null>(null);
  // A server's resources or prompts in the tool column (instead of the selected tool).
  const [offer, setOffer] = useState<OfferView | null>(null);
  const [canvas, setCanvas] = useState<CanvasView | null>(null);
  const [canvasError, setCanvasError] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  // The search palette (Ctrl+K, or the search field in the sidebar).
  const [searchOpen, setSearchOpen] = useState(false);
  // Whose files it searches (This machine | Team, with a team store): the palette opens again
  // with the last choice, for as long as the window runs.
  const [searchScope, setSearchScope] = useState<Scope>("local");
  // The artifact browser ("Files") in the tool column; `artifactsChanged` reloads it after calls.
  const [filesOpen, setFilesOpen] = useState(false);
  const [artifactsChanged, setArtifactsChanged] = useState(0);
  // Servers' questions to the user, oldest first; the first one is shown.
  const [questions, setQuestions] = useState<ElicitationPrompt[]>([]);
  // The proxy's requests to run tools that may change data, oldest first; shown after questions.
  const [confirmations, setConfirmations] = useState<ConfirmPrompt[]>([]);
  // Servers' sampling requests and completions to review, oldest first; shown before questions.
  const [samplings, setSamplings] = useState<Array<{ kind: "request"; prompt: SamplingPrompt } | { kind: "review"; prompt: SamplingReviewPrompt }>>([]);

  useEffect(() => {
    const stops = [
      onSamplingRequest((prompt) => setSamplings((q) => [...q, { kind: "request", prompt }])),
      onSamplingReview((prompt) => setSamplings((q) => [...q, { kind: "review", prompt }])),
      onSamplingClosed((id) => setSamplings((q) => q.filter((s) => s.prompt.id !== id))),
    ];
    return () => stops.forEach((stop) => stop());
  }, []);

  const settle = useCallback((id: string) => setSamplings((q) => q.filter((s) => s.prompt.id !== id)), []);

  useEffect(() => {
    const stopAsking = onElicitation((prompt) => setQuestions((q) => [...q, prompt]));
    const stopClosing = onElicitationClosed((id) => setQuestions((q) => q.filter((p) => p.id !== id)));
    return () => {
      stopAsking();
      stopClosing();
    };
  }, []);

  const answer = useCallback(async (id: string, reply: ElicitationAnswer) => {
    await answerElicitation(id, reply);
    setQuestions((q) => q.filter((p) => p.id !== id));
  }, []);

  useEffect(() => {
    const stopAsking = onConfirmRequest((prompt) => setConfirmations((c) => [...c, prompt]));
    const stopClosing = onConfirmClosed((id) => setConfirmations((c) => c.filter((p) => p.id !== id)));
    return () => {
      stopAsking();
      stopClosing();
    };
  }, []);

  const decide = useCallback(async (id: string, confirmed: boolean) => {
    await answerConfirmation(id, confirmed);
    setConfirmations((c) => c.filter((p) => p.id !== id));
  }, []);

  // The canvas reaches the UI one way: read once, then every change Rust pushes (`canvas-changed`:
  // calls, intents, artifacts opened or deleted, the proxy's calls). A push that overtakes the
  // first read wins over it.
  useEffect(() => {
    takeServers().then(setServers, (e) => setLoadError(errorText(e)));
    let pushed = false;
    const stop = onCanvasChanged((view) => {
      pushed = true;
      setCanvas(view);
      setCanvasError(null);
    });
    canvasView().then(
      (view) => {
        if (!pushed) setCanvas(view);
      },
      (e) => setCanvasError(errorText(e)),
    );
    return stop;
  }, []);

  // A call finished (the canvas arrives by itself): the file browser reloads.
  const onOutcome = useCallback(() => {
    setArtifactsChanged((n) => n + 1);
  }, []);

  // Picking a tool (or re-running a call) shows its panel instead of the file browser.
  useEffect(() => setFilesOpen(false), [selection]);

  // Calls the proxy made: new artifacts for the file browser (the canvas arrives by itself).
  useEffect(() => onProxiedCall(onOutcome), [onOutcome]);

  // Re-run from the call history: the tool is selected and called again with the same arguments.
  const rerun = useCallback((record: CallRecord) => {
    setSettingsOpen(false);
    setSelection({ server: record.server, tool: record.tool, rerun: { arguments: record.arguments, nonce: Date.now() } });
  }, []);

  const send = useCallback((intent: CanvasIntent) => {
    canvasIntent(intent).then(
      () => setCanvasError(null),
      (e) => setCanvasError(errorText(e)),
    );
  }, []);

  // Keyboard (shortcuts.ts): Ctrl+Tab / Ctrl+PageDown and Ctrl+Shift+Tab / Ctrl+PageUp switch
  // tabs, Ctrl+W closes the active one, Ctrl+= / Ctrl+- / Ctrl+0 zoom the image or PDF on screen,
  // Ctrl+B hides or shows the server list and tool panel, Ctrl+K opens the search palette. (Keys
  // typed in a dialog, the palette included, stay in it: modalFocus.ts.)
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = shortcutFor(event);
      if (action === "toggle_panels") {
        event.preventDefault();
        layout.toggle();
        return;
      }
      if (action === "open_search") {
        event.preventDefault();
        setSearchOpen(true);
        return;
      }
      if (!action || !canvas) return;
      const pane = canvas.panes.find((p) => p.id === canvas.active_pane);
      event.preventDefault();
      if (action === "next_tab" || action === "previous_tab") {
        send({ intent: action });
      } else if (action === "close_tab") {
        if (pane?.active_tab != null) send({ intent: "close_tab", tab: pane.active_tab });
      } else {
        emitZoom(action);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [canvas, send, layout.toggle]);

  const browsing = filesOpen && !settingsOpen;
  return (
    <div className={`app${browsing ? " browsing" : ""}${layout.collapsed ? " panels-collapsed" : ""}`} style={layout.style}>
      <aside className="sidebar">
        <header className="brand">
          <span className="brand-mark" aria-hidden="true" />
          MCP Canvas
          <button type="button" className="open-settings" onClick={() => setSettingsOpen(true)} aria-pressed={settingsOpen} aria-label="Settings" title="Settings: identity, storage, theme, dashboard origins">
            ⚙
          </button>
        </header>
        <button type="button" className="open-search" onClick={() => setSearchOpen(true)} aria-keyshortcuts="Control+K Meta+K" title={`Search the text of every stored file (${SEARCH_KEYS})`}>
          <SearchIcon />
          <span className="open-search-text">Search files</span>
          <kbd>{SEARCH_KEYS}</kbd>
        </button>
        <button
          type="button"
          className="open-files"
          onClick={() => {
            setSettingsOpen(false);
            setFilesOpen(!browsing);
          }}
          aria-pressed={browsing}
          title="Every stored artifact: search, pin, delete, save, open"
        >
          <span className="open-files-icon" aria-hidden="true" />
          Files
          <span className="open-files-hint">stored artifacts</span>
        </button>
        {loadError ? <p className="error">{loadError}</p> : null}
        <ServerList
          servers={servers}
          selection={selection}
          onSelect={(s) => {
            setSettingsOpen(false);
            setFilesOpen(false);
            setOffer(null);
            setSelection(s);
          }}
          offer={offer}
          onOffer={(o) => {
            setSettingsOpen(false);
            setFilesOpen(false);
            setOffer(o);
          }}
        />
        <CallHistory onRerun={rerun} />
      </aside>
      <section className="tool-column">
        {settingsOpen ? (
          <SettingsPanel onClose={() => setSettingsOpen(false)} />
        ) : browsing ? (
          <ArtifactBrowser onClose={() => setFilesOpen(false)} refresh={artifactsChanged} />
        ) : offer?.view === "resources" ? (
          <ResourcesPanel key={`resources/${offer.server}`} server={offer.server} onClose={() => setOffer(null)} />
        ) : offer?.view === "protocol" ? (
          <ProtocolView key={`protocol/${offer.server}`} server={offer.server} onClose={() => setOffer(null)} />
        ) : offer?.view === "skills" ? (
          <SkillsPanel key={`skills/${offer.server}`} server={offer.server} onClose={() => setOffer(null)} />
        ) : offer?.view === "prompts" ? (
          <PromptsPanel key={`prompts/${offer.server}`} server={offer.server} onClose={() => setOffer(null)} />
        ) : selection ? (
          <ToolPanel key={`${selection.server}/${selection.tool.name}/${selection.rerun?.nonce ?? ""}/${selection.dropped?.nonce ?? ""}`} selection={selection} onOutcome={onOutcome} />
        ) : (
          <div className="empty-hint">
            <h2>Pick a tool</h2>
            <p>Choose a tool from a server on the left, give it arguments, and call it. Images, documents and reports it returns open in the canvas.</p>
          </div>
        )}
      </section>
      <main className="canvas-column">
        {layout.collapsed ? null : <div className="column-resizer" role="separator" aria-orientation="vertical" aria-label="Resize the tool panel" title="Drag to resize" onPointerDown={layout.startResize} />}
        <button
          type="button"
          className="toggle-panels"
          aria-pressed={layout.collapsed}
          aria-label={layout.collapsed ? "Show the server list and tool panel" : "Hide the server list and tool panel"}
          title={layout.collapsed ? "Show the server list and tool panel (Ctrl+B)" : "Give the canvas the whole window (Ctrl+B)"}
          onClick={layout.toggle}
        >
          <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6">
            <rect x="1" y="2" width="12" height="10" rx="1.5" />
            <path d={layout.collapsed ? "M5 2v10" : "M5 2v10M2.5 7h1"} />
          </svg>
        </button>
        {layout.collapsed ? (
          <button type="button" className="canvas-search" onClick={() => setSearchOpen(true)} aria-label="Search files" aria-keyshortcuts="Control+K Meta+K" title={`Search the text of every stored file (${SEARCH_KEYS})`}>
            <SearchIcon />
          </button>
        ) : null}
        {canvasError ? <p className="error canvas-error">{canvasError}</p> : null}
        <Canvas view={canvas} send={send} />
      </main>
      {samplings.length > 0 ? (
        samplings[0].kind === "request" ? (
          <SamplingDialog key={samplings[0].prompt.id} prompt={samplings[0].prompt} onAnswer={async (a) => { await answerSampling(samplings[0].prompt.id, a); settle(samplings[0].prompt.id); }} />
        ) : (
          <SamplingReviewDialog key={samplings[0].prompt.id} prompt={samplings[0].prompt} onAnswer={async (r) => { await answerSamplingReview(samplings[0].prompt.id, r); settle(samplings[0].prompt.id); }} />
        )
      ) : questions.length > 0 ? (
        <ElicitationDialog key={questions[0].id} prompt={questions[0]} onAnswer={(reply) => answer(questions[0].id, reply)} />
      ) : confirmations.length > 0 ? (
        <ConfirmDialog key={confirmations[0].id} prompt={confirmations[0]} onAnswer={(confirmed) => decide(confirmations[0].id, confirmed)} />
      ) : searchOpen ? (
        // Only when no server or proxy is asking: their dialogs come first (one modal at a time),
        // and the palette comes back, empty, once they are answered.
        <SearchPalette onClose={() => setSearchOpen(false)} scope={searchScope} onScopeChange={setSearchScope} />
      ) : null}
    </div>
  );
}
