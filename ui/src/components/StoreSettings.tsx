import { useEffect, useState, type FormEvent } from "react";
import { errorText, storeSetPassword, storeSettingsSet, storeSettingsView, teamStatus } from "../ipc";
import type { StoreSettings as Store } from "../wire/StoreSettings";
import type { TeamStatus } from "../wire/TeamStatus";
import { teamStatusDetails, teamStatusText } from "../browser/team";

const GIB = 1024 * 1024 * 1024;

/** Settings → Storage: this machine only, or a team's S3-compatible bucket and PostgreSQL
 * catalog (`[store]` in settings.toml; applied at the next start). Credentials never go in the
 * file: the bucket's come from the AWS environment or profile, the catalog's password goes to the
 * OS keyring from here. */
export function StoreSettings() {
  const [saved, setSaved] = useState<Store | null>(null);
  const [draft, setDraft] = useState<Store | null>(null);
  const [status, setStatus] = useState<TeamStatus | null>(null);
  const [password, setPassword] = useState("");
  const [notice, setNotice] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [cacheText, setCacheText] = useState<string | null>(null);

  useEffect(() => {
    storeSettingsView().then(
      (s) => {
        setSaved(s);
        setDraft(s);
      },
      (e) => setNotice({ kind: "error", text: errorText(e) }),
    );
    teamStatus().then(setStatus, () => undefined);
  }, []);

  if (!draft || !saved) return notice ? <p className="error settings-error">{notice.text}</p> : <p className="muted small">Loading…</p>;

  const field = (key: "s3_url" | "s3_endpoint" | "s3_region" | "catalog_url" | "team", label: string, placeholder: string, hint: string) => (
    <label className="field">
      <span>{label}</span>
      <input
        className="arguments"
        name={`store.${key}`}
        value={draft[key] ?? ""}
        placeholder={placeholder}
        spellCheck={false}
        onChange={(e) => setDraft({ ...draft, [key]: e.target.value.trim() === "" ? null : e.target.value.trim() })}
      />
      <small className="muted">{hint}</small>
    </label>
  );

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!draft) return;
    setBusy(true);
    try {
      const stored = await storeSettingsSet(draft);
      setSaved(stored);
      setDraft(stored);
      if (password) {
        await storeSetPassword(password);
        setPassword("");
      }
      setNotice({ kind: "ok", text: "Saved. Restart MCP Canvas to use this store." });
    } catch (e) {
      setNotice({ kind: "error", text: errorText(e) });
    } finally {
      setBusy(false);
    }
  }

  const team = draft.backend === "team";
  return (
    <form className="general-settings store-settings" onSubmit={(e) => void save(e)}>
      <h3>Where artifacts live</h3>
      <div className="field store-backend" role="radiogroup" aria-label="Artifact store">
        <label className="browser-check">
          <input type="radio" name="store.backend" checked={!team} onChange={() => setDraft({ ...draft, backend: "local" })} />
          This machine only
        </label>
        <label className="browser-check">
          <input type="radio" name="store.backend" checked={team} onChange={() => setDraft({ ...draft, backend: "team" })} />
          A team store: bytes in an S3-compatible bucket, the catalog in PostgreSQL
        </label>
      </div>
      {team ? (
        <>
          {field("team", "Team", "analytics", "Artifacts are shared within this team.")}
          {field("s3_url", "Bucket", "s3://bucket/prefix", "Keys come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE, never from this file.")}
          {field("s3_endpoint", "Endpoint", "https://<account>.r2.cloudflarestorage.com", "Empty for AWS S3; R2, MinIO, Garage… give theirs.")}
          {field("s3_region", "Region", "us-east-1", "Empty: $AWS_REGION, else us-east-1 (R2: auto).")}
          {field("catalog_url", "Catalog", "postgres://user@host:5432/canvas", "PostgreSQL, without a password.")}
          <label className="field">
            <span>Catalog password</span>
            <input type="password" className="arguments" name="store.password" value={password} autoComplete="off" placeholder="(unchanged)" onChange={(e) => setPassword(e.target.value)} />
            <small className="muted">Kept in the OS keyring (or set MCP_CANVAS_CATALOG_PASSWORD); never shown again.</small>
          </label>
          <label className="field">
            <span>Local cache (GiB)</span>
            <input
              className="arguments"
              name="store.cache_quota_bytes"
              inputMode="decimal"
              value={cacheText ?? String(Math.round((draft.cache_quota_bytes / GIB) * 100) / 100)}
              onBlur={() => setCacheText(null)}
              onChange={(e) => {
                setCacheText(e.target.value);
                const gib = Number(e.target.value);
                // An empty or zero field would evict the whole cache: ignored.
                if (e.target.value.trim() !== "" && Number.isFinite(gib) && gib > 0) setDraft({ ...draft, cache_quota_bytes: Math.round(gib * GIB) });
              }}
            />
            <small className="muted">Team files opened here are kept up to this size; files not uploaded yet are never evicted.</small>
          </label>
          <label className="field">
            <span>Team retention (days)</span>
            <input
              className="arguments"
              name="store.retention_days"
              inputMode="numeric"
              value={draft.retention_days ?? ""}
              placeholder="(kept)"
              onChange={(e) => {
                const text = e.target.value.trim();
                const days = Number(text);
                // Not a whole number of days: the field keeps what it had.
                if (text === "") setDraft({ ...draft, retention_days: null });
                else if (Number.isInteger(days) && days > 0) setDraft({ ...draft, retention_days: days });
              }}
            />
            <small className="muted">The team's unpinned files unused this long are removed by the apps' own retention (one member's app at a time, every 6 hours). Empty: kept. What interrupted uploads left is cleaned up either way.</small>
          </label>
        </>
      ) : null}
      {status ? (
        <p className="muted small store-status" title={teamStatusDetails(status).join("\n")}>
          Now: {teamStatusText(status)}
        </p>
      ) : null}
      <div className="settings-actions">
        <button type="submit" disabled={busy || (JSON.stringify(draft) === JSON.stringify(saved) && !password)}>
          {busy ? "Saving…" : "Save storage settings"}
        </button>
      </div>
      {notice ? (
        <p className={notice.kind === "error" ? "error small" : "muted small"} role={notice.kind === "error" ? "alert" : "status"}>
          {notice.text}
        </p>
      ) : null}
    </form>
  );
}
