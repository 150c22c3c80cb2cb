import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";

/** How an App tab is shown: in its pane, over the whole window, or floating in a corner of the
 * window above the other tabs (picture in picture: it stays while the user switches tabs). */
export type DisplayMode = "inline" | "fullscreen" | "pip";

/** The modes an App may ask for (`ui/request-display-mode` is answered with the one set). */
export const AVAILABLE_DISPLAY_MODES: DisplayMode[] = ["inline", "fullscreen", "pip"];

/** The mode to grant for `requested`: it, when both we and the App list it; else the current one
 * (the spec: never switch an App to a mode it did not declare). An App that declares no modes
 * may have any of ours. */
export function grantedMode(requested: string, current: DisplayMode, appModes: readonly string[] | undefined): DisplayMode {
  const ours = (AVAILABLE_DISPLAY_MODES as readonly string[]).includes(requested);
  const theirs = appModes === undefined || appModes.includes(requested);
  return ours && theirs ? (requested as DisplayMode) : current;
}

const cssVariable = (name: string): string | undefined => {
  if (typeof document === "undefined") return undefined;
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || undefined;
};

/** What `ui/initialize` tells the App about us (spec: theme, styles, display modes, container
 * size, locale, time zone, platform). Our CSS variables go out under the spec's names. */
export function hostContext(displayMode: DisplayMode, size: { width: number; height: number }, tool?: unknown): McpUiHostContext {
  const dark = typeof window !== "undefined" && window.matchMedia?.("(prefers-color-scheme: dark)").matches;
  const variables: Record<string, string | undefined> = {
    "--color-background-primary": cssVariable("--panel"),
    "--color-background-secondary": cssVariable("--bg"),
    "--color-text-primary": cssVariable("--text"),
    "--color-text-secondary": cssVariable("--muted"),
    "--color-border-primary": cssVariable("--border"),
    "--color-ring-primary": cssVariable("--accent"),
    "--font-sans": typeof document !== "undefined" ? getComputedStyle(document.body).fontFamily || undefined : undefined,
  };
  return {
    theme: dark ? "dark" : "light",
    styles: { variables: variables as NonNullable<McpUiHostContext["styles"]>["variables"] },
    displayMode,
    availableDisplayModes: AVAILABLE_DISPLAY_MODES,
    containerDimensions: { width: size.width, height: size.height },
    locale: typeof navigator !== "undefined" ? navigator.language : "en",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "desktop",
    userAgent: "MCP Canvas",
    deviceCapabilities: { touch: false, hover: true },
    // A desktop window has no notch or home bar.
    safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
    ...(tool ? { toolInfo: { tool: tool as NonNullable<McpUiHostContext["toolInfo"]>["tool"] } } : {}),
  };
}

/** The text of a `ui/message` (its text blocks; other blocks named by type). */
export function appMessageText(content: ReadonlyArray<{ type: string; text?: string }>): string {
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join(" ");
}
