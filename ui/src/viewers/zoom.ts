import { useEffect, useRef } from "react";
import type { ZoomAction } from "../shortcuts";

// Zoom shortcuts reach the viewer on screen in the focused pane: App.tsx emits, the image and PDF
// viewers of the active pane listen.
const listeners = new Set<(action: ZoomAction) => void>();

/** Sends a zoom action to the listening viewer; `false` when none listens. */
export function emitZoom(action: ZoomAction): boolean {
  listeners.forEach((listener) => listener(action));
  return listeners.size > 0;
}

/** Calls `handler` with zoom shortcuts while `active` (the viewer is in the focused pane). */
export function useZoomShortcuts(active: boolean, handler: (action: ZoomAction) => void) {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    if (!active) return;
    const listener = (action: ZoomAction) => latest.current(action);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [active]);
}
