// Files dropped from the desktop onto a file field. Tauri takes desktop drops away from the page
// (no HTML5 `drop` event carries them): it reports paths and a position for the whole webview
// (`onDesktopDrop` in ipc.ts). Here one listener, live while some file field is shown, routes each
// drop: to the file field under the pointer; else, when the pointer is over a tool panel, to that
// panel's first file field; else — when the position hits nothing in the page at all (a platform
// reporting it in other units) and exactly one panel has file fields — to that panel's first field.
// Anywhere else in the window (the canvas, the sidebar) a desktop drop does nothing. The field
// that would take the drop is marked (`data-drop-hover`) while files are dragged over.
import { onDesktopDrop, type DesktopDrop } from "../ipc";

interface Target {
  element: HTMLElement;
  drop: (paths: string[]) => void;
}

const targets = new Set<Target>();
let stop: (() => void) | null = null;
let hovered: HTMLElement | null = null;

/** Makes `element` (a file field) take desktop drops routed to it; returns a function that stops. */
export function registerDesktopDropTarget(element: HTMLElement, drop: (paths: string[]) => void): () => void {
  const target = { element, drop };
  targets.add(target);
  stop ??= onDesktopDrop(handle);
  return () => {
    targets.delete(target);
    if (hovered === element) setHovered(null);
    if (targets.size === 0) {
      stop?.();
      stop = null;
    }
  };
}

/** CSS pixels to try for a position Tauri gives in physical pixels: scaled by the device pixel
 * ratio, then as given (some platforms already report CSS pixels). */
function pointsFor(x: number, y: number): { x: number; y: number }[] {
  const ratio = window.devicePixelRatio || 1;
  const points = [{ x: x / ratio, y: y / ratio }];
  if (ratio !== 1) points.push({ x, y });
  return points;
}

const inDocumentOrder = (a: Target, b: Target) => (a.element.compareDocumentPosition(b.element) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);

/** The file field a desktop drop at (`x`, `y`) (physical pixels) goes to, or `null`. */
export function desktopDropTarget(x: number, y: number): Target | null {
  const live = [...targets].filter((t) => t.element.isConnected).sort(inDocumentOrder);
  if (live.length === 0) return null;
  const hits = typeof document.elementFromPoint === "function" ? pointsFor(x, y).map((p) => document.elementFromPoint(p.x, p.y)).filter((e): e is Element => e !== null) : [];
  for (const hit of hits) {
    const field = live.find((t) => t.element.contains(hit));
    if (field) return field;
  }
  for (const hit of hits) {
    const panel = hit.closest(".tool-panel");
    const field = panel ? live.find((t) => panel.contains(t.element)) : undefined;
    if (field) return field;
  }
  if (hits.length === 0) {
    const panels = new Set(live.map((t) => t.element.closest(".tool-panel")));
    if (panels.size === 1) return live[0];
  }
  return null;
}

function setHovered(element: HTMLElement | null) {
  if (hovered === element) return;
  hovered?.removeAttribute("data-drop-hover");
  hovered = element;
  hovered?.setAttribute("data-drop-hover", "");
}

function handle(event: DesktopDrop) {
  switch (event.type) {
    case "enter":
    case "over":
      setHovered(desktopDropTarget(event.x, event.y)?.element ?? null);
      return;
    case "drop": {
      const target = desktopDropTarget(event.x, event.y);
      setHovered(null);
      if (target && event.paths.length > 0) target.drop(event.paths);
      return;
    }
    case "leave":
      setHovered(null);
  }
}
