import { Fragment, useEffect, useRef, useState } from "react";
import { followPointer, startArtifactDrag } from "../drag";
import { artifactUrl, artifactViewUrl } from "../ipc";
import { AppViewer, teardownApp } from "../viewers/AppViewer";
import type { DisplayMode } from "../viewers/appContext";
import { ImageViewer } from "../viewers/ImageViewer";
import { DashboardViewer } from "../viewers/DashboardViewer";
import { FileViewer } from "../viewers/FileViewer";
import { displayOrigin } from "../viewers/dashboard";
import { useTabWatch } from "../offers/watches";
import { PdfViewer } from "../viewers/PdfViewer";
import { CodeViewer, CsvViewer, DocumentViewer, JsonViewer } from "../viewers/TextViewers";
import type { ArtifactTab } from "../wire/ArtifactTab";
import type { CanvasIntent } from "../wire/CanvasIntent";
import type { CanvasPane } from "../wire/CanvasPane";
import type { CanvasTab } from "../wire/CanvasTab";
import type { CanvasView } from "../wire/CanvasView";
import type { Focus } from "../wire/Focus";

interface Props {
  view: CanvasView | null;
  send: (intent: CanvasIntent) => void;
}

/** Draws the canvas state kept in Rust (`mcp-canvas-canvas`): panes side by side, each with tabs. */
export function Canvas({ view, send }: Props) {
  const empty = !view || view.panes.every((p) => p.tabs.length === 0);
  if (empty) {
    return (
      <div className="canvas">
        <div className="tab-strip" role="tablist" />
        <div className="viewer">
          <EmptyCanvas />
        </div>
      </div>
    );
  }
  return <Panes view={view} send={send} />;
}

/** The panes side by side; the border between two is dragged to share their width differently. */
function Panes({ view, send }: { view: CanvasView; send: Props["send"] }) {
  const [weights, setWeights] = useState<Record<number, number>>({});
  const row = useRef<HTMLDivElement>(null);
  const weight = (id: number) => weights[id] ?? 1;
  // Dragging the border between `left` and `right` moves width from one to the other; neither
  // gets under 15 % of what the two had.
  const startDrag = (down: React.PointerEvent, left: number, right: number) => {
    const total = row.current?.clientWidth ?? 1;
    const sum = view.panes.reduce((n, p) => n + weight(p.id), 0);
    const pair = weight(left) + weight(right);
    const [startLeft, startX] = [weight(left), down.clientX];
    followPointer(down, (e) => {
      const next = Math.min(0.85 * pair, Math.max(0.15 * pair, startLeft + ((e.clientX - startX) / total) * sum));
      setWeights((w) => ({ ...w, [left]: next, [right]: pair - next }));
    });
  };
  return (
    <div className="panes" ref={row}>
      {view.panes.map((pane, index) => (
        <Fragment key={pane.id}>
          {index > 0 ? (
            <div
              className="pane-resizer"
              role="separator"
              aria-orientation="vertical"
              aria-label="Resize the panes"
              onPointerDown={(e) => startDrag(e, view.panes[index - 1].id, pane.id)}
            />
          ) : null}
          <Pane pane={pane} active={pane.id === view.active_pane} multiple={view.panes.length > 1} send={send} grow={weight(pane.id)} />
        </Fragment>
      ))}
    </div>
  );
}

function Pane({ pane, active, multiple, send, grow }: { pane: CanvasPane; active: boolean; multiple: boolean; send: Props["send"]; grow: number }) {
  const current = pane.tabs.find((t) => t.id === pane.active_tab) ?? null;
  // Any tab can take the whole window (an App may ask for it too); Escape gives it back.
  const [fullscreen, setFullscreen] = useState(false);
  const mode: DisplayMode = fullscreen ? "fullscreen" : "inline";
  // The App floating in picture-in-picture (it asked for `pip`): shown over the window whatever
  // tab is active, until it asks for another mode or the user puts it back. Rust holds it (the
  // tab's `floating`), so the next call's `replace` does not close it.
  const pipTab = pane.tabs.find((t) => t.floating)?.id ?? null;
  const setPipTab = (tab: number | null) => {
    if (tab !== null) send({ intent: "float_tab", tab });
    else if (pipTab !== null) send({ intent: "unfloat_tab", tab: pipTab });
  };
  useEffect(() => {
    if (!fullscreen) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setFullscreen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [fullscreen]);
  useEffect(() => {
    if (!current) setFullscreen(false);
  }, [current]);
  // An App closes after it was told (`ui/resource-teardown`), so it can save what it holds.
  const close = async (tab: CanvasTab) => {
    try {
      if (tab.content.kind === "app") await teardownApp(tab.content.app_id);
    } finally {
      send({ intent: "close_tab", tab: tab.id });
    }
  };
  // The active tab is always in view in its (scrolling) tab list.
  const tabList = useRef<HTMLDivElement>(null);
  useEffect(() => {
    tabList.current?.querySelector(".tab.active")?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  }, [pane.active_tab, pane.tabs.length]);
  // A tab showing a watched resource carries a live mark until the watch ends.
  const watchOf = useTabWatch();
  // App tabs stay mounted while hidden: an App keeps running across tab switches until closed.
  const apps = pane.tabs.filter((t) => t.content.kind === "app");
  return (
    <section
      className={`canvas pane${active ? " active" : ""}${fullscreen ? " fullscreen" : ""}`}
      style={{ flexGrow: grow, flexBasis: 0 }}
      data-pane={pane.id}
      onMouseDown={() => !active && send({ intent: "focus_pane", pane: pane.id })}
    >
      <div className="tab-strip">
        {/* The tabs scroll; the pane's buttons after them stay in view. */}
        <div className="tab-list" role="tablist" ref={tabList}>
          {pane.tabs.map((tab) => (
            <div
              key={tab.id}
              className={`tab${tab.id === pane.active_tab ? " active" : ""}${tab.pinned ? " pinned" : ""}`}
              role="tab"
              aria-selected={tab.id === pane.active_tab}
              // A stored file's tab can be dragged onto a tool's file field.
              draggable={tab.content.kind === "artifact"}
              onDragStart={tab.content.kind === "artifact" ? (e) => startArtifactDrag(e, (tab.content as ArtifactTab).artifact_id) : undefined}
            >
              {watchOf(tab) ? <span className="tab-live" role="img" aria-label="Live" title={LIVE_TITLE} /> : null}
              <button type="button" className="tab-label" onClick={() => send({ intent: "activate_tab", tab: tab.id })} title={tabTitle(tab)}>
                {tab.pinned ? "📌 " : ""}
                {tab.label}
              </button>
              <button type="button" className="tab-close" aria-label={`Close ${tab.label}`} onClick={() => void close(tab)}>
                ×
              </button>
            </div>
          ))}
        </div>
        {current ? (
          <button
            type="button"
            className="pane-pin"
            aria-pressed={current.pinned}
            aria-label={current.pinned ? `Unpin ${current.label}` : `Pin ${current.label}`}
            title={current.pinned ? "Unpin: the next call's replace may close it again" : "Pin: the next call's replace never closes this tab"}
            onClick={() => send({ intent: current.pinned ? "unpin_tab" : "pin_tab", tab: current.id })}
          >
            <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" fill={current.pinned ? "currentColor" : "none"} stroke="currentColor" strokeWidth="1.4">
              <path d="M5 1.5h4l-.6 4 2.1 2H3.5l2.1-2zM7 7.5V13" />
            </svg>
          </button>
        ) : null}
        {current ? (
          <button
            type="button"
            className="pane-fullscreen"
            aria-pressed={fullscreen}
            aria-label={fullscreen ? "Leave full screen (Escape)" : "Full screen"}
            title={fullscreen ? "Leave full screen (Escape)" : "Show this tab over the whole window"}
            onClick={() => setFullscreen((f) => !f)}
          >
            <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6">
              {fullscreen ? <path d="M5 1v4H1M9 1v4h4M5 13V9H1M9 13V9h4" /> : <path d="M1 5V1h4M13 5V1H9M1 9v4h4M13 9v4H9" />}
            </svg>
          </button>
        ) : null}
        {multiple ? (
          <button type="button" className="pane-close" aria-label="Close this pane" onClick={() => send({ intent: "close_pane", pane: pane.id })}>
            ⊟
          </button>
        ) : null}
      </div>
      <div className="viewer">
        {current && current.content.kind !== "app" ? <TabViewer tab={current} active={active} /> : null}
        {!current ? <EmptyCanvas /> : null}
        {apps.map((tab) =>
          tab.content.kind === "app" ? (
            <div key={tab.id} className={`app-slot${tab.id === pipTab ? " pip" : ""}`} hidden={tab.id !== current?.id && tab.id !== pipTab} data-tab={tab.id}>
              {tab.id === pipTab ? (
                <div className="pip-bar">
                  <span className="pip-title">{tab.label}</span>
                  <button type="button" className="pip-return" title="Put the App back in its tab" onClick={() => {
                    setPipTab(null);
                    send({ intent: "activate_tab", tab: tab.id });
                  }}>
                    Back to its tab
                  </button>
                </div>
              ) : null}
              <AppViewer
                app={tab.content}
                displayMode={tab.id === pipTab ? "pip" : tab.id === current?.id ? mode : "inline"}
                setDisplayMode={(m) => {
                  if (m === "pip") {
                    setPipTab(tab.id);
                    setFullscreen(false);
                  } else {
                    // Whatever the last view from Rust said: a float still on its way must not
                    // outlive the App being granted another mode (a no-op when it is not floating).
                    send({ intent: "unfloat_tab", tab: tab.id });
                    setFullscreen(m === "fullscreen");
                  }
                }}
              />
            </div>
          ) : null,
        )}
      </div>
    </section>
  );
}

/** What a watched tab's live mark says. */
export const LIVE_TITLE = "Live: re-read when the server says it changed";

function tabTitle(tab: CanvasTab): string {
  switch (tab.content.kind) {
    case "artifact":
      return `${tab.content.name} · ${tab.content.mime}`;
    case "dashboard":
      return `${tab.content.title ?? "Dashboard"} · ${displayOrigin(tab.content.url)}`;
    case "app":
      return `${tab.content.tool_title ?? tab.content.tool} · App of ${tab.content.server}`;
  }
}

/** `active`: the tab is on screen in the focused pane (zoom shortcuts go to it). */
function TabViewer({ tab, active }: { tab: CanvasTab; active: boolean }) {
  if (tab.content.kind === "dashboard") {
    return <DashboardViewer tab={tab} dashboard={tab.content} />;
  }
  if (tab.content.kind === "app") return null; // kept mounted by its pane
  return <ArtifactViewer key={tab.content.artifact_id} artifact={tab.content} active={active} focus={tab.focus ?? null} />;
}

/** `focus`: where a search hit opened the tab (a PDF page, a table row, a line of text or JSON);
 * the viewer goes there on each new request. HTML, Markdown and SVG open at the top: their hits
 * are blocks of rendered text (Markdown's are source lines) that the sanitized frame cannot
 * point at. */
function ArtifactViewer({ artifact, active, focus }: { artifact: ArtifactTab; active: boolean; focus: Focus | null }) {
  const id = artifact.artifact_id;
  switch (artifact.viewer) {
    case "html":
    case "markdown":
      return <DocumentViewer src={artifactViewUrl(id, "sanitized")} title={artifact.name} />;
    case "pdf":
      return <PdfViewer id={id} name={artifact.name} active={active} focus={focus} />;
    case "json":
      return <JsonViewer id={id} focus={focus} />;
    case "csv":
      return <CsvViewer id={id} focus={focus} />;
    case "code":
    case "text":
      return <CodeViewer id={id} name={artifact.name} mime={artifact.mime} focus={focus} />;
    case "audio":
      return (
        <figure className="audio-viewer">
          <audio controls src={artifactUrl(id)} />
          <figcaption>{artifact.name}</figcaption>
        </figure>
      );
    case "file":
      return <FileViewer id={id} name={artifact.name} mime={artifact.mime} />;
    case "image":
      return <ImageViewer id={id} name={artifact.name} mime={artifact.mime} active={active} />;
  }
  // A viewer this build does not know (a newer backend): the file's facts and actions.
  return <FileViewer id={id} name={artifact.name} mime={artifact.mime} />;
}

function EmptyCanvas() {
  return (
    <div className="empty-hint canvas-empty">
      <h2>The canvas is empty</h2>
      <p>What tools return — charts, documents, reports — opens here in tabs, stored on this machine and kept out of the model's context.</p>
    </div>
  );
}
