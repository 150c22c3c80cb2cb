import { useState, type FormEvent } from "react";
import type { ElicitationAnswer } from "../wire/ElicitationAnswer";
import type { ElicitationPrompt } from "../wire/ElicitationPrompt";
import type { FormField } from "../wire/FormField";

interface Props {
  prompt: ElicitationPrompt;
  /** Sends the answer; rejects with the backend's reason (shown in the dialog). */
  onAnswer: (answer: ElicitationAnswer) => Promise<void>;
}

type FormPrompt = Extract<ElicitationPrompt, { mode: "form" }>;
type UrlPrompt = Extract<ElicitationPrompt, { mode: "url" }>;
type FieldValue = string | boolean | string[];

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

function initialValue(field: FormField): FieldValue {
  const d = field.default;
  switch (field.kind.type) {
    case "boolean":
      return d === true;
    case "choice":
      if (field.kind.multiple) return Array.isArray(d) ? d.map(String) : [];
      return typeof d === "string" ? d : "";
    case "number":
      return typeof d === "number" ? String(d) : "";
    case "text":
      return typeof d === "string" ? d : "";
    default:
      return d === undefined || d === null ? "" : JSON.stringify(d);
  }
}

/** The value to send for a field, `undefined` to leave it out, or a problem. */
function fieldAnswer(field: FormField, value: FieldValue): { value?: unknown; problem?: string } {
  const label = field.title;
  const missing = (value === "" || (Array.isArray(value) && value.length === 0)) && field.kind.type !== "boolean";
  if (missing) return field.required ? { problem: `${label} is required` } : {};
  switch (field.kind.type) {
    case "boolean":
      return { value: value === true };
    case "number": {
      const n = Number(value);
      const { integer, minimum, maximum } = field.kind;
      if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) return { problem: `${label} takes a ${integer ? "whole number" : "number"}` };
      if ((minimum !== null && n < minimum) || (maximum !== null && n > maximum)) return { problem: `${label} must be between ${minimum ?? "…"} and ${maximum ?? "…"}` };
      return { value: n };
    }
    case "other":
      try {
        return { value: JSON.parse(String(value)) };
      } catch {
        return { problem: `${label} takes JSON` };
      }
    default:
      return { value };
  }
}

function FormBody({ prompt, busy, send }: BodyProps<FormPrompt>) {
  const [values, setValues] = useState<Record<string, FieldValue>>(() => Object.fromEntries(prompt.fields.map((f) => [f.name, initialValue(f)])));
  const [problems, setProblems] = useState<string[]>([]);
  const set = (name: string, value: FieldValue) => setValues((v) => ({ ...v, [name]: value }));

  function accept(event: FormEvent) {
    event.preventDefault();
    const content: Record<string, unknown> = {};
    const found: string[] = [];
    for (const field of prompt.fields) {
      const { value, problem } = fieldAnswer(field, values[field.name]);
      if (problem) found.push(problem);
      else if (value !== undefined) content[field.name] = value;
    }
    setProblems(found);
    if (found.length === 0) send({ action: "accept", content });
  }

  const shown = problems.length > 0 ? problems : prompt.problems;
  return (
    <form className="elicitation-form" onSubmit={accept}>
      {shown.length > 0 ? (
        <ul className="elicitation-problems" role="alert">
          {shown.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {prompt.fields.map((field) => (
        <Field key={field.name} field={field} value={values[field.name]} onChange={(v) => set(field.name, v)} />
      ))}
      <div className="elicitation-actions">
        <button type="submit" className="primary elicitation-accept" disabled={busy}>
          Accept
        </button>
        <button type="button" className="secondary elicitation-decline" disabled={busy} onClick={() => send({ action: "decline" })}>
          Decline
        </button>
        <button type="button" className="secondary elicitation-cancel" disabled={busy} onClick={() => send({ action: "cancel" })}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Field({ field, value, onChange }: { field: FormField; value: FieldValue; onChange: (value: FieldValue) => void }) {
  const id = `elicitation-field-${field.name}`;
  const kind = field.kind;
  let control;
  switch (kind.type) {
    case "boolean":
      control = <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
      break;
    case "number":
      control = (
        <input
          id={id}
          type="number"
          step={kind.integer ? 1 : "any"}
          min={kind.minimum ?? undefined}
          max={kind.maximum ?? undefined}
          required={field.required}
          value={String(value)}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    case "choice":
      control = kind.multiple ? (
        <select id={id} multiple value={value as string[]} onChange={(e) => onChange([...e.target.selectedOptions].map((o) => o.value))}>
          {kind.options.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      ) : (
        <select id={id} required={field.required} value={String(value)} onChange={(e) => onChange(e.target.value)}>
          <option value="">{field.required ? "Choose…" : "(none)"}</option>
          {kind.options.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      );
      break;
    case "text":
      control = (
        <input
          id={id}
          type={kind.format === "email" ? "email" : kind.format === "uri" ? "url" : kind.format === "date" ? "date" : "text"}
          minLength={kind.min_length ?? undefined}
          maxLength={kind.max_length ?? undefined}
          required={field.required}
          value={String(value)}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    default:
      control = <textarea id={id} rows={3} spellCheck={false} value={String(value)} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <div className={`elicitation-field ${kind.type}`} data-field={field.name}>
      <label htmlFor={id}>
        {field.title}
        {field.required ? (
          <span className="required" title="required" aria-label="required">
            {" "}
            *
          </span>
        ) : null}
      </label>
      {control}
      {field.description ? <p className="field-description">{field.description}</p> : null}
    </div>
  );
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
