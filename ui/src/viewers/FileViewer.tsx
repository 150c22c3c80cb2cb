import { useEffect, useState } from "react";
import { artifactOpenExternal, artifactRecord, artifactSaveAs, errorText } from "../ipc";
import { formatBytes, typeLabel } from "../browser/filters";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import "./viewers.css";

type Notice = { kind: "ok" | "error"; text: string } | null;

/** A file no viewer shows (a spreadsheet, an archive, a video…): what it is, where it came from,
 * "Save as…" (a native dialog opened by the backend) and "Open with the system application" (a
 * private copy; the backend refuses programs and active content). */
export function FileViewer({ id, name, mime }: { id: string; name: string; mime: string }) {
  const [record, setRecord] = useState<ArtifactRecord | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  useEffect(() => {
    let live = true;
    artifactRecord(id).then(
      (r) => live && setRecord(r),
      (e) => live && setLoadError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [id]);

  const run = async (action: () => Promise<Notice>) => {
    setBusy(true);
    setNotice(null);
    try {
      setNotice(await action());
    } catch (e) {
      setNotice({ kind: "error", text: errorText(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="file-viewer">
      <div className="file-card">
        <span className="file-icon" aria-hidden="true">
          {typeLabel({ name, mime })}
        </span>
        <h3 className="file-name">{name}</h3>
        <p className="muted small">No viewer in MCP Canvas shows this type. Save a copy, or open it with the application your system uses for it.</p>
        <dl className="file-facts">
          <dt>Type</dt>
          <dd>{mime}</dd>
          {record ? (
            <>
              <dt>Size</dt>
              <dd>
                {formatBytes(record.size)} ({record.size.toLocaleString()} bytes)
              </dd>
              <dt>From</dt>
              <dd>
                {record.server} / {record.tool}
              </dd>
              <dt>Stored</dt>
              <dd>{new Date(record.created_at_ms).toLocaleString()}</dd>
              {record.description ? (
                <>
                  <dt>Description</dt>
                  <dd>{record.description}</dd>
                </>
              ) : null}
              <dt>Kept</dt>
              <dd>{record.persistence === "pinned" ? "Pinned: kept until you unpin or delete it" : "With its session (pin it in Files to keep it)"}</dd>
              <dt>SHA-256</dt>
              <dd>
                <code className="file-hash">{record.sha256}</code>
              </dd>
            </>
          ) : null}
          <dt>Reference</dt>
          <dd>
            <code>{id}</code>
          </dd>
        </dl>
        {loadError ? <p className="error small">{loadError}</p> : null}
        <div className="file-actions">
          <button type="button" className="primary file-save" disabled={busy} onClick={() => run(async () => {
            const path = await artifactSaveAs(id);
            return path ? { kind: "ok", text: `Saved to ${path}` } : null;
          })}>
            Save as…
          </button>
          <button type="button" className="secondary file-open-external" disabled={busy} onClick={() => run(async () => {
            const path = await artifactOpenExternal(id);
            return { kind: "ok", text: `Opened a copy (${path}) with the system application.` };
          })}>
            Open with the system application
          </button>
        </div>
        {notice ? (
          <p className={`file-notice ${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"}>
            {notice.text}
          </p>
        ) : null}
      </div>
    </div>
  );
}
