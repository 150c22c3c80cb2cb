import { artifactUrl, artifactViewUrl } from "../ipc";
import { ImageViewer } from "../viewers/ImageViewer";
import { DashboardViewer } from "../viewers/DashboardViewer";
import { FileViewer } from "../viewers/FileViewer";
import { displayOrigin } from "../viewers/dashboard";
import { PdfViewer } from "../viewers/PdfViewer";
import { CodeViewer, CsvViewer, DocumentViewer, JsonViewer } from "../viewers/TextViewers";
import type { ArtifactTab } from "../wire/ArtifactTab";
import type { CanvasIntent } from "../wire/CanvasIntent";
import type { CanvasPane } from "../wire/CanvasPane";
import type { CanvasTab } from "../wire/CanvasTab";
import type { CanvasView } from "../wire/CanvasView";

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
  return (
    <div className="panes">
      {view.panes.map((pane) => (
        <Pane key={pane.id} pane={pane} active={pane.id === view.active_pane} multiple={view.panes.length > 1} send={send} />
      ))}
    </div>
  );
}

function Pane({ pane, active, multiple, send }: { pane: CanvasPane; active: boolean; multiple: boolean; send: Props["send"] }) {
  const current = pane.tabs.find((t) => t.id === pane.active_tab) ?? null;
  return (
    <section
      className={`canvas pane${active ? " active" : ""}`}
      data-pane={pane.id}
      onMouseDown={() => !active && send({ intent: "focus_pane", pane: pane.id })}
    >
      <div className="tab-strip" role="tablist">
        {pane.tabs.map((tab) => (
          <div key={tab.id} className={`tab${tab.id === pane.active_tab ? " active" : ""}${tab.pinned ? " pinned" : ""}`} role="tab" aria-selected={tab.id === pane.active_tab}>
            <button type="button" className="tab-label" onClick={() => send({ intent: "activate_tab", tab: tab.id })} title={tabTitle(tab)}>
              {tab.pinned ? "📌 " : ""}
              {tab.label}
            </button>
            <button type="button" className="tab-close" aria-label={`Close ${tab.label}`} onClick={() => send({ intent: "close_tab", tab: tab.id })}>
              ×
            </button>
          </div>
        ))}
        {multiple ? (
          <button type="button" className="pane-close" aria-label="Close this pane" onClick={() => send({ intent: "close_pane", pane: pane.id })}>
            ⊟
          </button>
        ) : null}
      </div>
      <div className="viewer">{current ? <TabViewer tab={current} active={active} /> : <EmptyCanvas />}</div>
    </section>
  );
}

function tabTitle(tab: CanvasTab): string {
  return tab.content.kind === "artifact" ? `${tab.content.name} · ${tab.content.mime}` : `${tab.content.title ?? "Dashboard"} · ${displayOrigin(tab.content.url)}`;
}

/** `active`: the tab is on screen in the focused pane (zoom shortcuts go to it). */
function TabViewer({ tab, active }: { tab: CanvasTab; active: boolean }) {
  if (tab.content.kind === "dashboard") {
    return <DashboardViewer tab={tab} dashboard={tab.content} />;
  }
  return <ArtifactViewer key={tab.content.artifact_id} artifact={tab.content} active={active} />;
}

function ArtifactViewer({ artifact, active }: { artifact: ArtifactTab; active: boolean }) {
  const id = artifact.artifact_id;
  switch (artifact.viewer) {
    case "html":
    case "markdown":
      return <DocumentViewer src={artifactViewUrl(id, "sanitized")} title={artifact.name} />;
    case "pdf":
      return <PdfViewer id={id} name={artifact.name} active={active} />;
    case "json":
      return <JsonViewer id={id} />;
    case "csv":
      return <CsvViewer id={id} />;
    case "code":
    case "text":
      return <CodeViewer id={id} name={artifact.name} mime={artifact.mime} />;
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
