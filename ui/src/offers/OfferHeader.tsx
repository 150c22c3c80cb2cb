import type { ReactNode } from "react";

/** The head of a server's offer panel: "<What> of <server>", its own buttons, Reload, and close. */
export function OfferHeader({ what, server, onReload, onClose, children }: { what: string; server: string; onReload?: () => void; onClose: () => void; children?: ReactNode }) {
  return (
    <header className="offer-header">
      <h2>
        {what} <span className="muted">of {server}</span>
      </h2>
      {children}
      {onReload ? (
        <button type="button" onClick={onReload} title="List them again">
          Reload
        </button>
      ) : null}
      <button type="button" className="close" aria-label={`Close ${what.toLowerCase()}`} onClick={onClose}>
        ×
      </button>
    </header>
  );
}
