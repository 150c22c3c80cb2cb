import { useMemo, useRef, useState } from "react";
import { formSchemaOf, initialArguments, uiSchemaFor } from "../forms/formConfig";
import { asJson } from "../forms/schemaValidator";
import type { ElicitationAnswer } from "../wire/ElicitationAnswer";
import type { ElicitationPrompt } from "../wire/ElicitationPrompt";
import { LazySchemaForm as SchemaForm } from "./LazySchemaForm";
import type { SchemaFormHandle } from "./SchemaForm";

interface Props {
  prompt: ElicitationPrompt;
  /** Sends the answer; rejects with the backend's reason (shown in the dialog). */
  onAnswer: (answer: ElicitationAnswer) => Promise<void>;
}

type FormPrompt = Extract<ElicitationPrompt, { mode: "form" }>;
type UrlPrompt = Extract<ElicitationPrompt, { mode: "url" }>;

/** A server asks the user something while a tool runs: a form to fill in, or a page to open. */
export function ElicitationDialog({ prompt, onAnswer }: Props) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function send(answer: ElicitationAnswer) {
    setBusy(true);
    setError(null);
    try {
      await onAnswer(answer);
    } catch (e) {
      setError(typeof e === "string" ? e : e instanceof Error ? e.message : JSON.stringify(e));
      setBusy(false);
    }
  }

  return (
    <div className="elicitation-backdrop">
      <div className={`elicitation-dialog ${prompt.mode}`} role="dialog" aria-modal="true" aria-labelledby="elicitation-title" data-id={prompt.id}>
        <p className="eyebrow">{prompt.server} asks</p>
        <h2 id="elicitation-title" className="elicitation-message">
          {prompt.message || (prompt.mode === "form" ? "Some input is needed" : "Open a page")}
        </h2>
        {prompt.mode === "form" ? <FormBody prompt={prompt} busy={busy} send={send} /> : <UrlBody prompt={prompt} busy={busy} send={send} />}
        {error ? <p className="error small elicitation-error">{error}</p> : null}
      </div>
    </div>
  );
}

interface BodyProps<P> {
  prompt: P;
  busy: boolean;
  send: (answer: ElicitationAnswer) => void;
}

function FormBody({ prompt, busy, send }: BodyProps<FormPrompt>) {
  const schema = useMemo(() => formSchemaOf(prompt.requested_schema), [prompt.requested_schema]);
  const uiSchema = useMemo(() => (schema ? uiSchemaFor(schema, { hostNotes: false }) : {}), [schema]);
  const [values, setValues] = useState<Record<string, unknown>>(() => (schema ? initialArguments(schema) : {}));
  const form = useRef<SchemaFormHandle>(null);

  function accept() {
    // Checked against the server's schema here; the host checks again and asks anew if it disagrees.
    if (form.current && !form.current.validateForm()) return;
    const content = asJson(values);
    send({ action: "accept", content: isRecord(content) ? content : {} });
  }

  return (
    <div className="elicitation-form">
      {prompt.problems.length > 0 ? (
        <ul className="elicitation-problems" role="alert">
          {prompt.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {schema ? (
        <SchemaForm
          schema={schema}
          uiSchema={uiSchema}
          formData={values}
          onChange={(data) => setValues(isRecord(data) ? data : {})}
          idPrefix="elicitation"
          formRef={form}
          disabled={busy}
          onSubmit={() => accept()}
          fallback={(reason) => <p className="error small">This form cannot be shown ({reason}). Decline or cancel.</p>}
        />
      ) : (
        <p className="error small">The server sent no form to fill in. Decline or cancel.</p>
      )}
      <div className="elicitation-actions">
        <button type="button" className="primary elicitation-accept" disabled={busy || !schema} onClick={() => accept()}>
          Accept
        </button>
        <button type="button" className="secondary elicitation-decline" disabled={busy} onClick={() => send({ action: "decline" })}>
          Decline
        </button>
        <button type="button" className="secondary elicitation-cancel" disabled={busy} onClick={() => send({ action: "cancel" })}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function UrlBody({ prompt, busy, send }: BodyProps<UrlPrompt>) {
  return (
    <div className="elicitation-url">
      <p className="elicitation-domain-line">
        The page is on <strong className="elicitation-domain">{prompt.domain}</strong>
      </p>
      <code className="elicitation-full-url">{prompt.url}</code>
      {prompt.warnings.length > 0 ? (
        <ul className="elicitation-warnings" role="alert">
          {prompt.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      ) : null}
      <p className="small">Nothing is opened unless you choose to. It opens in your system browser.</p>
      <div className="elicitation-actions">
        <button type="button" className="primary elicitation-open" disabled={busy} onClick={() => send({ action: "accept" })}>
          Open in browser
        </button>
        <button type="button" className="secondary elicitation-decline" disabled={busy} onClick={() => send({ action: "decline" })}>
          Decline
        </button>
      </div>
    </div>
  );
}
