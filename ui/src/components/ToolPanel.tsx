import { useEffect, useRef, useState } from "react";
import { callTool, cancelCall, errorText, newCallToken, onCallProgress } from "../ipc";
import type { CallProgressEvent } from "../wire/CallProgressEvent";
import { defaultArguments } from "../schemaDefaults";
import type { CallOutcome } from "../wire/CallOutcome";
import { OutcomeView } from "./OutcomeView";
import type { ToolView } from "../wire/ToolView";
import type { ToolSelection } from "./ServerList";

interface Props {
  selection: ToolSelection;
  onOutcome: (outcome: CallOutcome) => void;
}

/** `destructiveHint: true`, or `readOnlyHint: false` with `destructiveHint` unset (the host enforces the same rule). */
function needsConfirmation(tool: ToolView): boolean {
  return tool.destructive === true || (tool.read_only === false && tool.destructive === null);
}

type Entry = { kind: "outcome"; outcome: CallOutcome } | { kind: "failure"; error: string; at: number };

export function ToolPanel({ selection, onOutcome }: Props) {
  const { server, tool } = selection;
  const [argumentsText, setArgumentsText] = useState(() => JSON.stringify(defaultArguments(tool.input_schema), null, 2));
  const [running, setRunning] = useState(false);
  const [history, setHistory] = useState<Entry[]>([]);
  const [confirming, setConfirming] = useState(false);
  // The running call's token, and its latest progress report.
  const callToken = useRef<string | null>(null);
  const [progress, setProgress] = useState<CallProgressEvent | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const risky = needsConfirmation(tool);

  useEffect(
    () =>
      onCallProgress((report) => {
        if (report.call_token === callToken.current) setProgress(report);
      }),
    [],
  );

  function cancel() {
    const token = callToken.current;
    if (!token) return;
    setCancelling(true);
    // The call's own promise rejects with the "cancelled" error; a failure here means it ended already.
    cancelCall(token).catch((error) => console.warn("cancel_call:", errorText(error)));
  }

  // A needsInput option fills its field in the arguments and calls the tool again.
  function chooseOption(field: string, value: string) {
    let current: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(argumentsText);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) current = parsed;
    } catch {
      // Start from an empty object when the text is not valid JSON.
    }
    const next = JSON.stringify({ ...current, [field]: value }, null, 2);
    setArgumentsText(next);
    void run(false, next);
  }

  async function run(confirmed: boolean, text: string = argumentsText) {
    if (risky && !confirmed) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    setRunning(true);
    setProgress(null);
    setCancelling(false);
    const token = newCallToken();
    callToken.current = token;
    try {
      const outcome = await callTool(server, tool.name, text, confirmed, token);
      setHistory((h) => [{ kind: "outcome", outcome }, ...h]);
      onOutcome(outcome);
    } catch (error) {
      setHistory((h) => [{ kind: "failure", error: errorText(error), at: Date.now() }, ...h]);
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
      <label className="field">
        <span>Arguments (JSON)</span>
        <textarea
          className="arguments"
          spellCheck={false}
          value={argumentsText}
          onChange={(e) => setArgumentsText(e.target.value)}
          rows={8}
        />
      </label>
      {confirming ? (
        <div className="confirm" role="alertdialog" aria-label="Confirm the call">
          <p>
            <strong>{tool.title ?? tool.name}</strong> may change or delete data. It will run with exactly these arguments:
          </p>
          <pre className="confirm-arguments">{argumentsText}</pre>
          <div className="confirm-actions">
            <button type="button" className="primary danger confirm-run" onClick={() => run(true)}>
              Run it
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="primary call-button" disabled={running} onClick={() => run(false)}>
          {running ? "Calling…" : "Call tool"}
        </button>
      )}
      {running ? <CallProgressView progress={progress} cancelling={cancelling} onCancel={cancel} /> : null}
      <ol className="history" aria-label="Results">
        {history.map((entry) =>
          entry.kind === "outcome" ? (
            <li key={entry.outcome.call_id} className={`result${entry.outcome.error ? " failed" : ""}`}>
              <OutcomeView outcome={entry.outcome} onChoose={chooseOption} />
            </li>
          ) : (
            <li key={entry.at} className="result failed">
              <p className="error small call-error">{entry.error}</p>
            </li>
          ),
        )}
      </ol>
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
