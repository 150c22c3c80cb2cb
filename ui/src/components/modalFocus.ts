// Keyboard behaviour shared by the modal dialogs (ElicitationDialog, ConfirmDialog): focus moves
// in when one opens and back out when it closes, Tab and Shift+Tab cycle inside it, and Escape
// gives the dialog's "no" answer.
import { useEffect, useRef, type RefObject } from "react";

/** What Tab can reach inside `root`, in document order (the dialog's own box is not one). */
export function focusableIn(root: HTMLElement): HTMLElement[] {
  const candidates = root.querySelectorAll<HTMLElement>(
    'button, input, select, textarea, a[href], summary, [tabindex]:not([tabindex="-1"]), [contenteditable="true"]',
  );
  return [...candidates].filter((element) => {
    if (element.matches(":disabled") || element.tabIndex < 0) return false;
    if (element instanceof HTMLInputElement && element.type === "hidden") return false;
    return !element.closest("[hidden], [inert]");
  });
}

interface Options {
  /** Escape: the dialog's "no" (Cancel, Don't run). Not called while `busy`. */
  onEscape: () => void;
  /** Where focus starts: the first field or the safe default button. `null` while it is not
   * there yet (a form still loading): looked for again as the dialog's content changes. */
  initialFocus: (dialog: HTMLElement) => HTMLElement | null;
  /** An answer is being sent: Escape does nothing. */
  busy?: boolean;
}

/**
 * Makes `dialog` (an element with `tabIndex={-1}`) behave as a modal for the keyboard. Returns the
 * props for the backdrop (a click on it does not take focus out of the dialog).
 */
export function useModalFocus(dialog: RefObject<HTMLElement | null>, { onEscape, initialFocus, busy = false }: Options) {
  // The latest callbacks, without re-running the effects (they are new on each render).
  const latest = useRef({ onEscape, initialFocus, busy });
  latest.current = { onEscape, initialFocus, busy };

  // Focus in on open (the dialog box itself until its first field exists), back out on close.
  useEffect(() => {
    const root = dialog.current;
    if (!root) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const focusStart = () => {
      const target = latest.current.initialFocus(root);
      if (target) target.focus();
      return target !== null;
    };
    let observer: MutationObserver | null = null;
    if (!focusStart()) {
      root.focus();
      observer = new MutationObserver(() => {
        // Only while the user has not moved on.
        const untouched = document.activeElement === root || document.activeElement === document.body || document.activeElement === null;
        if (!untouched || focusStart()) {
          observer?.disconnect();
          observer = null;
        }
      });
      observer.observe(root, { childList: true, subtree: true });
    }
    return () => {
      observer?.disconnect();
      // Back to where the user was, unless focus already went somewhere else on purpose.
      const now = document.activeElement;
      const lost = now === null || now === document.body || root.contains(now) || !now.isConnected;
      if (lost && previous?.isConnected) previous.focus();
    };
  }, [dialog]);

  // Escape and Tab wherever focus is (also on the page's body after a click on a gap); focus
  // that lands outside the dialog is brought back in.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const root = dialog.current;
      if (!root) return;
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        if (!latest.current.busy) latest.current.onEscape();
      } else if (event.key === "Tab" && !event.ctrlKey && !event.altKey && !event.metaKey) {
        const focusable = focusableIn(root);
        if (focusable.length === 0) {
          event.preventDefault();
          root.focus();
          return;
        }
        const first = focusable[0];
        const last = focusable[focusable.length - 1];
        const active = document.activeElement;
        const inside = active instanceof Node && root.contains(active) && active !== root;
        if (!inside) {
          event.preventDefault();
          (event.shiftKey ? last : first).focus();
        } else if (event.shiftKey && active === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && active === last) {
          event.preventDefault();
          first.focus();
        }
      }
    };
    const onFocusIn = (event: FocusEvent) => {
      const root = dialog.current;
      if (root && event.target instanceof Node && !root.contains(event.target)) {
        (focusableIn(root)[0] ?? root).focus();
      }
    };
    document.addEventListener("keydown", onKeyDown, true);
    document.addEventListener("focusin", onFocusIn);
    return () => {
      document.removeEventListener("keydown", onKeyDown, true);
      document.removeEventListener("focusin", onFocusIn);
    };
  }, [dialog]);

  return {
    // A click on the backdrop would move focus to the page behind; keep it where it is.
    onMouseDown: (event: { target: EventTarget; currentTarget: EventTarget; preventDefault: () => void }) => {
      if (event.target === event.currentTarget) event.preventDefault();
    },
  };
}

/** Keys typed in the dialog stay in it: the window's shortcuts (tabs, zoom) do not act behind it. */
export function keepKeysInDialog(event: { stopPropagation: () => void }) {
  event.stopPropagation();
}
