import { useEffect, useState } from "react";
import { allowlistChanged, onAllowlistChange } from "../allowlistEvents";
import { allowlistAdd, dashboardAccess, errorText } from "../ipc";
import type { CanvasTab } from "../wire/CanvasTab";
import type { DashboardAccess } from "../wire/DashboardAccess";
import type { DashboardTab } from "../wire/DashboardTab";
import { displayOrigin, restoredWithoutToken } from "./dashboard";

type State = { kind: "checking" } | { kind: "decided"; access: DashboardAccess } | { kind: "failed"; error: string };

/**
 * A live dashboard (000 §3). Rust decides whether its origin is on the allowlist; only then is
 * the iframe rendered, with the URL Rust gives. The frame is sandboxed with scripts only: no
 * same-origin (an opaque origin: no cookies or storage, no access to the app), no top
 * navigation, no popups, no downloads, no forms; no referrer is sent.
 */
export function DashboardViewer({ tab, dashboard }: { tab: CanvasTab; dashboard: DashboardTab }) {
  const [state, setState] = useState<State>({ kind: "checking" });
  const [version, setVersion] = useState(0);

  useEffect(() => onAllowlistChange(() => setVersion((v) => v + 1)), []);

  // Ask again when the tab is updated (same id, new URL or token) or the allowlist changes.
  useEffect(() => {
    let live = true;
    dashboardAccess(tab.id).then(
      (access) => live && setState({ kind: "decided", access }),
      (error) => live && setState({ kind: "failed", error: errorText(error) }),
    );
    return () => {
      live = false;
    };
  }, [tab.id, dashboard.url, dashboard.token, version]);

  const title = dashboard.title ?? tab.label;
  return (
    <div className="dashboard-viewer" data-dashboard={dashboard.dashboard_id}>
      {restoredWithoutToken(tab, dashboard) ? (
        <p className="dashboard-note">Restored from an earlier session without its access token (tokens are never saved). Call the tool again for a fresh view.</p>
      ) : null}
      {state.kind === "checking" ? <p className="viewer-status muted">Checking {displayOrigin(dashboard.url)}…</p> : null}
      {state.kind === "failed" ? <p className="viewer-status error">{state.error}</p> : null}
      {state.kind === "decided" && state.access.status === "allowed" ? (
        <iframe
          key={state.access.src}
          className="dashboard-frame"
          title={title}
          src={state.access.src}
          sandbox="allow-scripts"
          referrerPolicy="no-referrer"
          data-origin={state.access.origin}
        />
      ) : null}
      {state.kind === "decided" && state.access.status === "refused" ? (
        <Refusal tab={tab} title={title} access={state.access} />
      ) : null}
    </div>
  );
}

function Refusal({ tab, title, access }: { tab: CanvasTab; title: string; access: Extract<DashboardAccess, { status: "refused" }> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const origin = access.origin;

  async function allow() {
    if (!origin) return;
    setBusy(true);
    setError(null);
    try {
      await allowlistAdd(origin, tab.id);
      setConfirming(false);
      allowlistChanged();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="dashboard-refusal" role="alert">
      <h3>Dashboard blocked</h3>
      {origin ? (
        <p>
          <strong>{title}</strong> is a live page from <code className="dashboard-origin">{origin}</code>, which is not on your list of allowed dashboard
          origins, so it was not loaded.
        </p>
      ) : (
        <p>
          <strong>{title}</strong> cannot be shown.
        </p>
      )}
      {access.can_allow ? null : <p className="small muted dashboard-reason">{access.reason}</p>}
      {access.can_allow && origin && !confirming ? (
        <button type="button" className="primary dashboard-allow" onClick={() => setConfirming(true)}>
          Allow {origin}
        </button>
      ) : null}
      {confirming && origin ? (
        <div className="confirm dashboard-confirm">
          <p>
            Allow dashboards from <code>{origin}</code>? Its pages will run their scripts here, in a sandboxed frame: they cannot reach MCP Canvas or
            your files, open windows, download files or navigate the app. You can remove the origin in Settings at any time.
          </p>
          <div className="confirm-actions">
            <button type="button" className="primary dashboard-allow-confirm" disabled={busy} onClick={() => void allow()}>
              Allow {origin}
            </button>
            <button type="button" className="secondary dashboard-allow-cancel" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {error ? <p className="error">{error}</p> : null}
    </div>
  );
}
