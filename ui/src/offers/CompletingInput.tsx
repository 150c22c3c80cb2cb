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

/**
 * A text field that offers the server's `completion/complete` suggestions as the user types. A
 * slow or failing server shows a quiet note; the field keeps working either way.
 *
 * The suggestions are a list in the flow, right under the field: they push what follows down
 * rather than cover it, so the next field and the form's button stay in view and clickable. The
 * list is the field's (arrows, Enter, Escape; its options are not tab stops): it closes on
 * Escape, on a pick, and when the focus leaves the field — Tab goes straight to the next field.
 * Left by a mouse press, it closes once the press is released, so what was pressed does not
 * move away under the pointer before its click lands.
 */
export function CompletingInput({ server, target, name, label, value, required, description, context, onChange }: Props) {
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [highlight, setHighlight] = useState(-1);
  const asked = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  // A mouse button or finger is down (the focus may be leaving by that press).
  const pressing = useRef(false);
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

  // While the list is open: whether a press is under way, for `leave` below.
  useEffect(() => {
    if (!open) return;
    const down = () => (pressing.current = true);
    const up = () => (pressing.current = false);
    window.addEventListener("pointerdown", down, true);
    window.addEventListener("pointerup", up, true);
    window.addEventListener("pointercancel", up, true);
    return () => {
      window.removeEventListener("pointerdown", down, true);
      window.removeEventListener("pointerup", up, true);
      window.removeEventListener("pointercancel", up, true);
    };
  }, [open]);

  /** The focus left the field: close the list, after the press that took the focus is released. */
  function leave() {
    const close = () => {
      if (document.activeElement !== input.current) setOpen(false);
    };
    if (!pressing.current) {
      close();
      return;
    }
    const released = () => {
      window.removeEventListener("pointerup", released, true);
      window.removeEventListener("pointercancel", released, true);
      // After the release's click has been dispatched where the user pressed.
      window.setTimeout(close, 0);
    };
    window.addEventListener("pointerup", released, true);
    window.addEventListener("pointercancel", released, true);
  }

  function pick(choice: string | undefined) {
    if (choice === undefined) return;
    onChange(choice);
    setSuggestions([]);
    setHighlight(-1);
    setOpen(false);
  }

  // Unique per field: two forms may have a variable of the same name.
  const id = `arg-${name}-${useId().replace(/:/g, "")}`;
  const listed = open && suggestions.length > 0;
  return (
    <div className="completing-field" data-argument={name}>
      <label htmlFor={id}>
        {label}
        {required ? <span className="required" aria-label="required"> *</span> : null}
      </label>
      <input
        ref={input}
        id={id}
        className="completing-input"
        value={value}
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={listed}
        aria-controls={`${id}-suggestions`}
        aria-activedescendant={listed && highlight >= 0 ? `${id}-option-${highlight}` : undefined}
        onFocus={() => setOpen(true)}
        onBlur={leave}
        onChange={(e) => {
          setOpen(true);
          onChange(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setOpen(true);
            if (suggestions.length > 0) setHighlight((h) => Math.min(h + 1, suggestions.length - 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setHighlight((h) => Math.max(h - 1, -1));
          } else if (e.key === "Enter" && listed && highlight >= 0 && highlight < suggestions.length) {
            e.preventDefault();
            pick(suggestions[highlight]);
          } else if (e.key === "Escape" && listed) {
            // Only the list closes (not a dialog or panel around the field).
            e.preventDefault();
            e.stopPropagation();
            setOpen(false);
            setHighlight(-1);
          }
        }}
      />
      {listed ? (
        <ul className="suggestions" id={`${id}-suggestions`} role="listbox" aria-label={`Suggestions for ${label}`} onMouseDown={(e) => e.preventDefault()}>
          {suggestions.map((s, i) => (
            <li key={s} id={`${id}-option-${i}`} role="option" aria-selected={i === highlight}>
              <button type="button" tabIndex={-1} className={`suggestion${i === highlight ? " active" : ""}`} onClick={() => pick(s)}>
                {s}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {description ? <p className="muted small field-hint">{description}</p> : null}
      {open && note ? <p className="muted small completion-note">{note}</p> : null}
    </div>
  );
}
