import { useState } from "react";
import { errorText, resourceRead } from "../ipc";
import { resourceLinks } from "../offers/links";
import type { CallOutcome } from "../wire/CallOutcome";

interface Props {
  outcome: CallOutcome;
  onChoose: (field: string, value: string) => void;
  /** "Fix the arguments" for a tool's own error (`isError`), as a refused call's card offers it:
   * back to the argument form. Not given where there is no form (resource and prompt reads). */
  onFixArguments?: () => void;
}

/** One call's outcome in the results list: the summary, and what needs the user's attention. */
export function OutcomeView({ outcome, onChoose, onFixArguments }: Props) {
  const { error, needs_input: needsInput, warnings } = outcome;
  return (
    <div className="outcome">
      {error ? (
        <div className="outcome-error-box">
          <p className="error small outcome-error">
            <strong>{error.code}</strong> {error.message}
            {error.retryable ? " (retrying may help)" : ""}
          </p>
          {/* Servers refuse arguments this way too; not when the tool says a retry may help. */}
          {onFixArguments && error.retryable !== true ? (
            <button type="button" className="command-error-action remedy-bad_arguments" onClick={onFixArguments}>
              Fix the arguments
            </button>
          ) : null}
        </div>
      ) : null}
      {needsInput ? (
        <div className="needs-input">
          <p className="needs-input-message">{needsInput.message}</p>
          {needsInput.reason ? <p className="muted small">{needsInput.reason}</p> : null}
          <div className="chips">
            {needsInput.options.map((option) => (
              <button
                type="button"
                key={`${option.field ?? ""}=${option.value}`}
                className="chip"
                title={option.description ?? undefined}
                onClick={() => option.field && onChoose(option.field, option.value)}
                disabled={!option.field}
              >
                {option.field ? `${option.field}: ` : ""}
                {option.label}
              </button>
            ))}
            {Object.entries(needsInput.suggestions).flatMap(([field, values]) =>
              (values ?? []).map((value) => (
                <button type="button" key={`${field}~${value}`} className="chip" onClick={() => onChoose(field, value)}>
                  {field}: {value}
                </button>
              )),
            )}
          </div>
        </div>
      ) : null}
      <pre className="summary">{outcome.summary}</pre>
      <ResourceLinks outcome={outcome} />
      {warnings.length > 0 ? (
        <details className="warnings">
          <summary>
            {warnings.length} warning{warnings.length === 1 ? "" : "s"}
          </summary>
          <ul>
            {warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

/** The result's `resource_link`s, each opened in the canvas like a resource read (stored, shown with
 * the same rules as a tool result). */
function ResourceLinks({ outcome }: { outcome: CallOutcome }) {
  const links = resourceLinks(outcome.texts);
  const [opening, setOpening] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (links.length === 0) return null;
  async function open(uri: string) {
    setOpening(uri);
    setError(null);
    try {
      await resourceRead(outcome.server, uri);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setOpening(null);
    }
  }
  return (
    <div className="resource-links">
      <p className="muted small">Linked resources</p>
      <ul>
        {links.map((link) => (
          <li key={link.uri}>
            <button type="button" className="resource-link" data-uri={link.uri} disabled={opening !== null} onClick={() => void open(link.uri)} title={link.description ?? link.uri}>
              {opening === link.uri ? "Opening…" : `Open ${link.name}`}
            </button>
            <span className="muted small"> {link.uri}</span>
          </li>
        ))}
      </ul>
      {error ? <p className="error small">{error}</p> : null}
    </div>
  );
}
