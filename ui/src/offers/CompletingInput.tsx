import { useEffect, useId, useRef, useState } from "react";
import { completeArgument, errorText } from "../ipc";
import type { CompletionTarget } from "../wire/CompletionTarget";

/** How long typing must pause before the server is asked (it is asked per pause, not per key). */
export const COMPLETION_DEBOUNCE_MS = 180;

interface Props {
  server: string;
  target: CompletionTarget;
  name: string;
  label: string;
  value: string;
  required?: boolean;
  description?: string | null;
  /** The other arguments already given (the server may narrow its suggestions with them). */
  context: Record<string, string>;
  onChange: (value: string) => void;
}

/** A text field that offers the server's `completion/complete` suggestions as the user types. A
 * slow or failing server shows a quiet note; the field keeps working either way. */
export function CompletingInput({ server, target, name, label, value, required, description, context, onChange }: Props) {
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [highlight, setHighlight] = useState(-1);
  const asked = useRef(0);
  const contextKey = JSON.stringify(context);
  const targetKey = JSON.stringify(target);

  useEffect(() => {
    if (!open) return;
    const ask = ++asked.current;
    const timer = window.setTimeout(() => {
      completeArgument(server, target, name, value, context).then(
        (s) => {
          if (ask !== asked.current) return; // a later keystroke's answer wins
          setSuggestions(s.values.filter((v) => v !== value));
          setNote(s.note);
          setHighlight(-1);
        },
        (error) => ask === asked.current && setNote(errorText(error)),
      );
    }, COMPLETION_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
    // `target` and `context` by value: a new object with the same content asks nothing new.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [server, targetKey, name, value, contextKey, open]);

  function pick(choice: string | undefined) {
    if (choice === undefined) return;
    onChange(choice);
    setSuggestions([]);
    setHighlight(-1);
    setOpen(false);
  }

  // Unique per field: two forms may have a variable of the same name.
  const id = `arg-${name}-${useId().replace(/:/g, "")}`;
  return (
    <div className="completing-field" data-argument={name}>
      <label htmlFor={id}>
        {label}
        {required ? <span className="required" aria-label="required"> *</span> : null}
      </label>
      <input
        id={id}
        className="completing-input"
        value={value}
        autoComplete="off"
        role="combobox"
        aria-expanded={open && suggestions.length > 0}
        aria-controls={`${id}-suggestions`}
        onFocus={() => setOpen(true)}
        onBlur={() => window.setTimeout(() => setOpen(false), 150)}
        onChange={(e) => {
          setOpen(true);
          onChange(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && suggestions.length > 0) {
            e.preventDefault();
            setHighlight((h) => Math.min(h + 1, suggestions.length - 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setHighlight((h) => Math.max(h - 1, -1));
          } else if (e.key === "Enter" && highlight >= 0 && highlight < suggestions.length && open) {
            e.preventDefault();
            pick(suggestions[highlight]);
          } else if (e.key === "Escape") {
            setOpen(false);
          }
        }}
      />
      {description ? <p className="muted small field-hint">{description}</p> : null}
      {open && suggestions.length > 0 ? (
        <ul className="suggestions" id={`${id}-suggestions`} role="listbox">
          {suggestions.map((s, i) => (
            <li key={s} role="option" aria-selected={i === highlight}>
              <button type="button" className={`suggestion${i === highlight ? " active" : ""}`} onMouseDown={(e) => e.preventDefault()} onClick={() => pick(s)}>
                {s}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {open && note ? <p className="muted small completion-note">{note}</p> : null}
    </div>
  );
}
