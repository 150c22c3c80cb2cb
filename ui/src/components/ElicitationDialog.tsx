import { useMemo, useRef, useState, type KeyboardEvent } from "react";
import { formSchemaOf, initialArguments, uiSchemaFor } from "../forms/formConfig";
import { asJson } from "../forms/schemaValidator";
import type { ElicitationAnswer } from "../wire/ElicitationAnswer";
import type { ElicitationPrompt } from "../wire/ElicitationPrompt";
import { LazySchemaForm as SchemaForm } from "./LazySchemaForm";
import type { SchemaFormHandle } from "./SchemaForm";
import { focusableIn, keepKeysInDialog, useModalFocus } from "./modalFocus";
import { useDialogAnswer } from "./useDialogAnswer";

interface Props {
  prompt: ElicitationPrompt;
  /** Sends the answer; rejects with the backend's reason (shown in the dialog). */
  onAnswer: (answer: ElicitationAnswer) => Promise<void>;
}

type FormPrompt = Extract<ElicitationPrompt, { mode: "form" }>;
type UrlPrompt = Extract<ElicitationPrompt, { mode: "url" }>;

/**
 * A server asks the user something while a tool runs: a form to fill in, or a page to open.
 * Keyboard: focus starts on the first field (a form) or on Decline (a page: nothing opens unless
 * the user moves to "Open in browser"), Tab stays inside, Escape cancels, Enter in a field accepts.
 */
export function ElicitationDialog({ prompt, onAnswer }: Props) {
  const { error, busy, send } = useDialogAnswer(onAnswer);
  const dialog = useRef<HTMLDivElement>(null);
  const backdrop = useModalFocus(dialog, {
    onEscape: () => void send({ action: "cancel" }),
    initialFocus: (root) => (prompt.mode === "form" ? firstField(root) : root.querySelector<HTMLElement>("button.elicitation-decline")),
    busy,
  });

  return (
    <div className="elicitation-backdrop" {...backdrop}>
      <div
        ref={dialog}
        className={`elicitation-dialog ${prompt.mode}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby="elicitation-title"
        aria-describedby={prompt.mode === "url" ? "elicitation-url-description" : undefined}
        tabIndex={-1}
        onKeyDown={keepKeysInDialog}
        data-id={prompt.id}
      >
        <p className="eyebrow">{prompt.server} asks</p>
        <h2 id="elicitation-title" className="elicitation-message">
          {prompt.message || (prompt.mode === "form" ? "Some input is needed" : "Open a page")}
        </h2>
        {prompt.mode === "form" ? <FormBody prompt={prompt} busy={busy} send={send} /> : <UrlBody prompt={prompt} busy={busy} send={send} />}
        {error ? (
          <p className="error small elicitation-error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** The form's first field that takes input, else its safe way out (Cancel); `null` while the form loads. */
function firstField(root: HTMLElement): HTMLElement | null {
  const form = root.querySelector<HTMLElement>(".elicitation-form");
  if (!form) return null;
  if (form.querySelector(".form-loading")) return null;
  const field = focusableIn(form).find((e) => e.matches("input, select, textarea") && !e.closest(".elicitation-actions"));
  return field ?? form.querySelector<HTMLElement>("button.elicitation-cancel");
}

/** Enter in a one-line field accepts the form, as in any dialog (checkboxes and buttons keep their own Enter). */
function submitsOnEnter(event: KeyboardEvent<HTMLElement>): boolean {
  if (event.key !== "Enter" || event.shiftKey || event.ctrlKey || event.altKey || event.metaKey || event.nativeEvent.isComposing) return false;
  const target = event.target;
  return target instanceof HTMLInputElement && !["button", "submit", "reset", "checkbox", "radio", "file", "image", "color", "range"].includes(target.type);
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
    <div
      className="elicitation-form"
      onKeyDown={(event) => {
        // A form without a submit button and with two or more fields is not submitted by Enter.
        if (submitsOnEnter(event)) {
          event.preventDefault();
          if (!busy) accept();
        }
      }}
    >
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
        <DeclineOrCancel busy={busy} send={send} />
      </div>
    </div>
  );
}

/** The two ways to say no, the same in both modes (Escape stands for Cancel). */
function DeclineOrCancel({ busy, send }: { busy: boolean; send: (answer: ElicitationAnswer) => void }) {
  return (
    <>
      <button type="button" className="secondary elicitation-decline" disabled={busy} onClick={() => send({ action: "decline" })}>
        Decline
      </button>
      <button type="button" className="secondary elicitation-cancel" disabled={busy} onClick={() => send({ action: "cancel" })} aria-keyshortcuts="Escape">
        Cancel
      </button>
    </>
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function UrlBody({ prompt, busy, send }: BodyProps<UrlPrompt>) {
  return (
    <div className="elicitation-url">
      <div id="elicitation-url-description" className="dialog-description">
        <p className="elicitation-domain-line">
          The page is on <strong className="elicitation-domain">{prompt.domain}</strong>
        </p>
        <code className="elicitation-full-url">{prompt.url}</code>
      </div>
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
        <DeclineOrCancel busy={busy} send={send} />
      </div>
    </div>
  );
}
