import { followPointer } from "./drag";
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
  const startResize = useCallback((down: PointerEvent<HTMLElement>) => {
    const [startX, startWidth] = [down.clientX, load().toolWidth];
    followPointer(down, (e) => setSaved((s) => ({ ...s, toolWidth: clampToolWidth(startWidth + e.clientX - startX) })));
  }, []);
  const style: CSSProperties = saved.collapsed ? {} : ({ "--tool-width": `${saved.toolWidth}px` } as CSSProperties);
  return { collapsed: saved.collapsed, toggle, startResize, style };
}
