// A tab opened at a search hit carries a `focus` (wire/Focus.ts): a page, a table row or a line
// for its viewer to show. Rust raises `focus.request` with every "open at", so the viewer goes
// there once per request — when it first draws the tab and each time the request changes — and
// never on the other canvas updates that hand it the same focus again (a tab opened beside it,
// a call's result), which would pull the user back from wherever they scrolled since.
import { useEffect, useRef } from "react";
import type { Focus } from "../wire/Focus";
import type { FocusPlace } from "../wire/FocusPlace";

/** The position `focus` asks for, when it is a `place` (the line or row to keep marked). */
export const focusedAt = (focus: Focus | null | undefined, place: FocusPlace): number | null => (focus?.place === place ? focus.position : null);

/**
 * Calls `go(position)` once per focus request of kind `place`, as soon as `ready` (the text
 * loaded, the page count known). A request that arrived while not ready is applied when ready.
 */
export function useFocusRequest(focus: Focus | null | undefined, place: FocusPlace, ready: boolean, go: (position: number) => void) {
  const applied = useRef<number | null>(null);
  const latest = useRef({ focus, go });
  latest.current = { focus, go };
  const request = focus?.place === place ? focus.request : null;
  useEffect(() => {
    const current = latest.current.focus;
    if (!ready || request === null || !current || applied.current === request) return;
    applied.current = request;
    latest.current.go(current.position);
  }, [ready, request]);
}
