import { useCallback, useEffect, useRef, useState } from "react";
import { rowWindow, scrollTopFor, type RowWindow } from "./virtualWindow";

/** The rows of a scroll container to render (see `rowWindow`): attach `ref` to the element that
 * scrolls; the window follows its scroll position and size. `offset`: height above the first row
 * inside the container (a table header). `scrollToRow` brings a row (from 0) to the middle of the
 * view; `null` until the container is there. */
export function useRowWindow(
  rowHeight: number,
  count: number,
  offset = 0,
): { ref: (e: HTMLElement | null) => void; window: RowWindow; scrollToRow: ((index: number) => void) | null } {
  const [element, setElement] = useState<HTMLElement | null>(null);
  const [view, setView] = useState({ top: 0, height: 0 });
  const frame = useRef(0);
  useEffect(() => {
    if (!element) return;
    const measure = () => {
      cancelAnimationFrame(frame.current);
      frame.current = requestAnimationFrame(() => setView({ top: element.scrollTop, height: element.clientHeight }));
    };
    measure();
    element.addEventListener("scroll", measure, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => {
      cancelAnimationFrame(frame.current);
      element.removeEventListener("scroll", measure);
      observer.disconnect();
    };
  }, [element]);
  const ref = useCallback((e: HTMLElement | null) => setElement(e), []);
  // The scroll event that follows moves the window there.
  const scrollToRow = useCallback(
    (index: number) => {
      if (element) element.scrollTop = scrollTopFor(index, rowHeight, element.clientHeight, offset);
    },
    [element, rowHeight, offset],
  );
  return { ref, window: rowWindow(view.top - offset, view.height, rowHeight, count), scrollToRow: element ? scrollToRow : null };
}
