import type { CanvasTab } from "../wire/CanvasTab";
import type { DashboardTab } from "../wire/DashboardTab";

/**
 * A pinned dashboard restored after a restart has no token (tokens are never saved); the tool
 * sends a fresh one when it is called again.
 */
export function restoredWithoutToken(tab: CanvasTab, dashboard: DashboardTab): boolean {
  return tab.opened_by.kind === "user" && dashboard.persistence === "pinned" && !dashboard.token;
}

/** The origin of a dashboard URL for display (the decision itself is made in Rust). */
export function displayOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
