// The only module that talks to Tauri. Everything else imports these functions, so the UI can be
// tested (and one day hosted) without a webview.
import { convertFileSrc, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { AllowlistView } from "./wire/AllowlistView";
import type { SettingsView } from "./wire/SettingsView";
import type { ArtifactPage } from "./wire/ArtifactPage";
import type { ArtifactQuery } from "./wire/ArtifactQuery";
import type { ArtifactRecord } from "./wire/ArtifactRecord";
import type { ArtifactSource } from "./wire/ArtifactSource";
import type { CallOutcome } from "./wire/CallOutcome";
import type { CallProgressEvent } from "./wire/CallProgressEvent";
import type { CanvasIntent } from "./wire/CanvasIntent";
import type { CanvasView } from "./wire/CanvasView";
import type { ConfirmPrompt } from "./wire/ConfirmPrompt";
import type { DashboardAccess } from "./wire/DashboardAccess";
import type { ElicitationAnswer } from "./wire/ElicitationAnswer";
import type { ElicitationPrompt } from "./wire/ElicitationPrompt";
import type { ServerChangedEvent } from "./wire/ServerChangedEvent";
import type { ServerStatus } from "./wire/ServerStatus";
import type { ServerView } from "./wire/ServerView";
import type { StorageUsage } from "./wire/StorageUsage";
import type { TabId } from "./wire/TabId";
import type { ToolView } from "./wire/ToolView";

export const listServers = (): Promise<ServerView[]> => invoke("list_servers");

export const listTools = (server: string): Promise<ToolView[]> => invoke("list_tools", { server });

/** Where each configured server stands (running, exited, failed, not started), with its failures. */
export const serverStatuses = (): Promise<ServerStatus[]> => invoke("server_statuses");

/** Stops a server and starts it again; resolves once it runs, rejects with why it could not start. */
export const restartServer = (server: string): Promise<void> => invoke("restart_server", { server });

/** The end of a server's log (its stderr and MCP log messages), up to 64 KB. */
export const serverLog = (server: string): Promise<string> => invoke("server_log", { server });

/** Calls `callback` when a server says its tools, resources or prompts changed (re-list them). */
export function onServerChanged(callback: (change: ServerChangedEvent) => void): () => void {
  return subscribe("server-changed", callback);
}

/**
 * `argumentsJson` is the text the user typed; the backend parses and validates it. `confirmed`:
 * the user saw the exact arguments and agreed to run a tool that may change or delete data.
 * `callToken` names this call (unique among running ones): its progress events carry it, and
 * `cancelCall(callToken)` stops it (the promise then rejects with the "cancelled" error).
 */
export const callTool = (server: string, tool: string, argumentsJson: string, confirmed: boolean, callToken: string): Promise<CallOutcome> =>
  invoke("call_tool", { server, tool, arguments: argumentsJson, confirmed, callToken });

/** Cancels the running call started with `callToken`; its `callTool` promise then rejects. */
export const cancelCall = (callToken: string): Promise<void> => invoke("cancel_call", { callToken });

/** A fresh token for `callTool`. */
export const newCallToken = (): string => crypto.randomUUID();

/** Calls `callback` with each progress report of any running call (match on `call_token`). */
export function onCallProgress(callback: (progress: CallProgressEvent) => void): () => void {
  return subscribe("call-progress", callback);
}

/** The canvas state (panes and tabs), kept in Rust. */
export const canvasView = (): Promise<CanvasView> => invoke("canvas_view");

/** A user intent on the canvas; resolves to the new state. */
export const canvasIntent = (intent: CanvasIntent): Promise<CanvasView> => invoke("canvas_intent", { intent });

/**
 * Whether the dashboard in `tab` may load. Decided in Rust against the origin allowlist; the
 * iframe is only ever rendered for `allowed`, with the `src` given there.
 */
export const dashboardAccess = (tab: TabId): Promise<DashboardAccess> => invoke("dashboard_access", { tab });

/** The dashboard origin allowlist (`[dashboards] allowed_origins` in settings.toml). */
export const allowlistView = (): Promise<AllowlistView> => invoke("allowlist_view");

/** Allows an origin (after the user confirmed); `tab` is the dashboard that asked, for the audit log. */
export const allowlistAdd = (origin: string, tab: TabId | null): Promise<AllowlistView> => invoke("allowlist_add", { origin, tab });

/** Stops allowing an origin. */
export const allowlistRemove = (origin: string): Promise<AllowlistView> => invoke("allowlist_remove", { origin });

/**
 * Calls `callback` for each question a server asks the user (form or URL to open) while a tool
 * runs. Returns a function that stops listening.
 */
export function onElicitation(callback: (prompt: ElicitationPrompt) => void): () => void {
  return subscribe("elicitation-request", callback);
}

/** Calls `callback` with the id of a question that is no longer open (timed out, its call ended). */
export function onElicitationClosed(callback: (id: string) => void): () => void {
  return subscribe("elicitation-closed", callback);
}

/** The user's answer to question `id`. A URL is opened by the backend only on `accept`. */
export const answerElicitation = (id: string, answer: ElicitationAnswer): Promise<void> => invoke("answer_elicitation", { id, answer });

/**
 * Calls `callback` when another program (the MCP Canvas proxy) wants to run a tool that may change
 * or delete data and asks the user first. Returns a function that stops listening.
 */
export function onConfirmRequest(callback: (prompt: ConfirmPrompt) => void): () => void {
  return subscribe("confirm-request", callback);
}

/** Calls `callback` with the id of a confirmation that is no longer open (timed out, its asker left). */
export function onConfirmClosed(callback: (id: string) => void): () => void {
  return subscribe("confirm-closed", callback);
}

/** The user's decision on confirmation `id`: run the tool or not. */
export const answerConfirmation = (id: string, confirmed: boolean): Promise<void> => invoke("answer_confirmation", { id, confirmed });

/**
 * Calls `callback` with each call the proxy made, once the backend has applied it to the canvas
 * state (fetch `canvasView` to draw it).
 */
export function onProxiedCall(callback: (call: CallOutcome) => void): () => void {
  return subscribe("proxied-call", callback);
}

/** `listen` is asynchronous; the returned function also works before it has resolved. */
function subscribe<T>(event: string, callback: (payload: T) => void): () => void {
  let stopped = false;
  let unlisten: (() => void) | null = null;
  listen<T>(event, (e) => callback(e.payload)).then(
    (stop) => {
      if (stopped) stop();
      else unlisten = stop;
    },
    (error) => console.error(`cannot listen to ${event}:`, error),
  );
  return () => {
    stopped = true;
    unlisten?.();
  };
}

/** URL of a stored artifact on the `artifact:` scheme (served from the store, with its MIME type). */
export const artifactUrl = (id: string): string => convertFileSrc(id, "artifact");

/** Another view of a stored artifact on the same scheme: `sanitized` (HTML/markdown made safe),
 * `info` (JSON facts), `page/N?width=W` (a PDF page as PNG). */
export const artifactViewUrl = (id: string, view: string): string => `${convertFileSrc(id, "artifact")}/${view}`;

/** One page of stored artifacts, across sessions, filtered and sorted as asked. */
export const artifactsQuery = (query: ArtifactQuery): Promise<ArtifactPage> => invoke("artifacts_query", { query });

/** The server/tool pairs that produced stored artifacts, with counts (the browser's filters). */
export const artifactsSources = (): Promise<ArtifactSource[]> => invoke("artifacts_sources");

/** Bytes stored and pinned, against the quota. */
export const artifactsUsage = (): Promise<StorageUsage> => invoke("artifacts_usage");

/** One artifact's catalog record. */
export const artifactRecord = (id: string): Promise<ArtifactRecord> => invoke("artifact_record", { id });

/** Pins (kept through session clears, the quota and the age limit) or unpins an artifact. */
export const artifactSetPinned = (id: string, pinned: boolean): Promise<ArtifactRecord> => invoke("artifact_set_pinned", { id, pinned });

/** Deletes an artifact; its tabs close. Resolves to the new canvas. */
export const artifactRemove = (id: string): Promise<CanvasView> => invoke("artifact_remove", { id });

/** Opens a stored artifact in the focused pane. Resolves to the new canvas. */
export const artifactOpen = (id: string): Promise<CanvasView> => invoke("artifact_open", { id });

/** "Save as…": the native dialog is opened by the backend, which writes the verified copy.
 * Resolves to the path written, or `null` when the user cancelled. */
export const artifactSaveAs = (id: string): Promise<string | null> => invoke("artifact_save_as", { id });

/** Opens a private copy with the system application; rejects with the reason for programs and
 * active content. Resolves to the copy's path. */
export const artifactOpenExternal = (id: string): Promise<string> => invoke("artifact_open_external", { id });

/** Tauri rejects with the command's error string; anything else is shown as is. */
export const errorText = (error: unknown): string =>
  typeof error === "string" ? error : error instanceof Error ? error.message : JSON.stringify(error);

/** The settings in effect (`settings.toml` in the data dir). */
export const settingsView = (): Promise<SettingsView> => invoke("settings_view");

/** Changes one setting (`section.name`); `null` restores its default. Rust checks the value. */
export const settingsSet = (key: string, value: string | null): Promise<SettingsView> => invoke("settings_set", { key, value });

/** Stops a server now; its next use starts it again. */
export const stopServer = (server: string): Promise<void> => invoke("stop_server", { server });

/** Sets a server's own call timeout in servers.json; `null` goes back to the default. */
export const setServerTimeout = (server: string, seconds: number | null): Promise<void> => invoke("set_server_timeout", { server, seconds });
