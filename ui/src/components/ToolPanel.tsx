import { useEffect, useMemo, useRef, useState } from "react";
import { recordFailure, recordOutcome } from "../callHistory";
import { recordCall } from "../callHistoryStore";
import {
  argumentsText,
  fieldSet,
  formEdited,
  fromArguments,
  hasNoFields,
  initialArguments,
  parseArguments,
  textEdited,
  toolFormSchema,
  uiSchemaFor,
  type ArgumentsState,
} from "../forms/formConfig";
import { checkFileArguments, fileArgumentsOf, fileFormSchema, withFileFields, withFiles, type RecordState } from "../forms/fileArguments";
import { artifactRecord, callTool, cancelCall, errorKind, errorText, newCallToken, onCallProgress } from "../ipc";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { CallOutcome } from "../wire/CallOutcome";
import type { CallProgressEvent } from "../wire/CallProgressEvent";
import type { ToolView } from "../wire/ToolView";
import { CommandErrorView } from "./CommandErrorView";
import { FILE_FIELD, FileFieldsContext, type FileFields } from "./fileFieldsContext";
import { OutcomeView } from "./OutcomeView";
import { LazySchemaForm as SchemaForm } from "./LazySchemaForm";
import type { SchemaFormHandle } from "./SchemaForm";
import type { ToolSelection } from "./ServerList";

interface Props {
  selection: ToolSelection;
  onOutcome: (outcome: CallOutcome) => void;
}

/** `destructiveHint: true`, or `readOnlyHint: false` with `destructiveHint` unset (the host enforces the same rule). */
function needsConfirmation(tool: ToolView): boolean {
  return tool.destructive === true || (tool.read_only === false && tool.destructive === null);
}

type Entry = { kind: "outcome"; outcome: CallOutcome } | { kind: "failure"; error: unknown; at: number };
type EditorMode = "form" | "json";

/** The editor last chosen, kept for the next tool during this run. */
let preferredMode: EditorMode = "form";

function initialEditor(selection: ToolSelection): ArgumentsState {
  const schema = toolFormSchema(selection.tool.input_schema);
  const rerun = selection.rerun;
  if (rerun) {
    const parsed = parseArguments(rerun.arguments);
    return parsed.ok ? fromArguments(parsed.value) : { args: {}, text: rerun.arguments, textError: parsed.error };
  }
  const initial = schema ? initialArguments(schema) : {};
  // A stored file dropped on the tool in the sidebar: into its first file field.
  const first = selection.dropped ? fileArgumentsOf(selection.tool)[0] : undefined;
  return fromArguments(first && selection.dropped ? { ...initial, [first.name]: withFiles(first, initial[first.name], [{ id: selection.dropped.id }]) } : initial);
}

export function ToolPanel({ selection, onOutcome }: Props) {
  const { server, tool } = selection;
  const schema = useMemo(() => toolFormSchema(tool.input_schema), [tool]);
  // File arguments: drawn as file fields, their values references to stored files (issue 32).
  const fileArgs = useMemo(() => fileArgumentsOf(tool), [tool]);
  const formSchema = useMemo(() => (schema ? fileFormSchema(schema, fileArgs) : null), [schema, fileArgs]);
  const uiSchema = useMemo(() => (formSchema ? withFileFields(uiSchemaFor(formSchema, { hostNotes: true }), fileArgs, FILE_FIELD) : {}), [formSchema, fileArgs]);
  const [editor, setEditor] = useState<ArgumentsState>(() => initialEditor(selection));
  const [mode, setModeState] = useState<EditorMode>(() => (schema === null || editor.textError !== null ? "json" : preferredMode));
  const formRef = useRef<SchemaFormHandle>(null);
  const [running, setRunning] = useState(false);
  const [results, setResults] = useState<Entry[]>([]);
  // The exact argument text a tool that may change data will run with, once confirmed.
  const [confirming, setConfirming] = useState<string | null>(null);
  // The running call's token, and its latest progress report.
  const callToken = useRef<string | null>(null);
  const [progress, setProgress] = useState<CallProgressEvent | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const risky = needsConfirmation(tool);
  // What "Call tool" sends: the JSON text as typed, or the form's arguments.
  const toSend = mode === "json" ? editor.text : argumentsText(editor.args);

  // The stored files the file arguments name (from the form, the JSON text or a re-run), looked
  // up once each; their type and size are checked before any call is sent.
  const [records, setRecords] = useState<Record<string, RecordState>>({});
  const fileCheck = useMemo(() => checkFileArguments(fileArgs, editor.args, records), [fileArgs, editor.args, records]);
  const missingIds = fileCheck.missing.join(" ");
  useEffect(() => {
    if (missingIds === "") return;
    const ids = missingIds.split(" ");
    setRecords((known) => ({ ...known, ...Object.fromEntries(ids.map((id) => [id, { kind: "loading" } as RecordState])) }));
    for (const id of ids) {
      artifactRecord(id).then(
        (record) => setRecords((known) => ({ ...known, [id]: { kind: "ok", record } })),
        (error) => setRecords((known) => ({ ...known, [id]: { kind: "failed", error: errorKind(error) === "not_found" ? `No stored file ${id}` : errorText(error) } })),
      );
    }
  }, [missingIds]);
  const fileFields = useMemo<FileFields>(
    () => ({
      args: fileArgs,
      records,
      remember: (found: ArtifactRecord[]) => setRecords((known) => ({ ...known, ...Object.fromEntries(found.map((record) => [record.id, { kind: "ok", record } as RecordState])) })),
    }),
    [fileArgs, records],
  );

  function setMode(next: EditorMode) {
    preferredMode = next;
    setModeState(next);
  }

  function edit(next: (state: ArgumentsState) => ArgumentsState) {
    setEditor(next);
  }

  // "Don't run": focus goes back to "Call tool", where it was before the confirmation.
  const callButton = useRef<HTMLButtonElement>(null);
  const refused = useRef(false);
  useEffect(() => {
    if (confirming === null && refused.current) {
      refused.current = false;
      callButton.current?.focus();
    }
  }, [confirming]);

  // The arguments changed after the confirmation was shown: what was confirmed would not run.
  useEffect(() => {
    setConfirming((shown) => (shown !== null && shown !== toSend ? null : shown));
  }, [toSend]);

  useEffect(
    () =>
      onCallProgress((report) => {
        if (report.call_token === callToken.current) setProgress(report);
      }),
    [],
  );

  // Re-run from the history: call at once with the recorded arguments (a tool that may change
  // data still asks first) — once the files they name are looked up; a file that is gone or no
  // longer fits stops it, its field says why.
  const reran = useRef(false);
  useEffect(() => {
    if (selection.rerun && !reran.current && !fileCheck.pending) {
      reran.current = true;
      void run(false, toSend, false);
    }
    // Once, when the panel opens for the re-run (and its files are known).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fileCheck.pending]);

  function cancel() {
    const token = callToken.current;
    if (!token) return;
    setCancelling(true);
    // The call's own promise rejects with the "cancelled" error; a failure here means it ended already.
    cancelCall(token).catch((error) => console.warn("cancel_call:", errorText(error)));
  }

  /** "Fix the arguments" (a refused call, or the tool's own error): back to the arguments, the
   * first problem the form finds focused, else the first field (or the JSON text). */
  const editorBox = useRef<HTMLDivElement>(null);
  function fixArguments() {
    editorBox.current?.scrollIntoView?.({ block: "start" });
    if (mode === "form" && formRef.current && !formRef.current.validateForm()) return; // rjsf focuses the first error
    editorBox.current?.querySelector<HTMLElement>("textarea.arguments, .schema-form input, .schema-form select, .schema-form textarea, .schema-form .file-field button")?.focus();
  }

  // A needsInput option fills its field in the arguments and calls the tool again.
  function chooseOption(field: string, value: string) {
    const next = fieldSet(editor, field, value);
    edit(() => next);
    void run(false, next.text, false);
  }

  /**
   * Calls the tool with `text`. `validate`: check the form against the schema first (the host
   * checks again either way). A tool that may change data first shows the exact text and waits.
   */
  async function run(confirmed: boolean, text: string = toSend, validate = mode === "form") {
    // A file of the wrong type or size, one that is gone, or one still being looked up.
    if (!confirmed && fileCheck.blocked) return;
    if (validate && !confirmed && formRef.current && !formRef.current.validateForm()) return;
    if (risky && !confirmed) {
      setConfirming(text);
      return;
    }
    setConfirming(null);
    setRunning(true);
    setProgress(null);
    setCancelling(false);
    const token = newCallToken();
    callToken.current = token;
    try {
      const outcome = await callTool(server, tool.name, text, confirmed, token);
      // A call that went through: the error cards of the calls before it are over (the call
      // history keeps them).
      setResults((h) => [{ kind: "outcome", outcome }, ...h.filter((entry) => entry.kind !== "failure")]);
      recordCall(recordOutcome(outcome.call_id, server, tool, text, outcome, Date.now()));
      onOutcome(outcome);
    } catch (error) {
      const at = Date.now();
      setResults((h) => [{ kind: "failure", error, at }, ...h]);
      recordCall(recordFailure(token, server, tool, text, errorText(error), at));
    } finally {
      if (callToken.current === token) callToken.current = null;
      setRunning(false);
      setProgress(null);
      setCancelling(false);
    }
  }

  return (
    <div className="tool-panel">
      <header>
        <p className="eyebrow">{server}</p>
        <h2>{tool.title ?? tool.name}</h2>
        <code className="tool-name">{tool.name}</code>
        <div className="badges">
          {tool.read_only ? <span className="badge safe">read-only</span> : null}
          {tool.destructive ? <span className="badge danger">destructive</span> : null}
        </div>
        {tool.description ? <p className="description">{tool.description}</p> : null}
      </header>
      <div className="arguments-editor" ref={editorBox}>
        <div className="arguments-editor-bar">
          <span className="field-label">Arguments</span>
          <div className="arguments-modes" role="tablist" aria-label="Edit the arguments as">
            {(["form", "json"] as const).map((m) => (
              <button
                key={m}
                type="button"
                role="tab"
                className="arguments-mode"
                data-mode={m}
                aria-selected={mode === m}
                disabled={m === "form" && schema === null}
                title={m === "form" && schema === null ? "This tool's inputSchema is not an object schema" : undefined}
                onClick={() => setMode(m)}
              >
                {m === "form" ? "Form" : "JSON"}
              </button>
            ))}
          </div>
        </div>
        {mode === "form" && formSchema ? (
          <>
            {editor.textError ? <p className="small muted form-note">The JSON text has an error ({editor.textError}); the form shows the last arguments that parsed.</p> : null}
            {hasNoFields(formSchema) ? <p className="small muted form-note no-arguments">This tool takes no arguments.</p> : null}
            <FileFieldsContext value={fileFields}>
              <SchemaForm
                schema={formSchema}
                uiSchema={uiSchema}
                formData={editor.args}
                onChange={(data) => edit((state) => formEdited(state, data))}
                idPrefix="args"
                formRef={formRef}
                disabled={running}
                onSubmit={() => void run(false)}
                fallback={(reason) => (
                  <div className="form-fallback error small">
                    <p>No form can be drawn from this tool's inputSchema ({reason}).</p>
                    <button type="button" className="secondary" onClick={() => setMode("json")}>
                      Edit the JSON
                    </button>
                  </div>
                )}
              />
            </FileFieldsContext>
            <div className="arguments-preview">
              <span className="field-label">Will be sent</span>
              <pre className="arguments-preview-text">{toSend}</pre>
            </div>
          </>
        ) : (
          <>
            <label className="field">
              <span className="visually-hidden">Arguments (JSON)</span>
              <textarea
                className="arguments"
                spellCheck={false}
                value={editor.text}
                onChange={(e) => {
                  const text = e.target.value;
                  edit((state) => textEdited(state, text));
                }}
                rows={8}
              />
              {editor.textError ? <span className="small muted arguments-text-error">{editor.textError}</span> : null}
            </label>
            {fileArgs.length > 0 ? (
              <p className="small muted file-json-hint">
                File arguments ({fileArgs.map((a) => a.name).join(", ")}) take references to stored files: <code>"artifact:ID"</code>
                {fileArgs.some((a) => a.multiple) ? ", or a list of them" : ""}.
              </p>
            ) : null}
            {fileCheck.problems.length > 0 ? (
              <ul className="file-field-problems">
                {fileCheck.problems.map(({ name, problem }, i) => (
                  <li key={i} className="error small">
                    {name}: {problem}
                  </li>
                ))}
              </ul>
            ) : null}
          </>
        )}
      </div>
      {confirming !== null ? (
        <CallConfirmation
          tool={tool.title ?? tool.name}
          text={confirming}
          onRun={() => run(true, confirming, false)}
          onRefuse={() => {
            refused.current = true;
            setConfirming(null);
          }}
        />
      ) : (
        <button
          ref={callButton}
          type="button"
          className="primary call-button"
          disabled={running || fileCheck.blocked}
          title={fileCheck.problems.length > 0 ? "A file argument needs another file (see above)" : fileCheck.pending ? "Checking the files…" : undefined}
          onClick={() => run(false)}
        >
          {running ? "Calling…" : "Call tool"}
        </button>
      )}
      {running ? <CallProgressView progress={progress} cancelling={cancelling} onCancel={cancel} /> : null}
      <ol className="history" aria-label="Results">
        {results.map((entry) =>
          entry.kind === "outcome" ? (
            <li key={entry.outcome.call_id} className={`result${entry.outcome.error ? " failed" : ""}`}>
              <OutcomeView outcome={entry.outcome} onChoose={chooseOption} onFixArguments={fixArguments} />
            </li>
          ) : (
            <li key={entry.at} className="result failed">
              <CommandErrorView
                error={entry.error}
                server={server}
                className="call-error"
                onRetry={() => void run(false, toSend, false)}
                onFixArguments={fixArguments}
              />
            </li>
          ),
        )}
      </ol>
    </div>
  );
}

/**
 * "This tool may change or delete data; run it with exactly these arguments?" Keyboard: focus
 * starts on "Don't run" (Enter there is the safe answer), Escape is "Don't run" too.
 */
function CallConfirmation({ tool, text, onRun, onRefuse }: { tool: string; text: string; onRun: () => void; onRefuse: () => void }) {
  const refuse = useRef<HTMLButtonElement>(null);
  useEffect(() => refuse.current?.focus(), []);
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby="call-confirm-title"
      aria-describedby="call-confirm-arguments"
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onRefuse();
        }
      }}
    >
      <p id="call-confirm-title">
        <strong>{tool}</strong> may change or delete data. It will run with exactly these arguments:
      </p>
      <pre id="call-confirm-arguments" className="confirm-arguments">
        {text}
      </pre>
      <div className="confirm-actions">
        <button type="button" className="primary danger confirm-run" onClick={onRun}>
          Run it
        </button>
        <button ref={refuse} type="button" className="secondary confirm-refuse" onClick={onRefuse} aria-keyshortcuts="Escape">
          Don't run
        </button>
      </div>
    </div>
  );
}

/** A running call: a progress bar (indeterminate until the server gives a total), the latest message, and Cancel. */
function CallProgressView({ progress, cancelling, onCancel }: { progress: CallProgressEvent | null; cancelling: boolean; onCancel: () => void }) {
  const total = progress?.total ?? null;
  const determinate = progress !== null && total !== null && total > 0;
  return (
    <div className="call-progress" role="status" aria-label="Call in progress">
      {determinate ? (
        <progress className="call-progress-bar" max={total} value={Math.min(progress.progress, total)} />
      ) : (
        <progress className="call-progress-bar indeterminate" />
      )}
      <div className="call-progress-row">
        <span className="call-progress-message small">
          {cancelling ? "Cancelling…" : (progress?.message ?? (determinate ? `${Math.round((progress.progress / total) * 100)}%` : "Running…"))}
        </span>
        <button type="button" className="secondary call-cancel" disabled={cancelling} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
