import { useEffect, useState, type FormEvent } from "react";
import { allowlistChanged, onAllowlistChange } from "../allowlistEvents";
import { allowlistAdd, allowlistRemove, allowlistView, errorText } from "../ipc";
import type { AllowlistView } from "../wire/AllowlistView";
import { GeneralSettings } from "./GeneralSettings";
import { SamplingSettings } from "./sampling/SamplingSettings";
import { StoreSettings } from "./StoreSettings";

/** Settings: identity, storage, display, sampling providers and policies, and the dashboard origin allowlist (`settings.toml`). */
export function SettingsPanel({ onClose }: { onClose: () => void }) {
  const [view, setView] = useState<AllowlistView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const load = () => allowlistView().then(setView, (e) => setError(errorText(e)));
    load();
    return onAllowlistChange(load);
  }, []);

  async function change(action: () => Promise<AllowlistView>): Promise<boolean> {
    setBusy(true);
    setError(null);
    try {
      setView(await action());
      allowlistChanged();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    } finally {
      setBusy(false);
    }
  }

  async function add(event: FormEvent) {
    event.preventDefault();
    const origin = draft.trim();
    if (origin && (await change(() => allowlistAdd(origin, null)))) setDraft("");
  }

  return (
    <div className="tool-panel settings-panel">
      <header className="settings-header">
        <div>
          <p className="eyebrow">Settings</p>
          <h2>Settings</h2>
        </div>
        <button type="button" className="secondary settings-close" onClick={onClose}>
          Close
        </button>
      </header>
      <GeneralSettings />
      <StoreSettings />
      <SamplingSettings />
      <h3>Dashboard origins</h3>
      <p className="description">
        Tools can open live dashboards in the canvas. A dashboard loads only when its origin — scheme, host and port — is on this list; anything else shows
        a refusal with an “Allow” button. Plain <code>http</code> is accepted for <code>127.0.0.1</code> and <code>localhost</code> only.
      </p>
      {view === null && !error ? <p className="muted small">Loading…</p> : null}
      {view ? (
        view.origins.length === 0 ? (
          <p className="muted small allowlist-empty">No origins allowed yet: every dashboard shows a refusal until you allow its origin.</p>
        ) : (
          <ul className="allowlist">
            {view.origins.map((origin) => (
              <li key={origin} data-origin={origin}>
                <code>{origin}</code>
                <button type="button" className="secondary allowlist-remove" disabled={busy} onClick={() => void change(() => allowlistRemove(origin))}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )
      ) : null}
      {view && view.ignored.length > 0 ? (
        <div className="warnings">
          Entries in settings.toml that are not origins (they allow nothing):
          <ul>
            {view.ignored.map((entry) => (
              <li key={entry.entry}>
                <code>{entry.entry}</code>: {entry.reason}{" "}
                <button type="button" className="secondary allowlist-remove" disabled={busy} onClick={() => void change(() => allowlistRemove(entry.entry))}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <form className="allowlist-form" onSubmit={(e) => void add(e)}>
        <label className="field">
          <span>Allow an origin</span>
          <input
            className="arguments allowlist-input"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="https://dashboards.example.com"
            spellCheck={false}
          />
        </label>
        <button type="submit" className="primary allowlist-add" disabled={busy || draft.trim() === ""}>
          Add
        </button>
      </form>
      {error ? <p className="error allowlist-error">{error}</p> : null}
      {view ? <p className="muted small">Stored in <code>{view.settings_path}</code>; also editable with <code>mcp-canvas-cli allowlist</code>.</p> : null}
    </div>
  );
}
