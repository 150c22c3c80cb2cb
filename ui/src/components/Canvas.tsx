import { artifactUrl } from "../ipc";
import type { OutcomeArtifact } from "../wire/OutcomeArtifact";

interface Props {
  tabs: OutcomeArtifact[];
  activeTab: string | null;
  onActivate: (id: string) => void;
  onClose: (id: string) => void;
}

export function Canvas({ tabs, activeTab, onActivate, onClose }: Props) {
  const active = tabs.find((t) => t.id === activeTab) ?? null;
  return (
    <div className="canvas">
      <div className="tab-strip" role="tablist">
        {tabs.map((tab) => (
          <div key={tab.id} className={`tab${tab.id === activeTab ? " active" : ""}`} role="tab" aria-selected={tab.id === activeTab}>
            <button type="button" className="tab-label" onClick={() => onActivate(tab.id)} title={`${tab.name} · ${tab.mime}`}>
              {tab.name}
            </button>
            <button type="button" className="tab-close" aria-label={`Close ${tab.name}`} onClick={() => onClose(tab.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
      <div className="viewer">{active ? <Viewer artifact={active} /> : <EmptyCanvas />}</div>
    </div>
  );
}

function Viewer({ artifact }: { artifact: OutcomeArtifact }) {
  if (artifact.viewer === "image") {
    return (
      <figure className="image-viewer">
        <img className="artifact-image" src={artifactUrl(artifact.id)} alt={artifact.name} data-artifact={artifact.id} />
        <figcaption>
          {artifact.name} · {artifact.mime} · {formatSize(artifact.size)}
          {artifact.width && artifact.height ? ` · ${artifact.width}×${artifact.height}` : ""} · <code>{artifact.id}</code>
        </figcaption>
      </figure>
    );
  }
  return (
    <div className="unsupported">
      <h3>{artifact.name}</h3>
      <p>
        Stored as <code>{artifact.id}</code> ({artifact.mime}, {formatSize(artifact.size)}). {artifact.viewer ? `Its ${artifact.viewer} viewer arrives soon.` : "This kind of file cannot be shown."}
      </p>
    </div>
  );
}

function EmptyCanvas() {
  return (
    <div className="empty-hint canvas-empty">
      <h2>The canvas is empty</h2>
      <p>What tools return — charts, documents, reports — opens here in tabs, stored on this machine and kept out of the model's context.</p>
    </div>
  );
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
