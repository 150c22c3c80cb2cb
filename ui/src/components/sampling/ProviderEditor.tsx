import { useEffect, useState } from "react";
import type { ProviderConfig } from "../../wire/ProviderConfig";
import type { ProviderKind } from "../../wire/ProviderKind";
import type { StructuredMode } from "../../wire/StructuredMode";

/** Where each kind usually listens, and the model to start from. */
const PRESETS: Record<ProviderKind, { base_url: string; model: string; structured: StructuredMode }> = {
  openai: { base_url: "http://127.0.0.1:8080/v1", model: "local-model", structured: "json_object_schema" },
  anthropic: { base_url: "https://api.anthropic.com", model: "claude-sonnet-4-5", structured: "native" },
  ollama: { base_url: "http://127.0.0.1:11434", model: "llama3.2", structured: "native" },
};

/** A new provider of `kind` with a name not yet taken. */
export function newProvider(kind: ProviderKind, taken: string[]): ProviderConfig {
  let name: string = kind;
  for (let n = 2; taken.includes(name); n++) name = `${kind}-${n}`;
  const preset = PRESETS[kind];
  return {
    name,
    kind,
    base_url: preset.base_url,
    models: [preset.model],
    max_tokens: 1024,
    vision: false,
    tools: true,
    structured: preset.structured,
    api_key_keyring: false,
    timeout_seconds: 120,
  };
}

/** "a, b ,,c" → ["a", "b", "c"]. */
export function parseModels(text: string): string[] {
  return text
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
}

type KeySource = "none" | "env" | "keyring";
const keySource = (p: ProviderConfig): KeySource => (p.api_key_env !== undefined ? "env" : p.api_key_keyring ? "keyring" : "none");

interface Props {
  provider: ProviderConfig;
  /** Whether this provider is saved (a key can be stored only for a saved provider). */
  saved: boolean;
  busy: boolean;
  onChange: (provider: ProviderConfig) => void;
  onRemove: () => void;
  /** Stores the key in the OS keyring (null removes it). */
  onKey: (key: string | null) => Promise<boolean>;
}

const num = (text: string, fallback: number) => {
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : fallback;
};

/** One `[[sampling.providers]]` entry: where it is, its models and caps, and where its key is. */
export function ProviderEditor({ provider, saved, busy, onChange, onRemove, onKey }: Props) {
  const [models, setModels] = useState(provider.models.join(", "));
  const [key, setKey] = useState("");
  // Follow changes made elsewhere (undo, another provider removed) without eating a typed comma.
  useEffect(() => {
    if (parseModels(models).join(",") !== provider.models.join(",")) setModels(provider.models.join(", "));
  }, [provider.models, models]);
  const set = (patch: Partial<ProviderConfig>) => onChange({ ...provider, ...patch });
  const source = keySource(provider);
  function setSource(next: KeySource) {
    const { api_key_env: _unused, ...rest } = provider;
    if (next === "env") onChange({ ...rest, api_key_env: provider.api_key_env ?? "OPENAI_API_KEY", api_key_keyring: false });
    else onChange({ ...rest, api_key_keyring: next === "keyring" });
  }
  return (
    <fieldset className="sampling-provider" data-provider={provider.name}>
      <legend>{provider.name || "(unnamed)"}</legend>
      <div className="sampling-grid">
        <label className="field">
          <span>Name</span>
          <input className="arguments provider-name" value={provider.name} onChange={(e) => set({ name: e.target.value.trim() })} spellCheck={false} />
        </label>
        <label className="field">
          <span>Kind</span>
          <select className="provider-kind" value={provider.kind} onChange={(e) => set({ kind: e.target.value as ProviderKind })}>
            <option value="openai">OpenAI-compatible (also llama.cpp, LM Studio, vLLM)</option>
            <option value="anthropic">Anthropic Messages</option>
            <option value="ollama">Ollama /api/chat</option>
          </select>
        </label>
        <label className="field wide">
          <span>Base URL</span>
          <input className="arguments provider-base-url" value={provider.base_url} onChange={(e) => set({ base_url: e.target.value.trim() })} spellCheck={false} />
        </label>
        <label className="field wide">
          <span>Models (comma-separated; the first is the default, servers' hints pick among them)</span>
          <input
            className="arguments provider-models"
            value={models}
            onChange={(e) => {
              setModels(e.target.value);
              set({ models: parseModels(e.target.value) });
            }}
            spellCheck={false}
          />
        </label>
        <label className="field">
          <span>Max tokens per request</span>
          <input className="arguments provider-max-tokens" inputMode="numeric" value={provider.max_tokens} onChange={(e) => set({ max_tokens: num(e.target.value, provider.max_tokens) })} />
        </label>
        <label className="field">
          <span>Timeout (s)</span>
          <input className="arguments" inputMode="numeric" value={provider.timeout_seconds} onChange={(e) => set({ timeout_seconds: num(e.target.value, provider.timeout_seconds) })} />
        </label>
        <label className="field">
          <span>Structured output (__schema__)</span>
          <select className="provider-structured" value={provider.structured} onChange={(e) => set({ structured: e.target.value as StructuredMode })}>
            <option value="native">The provider's own mode</option>
            <option value="json_object_schema">llama.cpp json_object + schema</option>
            <option value="none">None: a normal tool</option>
          </select>
        </label>
      </div>
      <label className="checkbox-field">
        <input type="checkbox" checked={provider.tools} onChange={(e) => set({ tools: e.target.checked })} />
        <span>Its models call tools (servers may then send tools)</span>
      </label>
      <label className="checkbox-field">
        <input type="checkbox" className="provider-vision" checked={provider.vision} onChange={(e) => set({ vision: e.target.checked })} />
        <span>Its models read images (else requests with images are refused)</span>
      </label>
      <div className="sampling-key">
        <label className="field">
          <span>API key</span>
          <select className="provider-key-source" value={source} onChange={(e) => setSource(e.target.value as KeySource)}>
            <option value="none">None (a local server)</option>
            <option value="env">From an environment variable</option>
            <option value="keyring">In the OS keyring</option>
          </select>
        </label>
        {source === "env" ? (
          <label className="field">
            <span>Variable</span>
            <input className="arguments" value={provider.api_key_env ?? ""} onChange={(e) => set({ api_key_env: e.target.value.trim() })} spellCheck={false} />
          </label>
        ) : null}
        {source === "keyring" ? (
          saved ? (
            <form
              className="sampling-key-form"
              onSubmit={(e) => {
                e.preventDefault();
                void onKey(key).then((ok) => ok && setKey(""));
              }}
            >
              <input className="arguments provider-key" type="password" autoComplete="off" placeholder="Paste the key" value={key} onChange={(e) => setKey(e.target.value)} aria-label={`API key for ${provider.name}`} />
              <button type="submit" className="secondary" disabled={busy || key.trim() === ""}>
                Store in keyring
              </button>
              <button type="button" className="secondary" disabled={busy} onClick={() => void onKey(null)}>
                Remove key
              </button>
            </form>
          ) : (
            <small className="muted">Save first, then store the key here (it goes to the OS keyring, never to settings.toml).</small>
          )
        ) : null}
      </div>
      <button type="button" className="secondary provider-remove" onClick={onRemove}>
        Remove {provider.name}
      </button>
    </fieldset>
  );
}
