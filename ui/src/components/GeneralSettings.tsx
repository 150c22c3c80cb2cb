import { useEffect, useState, type KeyboardEvent } from "react";
import { errorText, settingsSet, settingsView } from "../ipc";
import type { SettingsView } from "../wire/SettingsView";
import type { Theme } from "../wire/Theme";

const GIB = 1024 * 1024 * 1024;

/** Identity, storage limits and display settings (`settings.toml`, shared with the CLI). */
export function GeneralSettings() {
  const [view, setView] = useState<SettingsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    settingsView().then(setView, (e) => setError(errorText(e)));
  }, []);

  async function set(key: string, value: string | null) {
    try {
      setView(await settingsSet(key, value));
      setError(null);
      setSaved(key);
    } catch (e) {
      setError(errorText(e));
      setSaved(null);
    }
  }

  if (!view) return error ? <p className="error settings-error">{error}</p> : <p className="muted small">Loading…</p>;
  return (
    <section className="general-settings">
      <h3>You</h3>
      <CommitField
        label="Local identity"
        hint="Sent to tools that take a username — never what a model says."
        value={view.username}
        onCommit={(v) => void set("identity.username", v)}
        name="identity.username"
      />
      <h3>Storage</h3>
      <CommitField
        label="Quota (GiB)"
        hint="Beyond it, unpinned artifacts go, least recently used first."
        value={String(Math.round((view.quota_bytes / GIB) * 100) / 100)}
        onCommit={(v) => void set("artifacts.quota_bytes", gibToBytes(v))}
        name="artifacts.quota_bytes"
        inputMode="decimal"
      />
      <CommitField
        label="Remove unused artifacts after (days)"
        hint="Empty: keep them until the quota needs the room."
        value={view.max_age_days === null ? "" : String(view.max_age_days)}
        onCommit={(v) => void set("artifacts.max_age_days", v.trim() === "" ? null : v)}
        name="artifacts.max_age_days"
        inputMode="numeric"
      />
      <CommitField
        label="Clear idle sessions after (days)"
        hint="A session's unpinned artifacts are cleared at start once it has been idle this long."
        value={String(view.session_retention_days)}
        onCommit={(v) => void set("artifacts.session_retention_days", v)}
        name="artifacts.session_retention_days"
        inputMode="numeric"
      />
      <h3>Display</h3>
      <label className="field">
        <span>Theme</span>
        <select className="settings-theme" value={view.theme} onChange={(e) => void set("appearance.theme", e.target.value as Theme)}>
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <label className="checkbox-field">
        <input type="checkbox" className="settings-remote-images" checked={view.allow_remote_images} onChange={(e) => void set("render.allow_remote_images", String(e.target.checked))} />
        <span>Load remote images in HTML artifacts (they can tell a server you opened the file)</span>
      </label>
      {error ? <p className="error settings-error">{error}</p> : saved ? <p className="muted small settings-saved">Saved.</p> : null}
      <p className="muted small">
        Data in <code>{view.data_dir}</code> (start with <code>--data-dir</code> or <code>MCP_CANVAS_DATA_DIR</code> to use another); settings in{" "}
        <code>{view.file}</code>, also changed by <code>mcp-canvas-cli settings set</code>.
      </p>
    </section>
  );
}

/** "1.5" GiB → bytes as text; anything else is passed on for Rust to refuse with its reason. */
export function gibToBytes(text: string): string {
  const gib = Number(text.trim());
  return Number.isFinite(gib) && gib >= 0 && text.trim() !== "" ? String(Math.round(gib * GIB)) : text;
}

/** A text field that saves on Enter or when it loses focus, if it changed. */
function CommitField(props: { label: string; hint: string; value: string; name: string; inputMode?: "numeric" | "decimal"; onCommit: (value: string) => void }) {
  const [draft, setDraft] = useState(props.value);
  useEffect(() => setDraft(props.value), [props.value]);
  const commit = () => {
    if (draft !== props.value) props.onCommit(draft);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") commit();
    if (e.key === "Escape") setDraft(props.value);
  };
  return (
    <label className="field">
      <span>{props.label}</span>
      <input className="arguments" data-setting={props.name} value={draft} inputMode={props.inputMode} onChange={(e) => setDraft(e.target.value)} onBlur={commit} onKeyDown={onKey} spellCheck={false} />
      <small className="muted">{props.hint}</small>
    </label>
  );
}
