// The window's keyboard shortcuts as data: a key press → what it does. App.tsx sends the tab
// actions to the canvas (Rust), the zoom actions to the viewer on screen (viewers/zoom.ts), and
// opens the search palette itself (search/SearchPalette.tsx).

export type ZoomAction = "zoom_in" | "zoom_out" | "zoom_reset";
export type ShortcutAction = "next_tab" | "previous_tab" | "close_tab" | "toggle_panels" | "open_search" | ZoomAction;

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/** What each shortcut does, for the help text. */
export const SHORTCUTS: { keys: string; action: ShortcutAction; label: string }[] = [
  { keys: "Ctrl+Tab, Ctrl+PageDown", action: "next_tab", label: "Next tab" },
  { keys: "Ctrl+Shift+Tab, Ctrl+PageUp", action: "previous_tab", label: "Previous tab" },
  { keys: "Ctrl+W", action: "close_tab", label: "Close tab" },
  { keys: "Ctrl+=, Ctrl++", action: "zoom_in", label: "Zoom in (image, PDF)" },
  { keys: "Ctrl+-", action: "zoom_out", label: "Zoom out (image, PDF)" },
  { keys: "Ctrl+0", action: "zoom_reset", label: "Fit (image, PDF)" },
  { keys: "Ctrl+B", action: "toggle_panels", label: "Hide or show the server list and tool panel" },
  { keys: "Ctrl+K", action: "open_search", label: "Search the text of every stored file" },
];

/** The action for a key press, or `null`. Ctrl (Cmd on macOS) is required; Alt never matches. */
export function shortcutFor(press: KeyPress): ShortcutAction | null {
  if (!(press.ctrlKey || press.metaKey) || press.altKey) return null;
  switch (press.key) {
    case "Tab":
      return press.shiftKey ? "previous_tab" : "next_tab";
    case "PageDown":
      return press.shiftKey ? null : "next_tab";
    case "PageUp":
      return press.shiftKey ? null : "previous_tab";
    case "w":
    case "W":
      return press.shiftKey ? null : "close_tab";
    case "=":
    case "+":
      return "zoom_in";
    case "-":
    case "_":
      return "zoom_out";
    case "0":
      return press.shiftKey ? null : "zoom_reset";
    case "b":
    case "B":
      return press.shiftKey ? null : "toggle_panels";
    case "k":
    case "K":
      return press.shiftKey ? null : "open_search";
    default:
      return null;
  }
}

/** A shortcut's keys as the platform names them: Cmd (⌘) for Ctrl on macOS (`platform`:
 * `navigator.platform` or the user agent). */
export function keysLabel(keys: string, platform: string): string {
  return /Mac|iPhone|iPad/.test(platform) ? keys.replace(/Ctrl\+/g, "⌘") : keys;
}
