import { useCallback, useEffect, useState, type CSSProperties, type PointerEvent } from "react";

const KEY = "mcp-canvas.panels";
export const TOOL_WIDTH = { min: 260, default: 340, max: 640 };

interface Saved {
  collapsed: boolean;
  toolWidth: number;
}

/** Clamps a dragged tool-panel width to what still leaves the canvas usable. */
export const clampToolWidth = (width: number): number => Math.round(Math.min(TOOL_WIDTH.max, Math.max(TOOL_WIDTH.min, width)));

function load(): Saved {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "{}") as Partial<Saved>;
    return { collapsed: saved.collapsed === true, toolWidth: clampToolWidth(Number(saved.toolWidth) || TOOL_WIDTH.default) };
  } catch {
    return { collapsed: false, toolWidth: TOOL_WIDTH.default };
  }
}

/**
 * The window's columns: the server list and the tool panel can be hidden (Ctrl+B, or the button
 * at the canvas's top left) so the canvas gets the whole window, and the tool panel's width is
 * dragged at its right edge. Kept across restarts (local storage).
 */
export function usePanelLayout() {
  const [saved, setSaved] = useState<Saved>(load);
  useEffect(() => {
    try {
      localStorage.setItem(KEY, JSON.stringify(saved));
    } catch {
      // Storage full or unavailable: the layout just is not remembered.
    }
  }, [saved]);
  const toggle = useCallback(() => setSaved((s) => ({ ...s, collapsed: !s.collapsed })), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "b") {
        e.preventDefault();
        toggle();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [toggle]);
  const startResize = useCallback((down: PointerEvent<HTMLElement>) => {
    down.preventDefault();
    const startX = down.clientX;
    const startWidth = load().toolWidth;
    document.body.classList.add("resizing");
    const move = (e: globalThis.PointerEvent) => setSaved((s) => ({ ...s, toolWidth: clampToolWidth(startWidth + e.clientX - startX) }));
    const up = () => {
      document.body.classList.remove("resizing");
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }, []);
  const style: CSSProperties = saved.collapsed ? {} : ({ "--tool-width": `${saved.toolWidth}px` } as CSSProperties);
  return { collapsed: saved.collapsed, toggle, startResize, style };
}
