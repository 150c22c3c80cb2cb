import { useEffect, useState } from "react";
import { errorText, listServers, samplingSetKey, samplingSettingsSet, samplingSettingsView } from "../../ipc";
import type { PolicyMode } from "../../wire/PolicyMode";
import type { ProviderKind } from "../../wire/ProviderKind";
import type { SamplingSettings as Settings } from "../../wire/SamplingSettings";
import type { ServerPolicy } from "../../wire/ServerPolicy";
import { newProvider, ProviderEditor } from "./ProviderEditor";

const POLICY_WORDS: Record<PolicyMode, string> = { ask: "Ask me each time", always: "Answer without asking", never: "Refuse" };

/** A choice among the configured providers, or `fallback` (none chosen). */
function ProviderSelect(props: { names: string[]; value?: string; fallback: string; label?: string; onChange: (provider: string | undefined) => void }) {
  return (
    <select aria-label={props.label} value={props.value ?? ""} onChange={(e) => props.onChange(e.target.value || undefined)}>
      <option value="">{props.fallback}</option>
      {props.names.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}

/** `policy` without its empty fields; `null` when nothing is left (the server follows the defaults). */
export function trimPolicy(policy: ServerPolicy): ServerPolicy | null {
  const out: ServerPolicy = { tools: policy.tools, review: policy.review };
  if (policy.policy) out.policy = policy.policy;
  if (policy.provider) out.provider = policy.provider;
  if (policy.model) out.model = policy.model;
  if (policy.max_tokens !== undefined) out.max_tokens = policy.max_tokens;
  if (policy.requests_per_minute !== undefined) out.requests_per_minute = policy.requests_per_minute;
  const empty = Object.keys(out).length === 2 && out.tools && !out.review;
  return empty ? null : out;
}

/**
 * Settings → Sampling: the providers that answer servers' LLM requests, the default policy, and
 * each server's own (ask / always / never, provider, model, token cap, tools, review). Edited as
 * a draft and saved whole into `[sampling]` of settings.toml; Rust refuses a draft with problems.
 */
export function SamplingSettings() {
  const [saved, setSaved] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Settings | null>(null);
  const [servers, setServers] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [adding, setAdding] = useState<ProviderKind>("openai");

  useEffect(() => {
    samplingSettingsView().then(
      (s) => {
        setSaved(s);
        setDraft(s);
      },
      (e) => setError(errorText(e)),
    );
    listServers().then((list) => setServers(list.map((s) => s.name)), () => undefined);
  }, []);

  if (!draft || !saved) return error ? <p className="error sampling-settings-error">{error}</p> : <p className="muted small">Loading…</p>;
  const dirty = JSON.stringify(draft) !== JSON.stringify(saved);
  const names = draft.providers.map((p) => p.name);

  async function run(action: () => Promise<Settings>, done: string): Promise<Settings | null> {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const result = await action();
      setSaved(result);
      setNote(done);
      return result;
    } catch (e) {
      setError(errorText(e));
      return null;
    } finally {
      setBusy(false);
    }
  }

  const save = () => void run(() => samplingSettingsSet(draft), "Saved: in effect from the next request.").then((result) => result && setDraft(result));
  const setPolicy = (server: string, patch: Partial<ServerPolicy>) => {
    const next = trimPolicy({ ...(draft.servers[server] ?? { tools: true, review: false }), ...patch });
    const servers = { ...draft.servers };
    if (next) servers[server] = next;
    else delete servers[server];
    setDraft({ ...draft, servers });
  };

  return (
    <section className="sampling-settings">
      <h3>Sampling: servers&apos; LLM requests</h3>
      <p className="description">
        Some servers ask the host for an LLM completion while a tool runs. MCP Canvas answers with your model: add a provider, then choose per server whether
        to ask you each time (you see, edit or reject every request), answer without asking, or refuse. Keys live in the OS keyring or an environment
        variable, never in settings.toml.
      </p>
      <div className="sampling-grid">
        <label className="field">
          <span>Default for servers</span>
          <select className="sampling-default-policy" value={draft.policy} onChange={(e) => setDraft({ ...draft, policy: e.target.value as PolicyMode })}>
            {Object.entries(POLICY_WORDS).map(([mode, words]) => (
              <option key={mode} value={mode}>
                {words}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Default provider</span>
          <ProviderSelect names={names} value={draft.provider} fallback={`The first one (${names[0] ?? "none yet"})`} onChange={(provider) => setDraft({ ...draft, provider })} />
        </label>
        <label className="field">
          <span>Requests a minute, per server</span>
          <input className="arguments" inputMode="numeric" value={draft.requests_per_minute} onChange={(e) => setDraft({ ...draft, requests_per_minute: Math.max(0, Math.round(Number(e.target.value) || 0)) })} />
        </label>
      </div>
      <h4>Providers</h4>
      {draft.providers.length === 0 ? <p className="muted small sampling-no-provider">No provider yet: servers that ask for completions are told to set one up here.</p> : null}
      {draft.providers.map((provider, i) => (
        <ProviderEditor
          key={i}
          provider={provider}
          saved={saved.providers.some((p) => p.name === provider.name)}
          busy={busy}
          onChange={(p) => setDraft({ ...draft, providers: draft.providers.map((q, j) => (j === i ? p : q)) })}
          onRemove={() => setDraft({ ...draft, providers: draft.providers.filter((_, j) => j !== i) })}
          onKey={(key) =>
            run(() => samplingSetKey(provider.name, key), key ? `The key of ${provider.name} is in the OS keyring.` : `The key of ${provider.name} was removed.`).then((result) => {
              const ok = result !== null;
              if (ok) setDraft({ ...draft, providers: draft.providers.map((q, j) => (j === i ? { ...q, api_key_keyring: key !== null, api_key_env: key !== null ? undefined : q.api_key_env } : q)) });
              return ok;
            })
          }
        />
      ))}
      <div className="sampling-add">
        <select className="sampling-add-kind" value={adding} onChange={(e) => setAdding(e.target.value as ProviderKind)} aria-label="Kind of provider to add">
          <option value="openai">OpenAI-compatible</option>
          <option value="anthropic">Anthropic</option>
          <option value="ollama">Ollama</option>
        </select>
        <button type="button" className="secondary sampling-add-provider" onClick={() => setDraft({ ...draft, providers: [...draft.providers, newProvider(adding, names)] })}>
          Add provider
        </button>
      </div>
      <h4>Per server</h4>
      <ul className="sampling-servers">
        {[...new Set([...servers, ...Object.keys(draft.servers)])].map((server) => {
          const own = draft.servers[server] ?? { tools: true, review: false };
          return (
            <li key={server} className="sampling-server" data-server={server}>
              <strong>{server}</strong>
              <div className="sampling-server-fields">
                <label className="field">
                  <span>Policy</span>
                  <select className="sampling-server-policy" aria-label={`Sampling policy for ${server}`} value={own.policy ?? ""} onChange={(e) => setPolicy(server, { policy: (e.target.value || undefined) as PolicyMode | undefined })}>
                    <option value="">Default ({draft.policy})</option>
                    {Object.keys(POLICY_WORDS).map((mode) => (
                      <option key={mode} value={mode}>
                        {mode}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="field">
                  <span>Provider</span>
                  <ProviderSelect names={names} value={own.provider} fallback="Default" label={`Provider for ${server}`} onChange={(provider) => setPolicy(server, { provider })} />
                </label>
                <label className="field">
                  <span>Model</span>
                  <input className="arguments" aria-label={`Model for ${server}`} value={own.model ?? ""} placeholder="the provider's first" onChange={(e) => setPolicy(server, { model: e.target.value.trim() || undefined })} />
                </label>
                <label className="field">
                  <span>Max tokens</span>
                  <input
                    className="arguments sampling-server-max-tokens"
                    aria-label={`Max tokens for ${server}`}
                    inputMode="numeric"
                    value={own.max_tokens ?? ""}
                    placeholder="the provider's cap"
                    onChange={(e) => setPolicy(server, { max_tokens: e.target.value.trim() === "" ? undefined : Math.max(1, Math.round(Number(e.target.value) || 1)) })}
                  />
                </label>
              </div>
              <label className="checkbox-field">
                <input type="checkbox" aria-label={`Offer tools to ${server}`} checked={own.tools} onChange={(e) => setPolicy(server, { tools: e.target.checked })} />
                <span>Offer sampling with tools (off for strict servers that break on it)</span>
              </label>
              <label className="checkbox-field">
                <input type="checkbox" aria-label={`Review completions for ${server}`} checked={own.review} onChange={(e) => setPolicy(server, { review: e.target.checked })} />
                <span>Show me each completion before it goes back</span>
              </label>
            </li>
          );
        })}
      </ul>
      <div className="sampling-save">
        <button type="button" className="primary sampling-settings-save" disabled={busy || !dirty} onClick={save}>
          Save sampling settings
        </button>
        <button type="button" className="secondary" disabled={busy || !dirty} onClick={() => setDraft(saved)}>
          Undo changes
        </button>
      </div>
      {error ? <p className="error sampling-settings-error">{error}</p> : note ? <p className="muted small sampling-settings-saved">{note}</p> : null}
    </section>
  );
}
