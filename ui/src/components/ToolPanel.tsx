import { useState } from "react";
import { callTool, errorText } from "../ipc";
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
  const risky = needsConfirmation(tool);

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
    try {
      const outcome = await callTool(server, tool.name, text, confirmed);
      setHistory((h) => [{ kind: "outcome", outcome }, ...h]);
      onOutcome(outcome);
    } catch (error) {
      setHistory((h) => [{ kind: "failure", error: errorText(error), at: Date.now() }, ...h]);
    } finally {
      setRunning(false);
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
