import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";

/** How an App tab is shown: in its pane, or over the whole window. */
export type DisplayMode = "inline" | "fullscreen";

/** The modes an App may ask for (`ui/request-display-mode` is answered with the one set). */
export const AVAILABLE_DISPLAY_MODES: DisplayMode[] = ["inline", "fullscreen"];

const cssVariable = (name: string): string | undefined => {
  if (typeof document === "undefined") return undefined;
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || undefined;
};

/** What `ui/initialize` tells the App about us (spec: theme, styles, display modes, container
 * size, locale, time zone, platform). Our CSS variables go out under the spec's names. */
export function hostContext(displayMode: DisplayMode, size: { width: number; height: number }): McpUiHostContext {
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
  };
}

/** The text of a `ui/message` (its text blocks; other blocks named by type). */
export function appMessageText(content: ReadonlyArray<{ type: string; text?: string }>): string {
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join(" ");
}
