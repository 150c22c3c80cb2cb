import { useMemo, useState } from "react";
import { errorText, promptRead, serverPrompts } from "../ipc";
import { CommandErrorView } from "../components/CommandErrorView";
import { OfferHeader } from "./OfferHeader";
import { OutcomeView } from "../components/OutcomeView";
import type { PromptRead } from "../wire/PromptRead";
import type { PromptView } from "../wire/PromptView";
import { CompletingInput } from "./CompletingInput";
import { readAsOutcome, useServerListing } from "./shared";

/** A server's prompts: pick one, fill in its arguments with the server's suggestions, and see the
 * messages it returns in the canvas; copy them as Markdown or JSON. */
export function PromptsPanel({ server, onClose }: { server: string; onClose: () => void }) {
  const [listing, reload] = useServerListing(server, serverPrompts, "prompts");
  const [picked, setChosen] = useState<string | null>(null);
  // The first prompt until the user picks one.
  const chosen = picked ?? (listing.kind === "ready" ? (listing.value[0]?.name ?? null) : null);

  const prompt = listing.kind === "ready" ? listing.value.find((p) => p.name === chosen) ?? null : null;
  return (
    <div className="offer-panel prompts-panel" data-server={server}>
      <OfferHeader what="Prompts" server={server} onReload={() => reload()} onClose={onClose} />
      {listing.kind === "loading" ? <p className="muted">Listing…</p> : null}
      {listing.kind === "failed" ? <CommandErrorView error={listing.error} server={server} onRetry={() => reload()} /> : null}
      {listing.kind === "ready" && listing.value.length === 0 ? <p className="muted">{server} offers no prompts.</p> : null}
      {listing.kind === "ready" && listing.value.length > 0 ? (
        <ul className="offer-list prompt-list">
          {listing.value.map((p) => (
            <li key={p.name}>
              <button type="button" className={`prompt-item${p.name === chosen ? " active" : ""}`} data-prompt={p.name} onClick={() => setChosen(p.name)} title={p.description ?? undefined}>
                <span className="offer-title">{p.title ?? p.name}</span>
                <span className="offer-sub prompt-description">{p.description ?? p.name}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {prompt ? <PromptForm key={prompt.name} server={server} prompt={prompt} /> : null}
    </div>
  );
}

function PromptForm({ server, prompt }: { server: string; prompt: PromptView }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<PromptRead | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const target = useMemo(() => ({ kind: "prompt" as const, name: prompt.name }), [prompt.name]);
  const missing = prompt.arguments.filter((a) => a.required && (values[a.name] ?? "") === "").map((a) => a.name);

  async function run() {
    setRunning(true);
    // The previous transcript goes: under a new error (or while the new one comes) its Copy
    // buttons would copy what this request did not return.
    setResult(null);
    setError(null);
    setCopied(null);
    try {
      const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""));
      setResult(await promptRead(server, prompt.name, given));
    } catch (e) {
      setError(e);
    } finally {
      setRunning(false);
    }
  }

  async function copy(what: "Markdown" | "JSON", text: string) {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied${result?.cut ? " (cut: the whole transcript is the stored file)" : ""}`);
    } catch (e) {
      setCopied(`Could not copy: ${errorText(e)}`);
    }
  }

  return (
    <form
      className="prompt-form"
      data-prompt={prompt.name}
      onSubmit={(e) => {
        e.preventDefault();
        if (missing.length === 0) void run();
      }}
    >
      <h3>{prompt.title ?? prompt.name}</h3>
      {prompt.description ? <p className="muted small">{prompt.description}</p> : null}
      {prompt.arguments.map((a) => (
        <CompletingInput
          key={a.name}
          server={server}
          target={target}
          name={a.name}
          label={a.name}
          required={a.required}
          description={a.description}
          value={values[a.name] ?? ""}
          context={Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== a.name && v !== ""))}
          onChange={(value) => setValues((old) => ({ ...old, [a.name]: value }))}
        />
      ))}
      <button type="submit" className="prompt-get primary" disabled={running || missing.length > 0} title={missing.length > 0 ? `Needs: ${missing.join(", ")}` : undefined}>
        {running ? "Getting…" : "Get prompt"}
      </button>
      {error !== null ? <CommandErrorView error={error} server={server} className="offer-error" onFixArguments={() => document.querySelector<HTMLInputElement>(".prompt-form input")?.focus()} /> : null}
      {result ? (
        <section className="offer-result prompt-result" aria-label="Prompt messages">
          <div className="offer-result-actions">
            <span className="muted small">
              {result.messages} message{result.messages === 1 ? "" : "s"}
            </span>
            <button type="button" className="copy-markdown" onClick={() => void copy("Markdown", result.markdown)}>
              Copy as Markdown
            </button>
            <button type="button" className="copy-json" onClick={() => void copy("JSON", result.json)}>
              Copy as JSON
            </button>
            {copied ? <span className="muted small copied">{copied}</span> : null}
          </div>
          <pre className="prompt-transcript">{result.markdown}</pre>
          <OutcomeView outcome={readAsOutcome(result.read_id, server, "prompts/get", result)} onChoose={() => {}} />
        </section>
      ) : null}
    </form>
  );
}
