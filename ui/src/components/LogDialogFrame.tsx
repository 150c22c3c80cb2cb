import { useRef, type ReactNode } from "react";
import { keepKeysInDialog, useModalFocus } from "./modalFocus";

interface Props {
  /** What kind of log: "Server log", "Sampling transcript". */
  eyebrow: string;
  server: string;
  /** Class names of the dialog box, and the prefix of its buttons' classes (`<prefix>-refresh`, `<prefix>-close`). */
  className: string;
  prefix: string;
  closeLabel: string;
  onRefresh: () => void;
  onClose: () => void;
  children: ReactNode;
}

/**
 * The frame of a server's log-like dialog: a modal (focus starts on Close, Tab stays inside,
 * Escape or a click on the backdrop closes), the server's name, Refresh and Close.
 */
export function LogDialogFrame({ eyebrow, server, className, prefix, closeLabel, onRefresh, onClose, children }: Props) {
  const dialog = useRef<HTMLDivElement>(null);
  const backdrop = useModalFocus(dialog, {
    onEscape: onClose,
    initialFocus: (root) => root.querySelector<HTMLElement>(`button.${prefix}-close`),
  });
  const titleId = `${prefix}-title`;
  return (
    <div className="elicitation-backdrop" {...backdrop} onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={dialog} className={`elicitation-dialog ${className}`} role="dialog" aria-modal="true" aria-labelledby={titleId} data-server={server} tabIndex={-1} onKeyDown={keepKeysInDialog}>
        <div className="server-log-header">
          <div>
            <p className="eyebrow">{eyebrow}</p>
            <h2 id={titleId} className="elicitation-message">
              {server}
            </h2>
          </div>
          <div className="server-log-actions">
            <button type="button" className={`secondary ${prefix}-refresh`} onClick={onRefresh}>
              Refresh
            </button>
            <button type="button" className={`secondary ${prefix}-close`} onClick={onClose} aria-label={closeLabel}>
              Close
            </button>
          </div>
        </div>
        {children}
      </div>
    </div>
  );
}
