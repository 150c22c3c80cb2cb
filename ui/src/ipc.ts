// The only module that talks to Tauri. Everything else imports these functions, so the UI can be
// tested (and one day hosted) without a webview. The commands and events themselves are generated
// from Rust (`wire/commands.ts`, from src-tauri/src/command_list.rs and the app's event list):
// no command or event name is written by hand here.
import { convertFileSrc, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { type AppEvents, commands, EVENTS } from "./wire/commands";
import type { CallOutcome } from "./wire/CallOutcome";
import type { CallProgressEvent } from "./wire/CallProgressEvent";
import type { CanvasView } from "./wire/CanvasView";
import type { ConfirmPrompt } from "./wire/ConfirmPrompt";
import type { ElicitationPrompt } from "./wire/ElicitationPrompt";
import type { SamplingPrompt } from "./wire/SamplingPrompt";
import type { SamplingReviewPrompt } from "./wire/SamplingReviewPrompt";
import type { ServerChangedEvent } from "./wire/ServerChangedEvent";
import type { SignInStartedEvent } from "./wire/SignInStartedEvent";
import type { AppToolResultEvent } from "./wire/AppToolResultEvent";
import type { ResourceWatchEvent } from "./wire/ResourceWatchEvent";
import type { CommandError } from "./wire/CommandError";
import type { ErrorKind } from "./wire/ErrorKind";

const app = commands(invoke);

// The commands, typed and documented in `wire/commands.ts`.
export const {
  listServers,
  listTools,
  serverStatuses,
  restartServer,
  signInState,
  signIn,
  signOut,
  serverLog,
  stopServer,
  setServerTimeout,
  callTool,
  appLaunch,
  appCallTool,
  appReadResource,
  appOpenLink,
  appDownloadFile,
  appCreateMessage,
  appViewTool,
  appUpdateModelContext,
  appEvent,
  cancelCall,
  canvasView,
  canvasIntent,
  dashboardAccess,
  allowlistView,
  allowlistAdd,
  allowlistRemove,
  answerElicitation,
  answerSampling,
  answerSamplingReview,
  samplingLog,
  samplingSettingsView,
  samplingSettingsSet,
  samplingSetKey,
  answerConfirmation,
  artifactsQuery,
  artifactsSearch,
  artifactsSources,
  artifactsUsage,
  teamStatus,
  teamArtifacts,
  teamSearch,
  teamMembers,
  teamAudit,
  teamAuditSources,
  teamSetPrivate,
  teamSync,
  storeSettingsView,
  storeSettingsSet,
  storeSetPassword,
  artifactRecord,
  artifactSetPinned,
  artifactModelShared,
  artifactSetModelShared,
  artifactRemove,
  artifactOpen,
  artifactOpenAt,
  artifactSaveAs,
  artifactOpenExternal,
  artifactImportPick,
  artifactImportPaths,
  settingsView,
  settingsSet,
  serverResources,
  resourceRead,
  resourceWatch,
  resourceUnwatch,
  completeArgument,
  serverPrompts,
  promptRead,
  protocolLog,
  protocolExport,
  serverSkills,
  skillRead,
} = app;

/** A fresh token for `callTool`. */
export const newCallToken = (): string => crypto.randomUUID();

/** Calls `callback` with each new canvas state (a call's outcome, an intent, an artifact opened or
 * deleted, a call the proxy made): the one way the canvas reaches the UI after `canvasView`. */
export function onCanvasChanged(callback: (view: CanvasView) => void): () => void {
  return subscribe(EVENTS.canvasChanged, callback);
}

/** Calls `callback` when a server says its tools, resources or prompts changed (re-list them). */
export function onServerChanged(callback: (change: ServerChangedEvent) => void): () => void {
  return subscribe(EVENTS.serverChanged, callback);
}

/** Calls `callback` when the call of an MCP App that opened as it started ends (its result, or
 * why there is none); match on `app_id`. */
export function onSignInStarted(callback: (event: SignInStartedEvent) => void): () => void {
  return subscribe(EVENTS.signInStarted, callback);
}

export function onAppToolResult(callback: (event: AppToolResultEvent) => void): () => void {
  return subscribe(EVENTS.appToolResult, callback);
}

/** Calls `callback` each time a watched resource is read again, fails to be, or stops being watched. */
export function onResourceWatch(callback: (event: ResourceWatchEvent) => void): () => void {
  return subscribe(EVENTS.resourceWatch, callback);
}

/** Calls `callback` with each progress report of any running call (match on `call_token`). */
export function onCallProgress(callback: (progress: CallProgressEvent) => void): () => void {
  return subscribe(EVENTS.callProgress, callback);
}

/**
 * Calls `callback` for each question a server asks the user (form or URL to open) while a tool
 * runs. Returns a function that stops listening.
 */
export function onElicitation(callback: (prompt: ElicitationPrompt) => void): () => void {
  return subscribe(EVENTS.elicitationRequest, callback);
}

/** Calls `callback` for each server's sampling request to approve, edit or reject. */
export function onSamplingRequest(callback: (prompt: SamplingPrompt) => void): () => void {
  return subscribe(EVENTS.samplingRequest, callback);
}

/** Calls `callback` for each completion to review before it is returned. */
export function onSamplingReview(callback: (prompt: SamplingReviewPrompt) => void): () => void {
  return subscribe(EVENTS.samplingReview, callback);
}

/** Calls `callback` with the id of a sampling question that is no longer open. */
export function onSamplingClosed(callback: (id: string) => void): () => void {
  return subscribe(EVENTS.samplingClosed, callback);
}

/** Calls `callback` with the id of a question that is no longer open (timed out, its call ended). */
export function onElicitationClosed(callback: (id: string) => void): () => void {
  return subscribe(EVENTS.elicitationClosed, callback);
}

/**
 * Calls `callback` when another program (the MCP Canvas proxy) wants to run a tool that may change
 * or delete data and asks the user first. Returns a function that stops listening.
 */
export function onConfirmRequest(callback: (prompt: ConfirmPrompt) => void): () => void {
  return subscribe(EVENTS.confirmRequest, callback);
}

/** Calls `callback` with the id of a confirmation that is no longer open (timed out, its asker left). */
export function onConfirmClosed(callback: (id: string) => void): () => void {
  return subscribe(EVENTS.confirmClosed, callback);
}

/** Calls `callback` with each call the proxy made, once the backend has applied it to the canvas
 * state (the canvas itself arrives through `onCanvasChanged`). */
export function onProxiedCall(callback: (call: CallOutcome) => void): () => void {
  return subscribe(EVENTS.proxiedCall, callback);
}

/**
 * Files dragged from the desktop over the window: `enter` (their paths), `over` as the pointer
 * moves, `drop` (the paths), `leave` (left the window or cancelled). `x`/`y`: where, in physical
 * pixels from the webview's top-left corner (as Tauri reports it). The webview's own HTML5 drop
 * events never see these files: Tauri takes them.
 */
export type DesktopDrop =
  | { type: "enter"; paths: string[]; x: number; y: number }
  | { type: "over"; x: number; y: number }
  | { type: "drop"; paths: string[]; x: number; y: number }
  | { type: "leave" };

/** Calls `callback` with each desktop drag over the window (see `DesktopDrop`). */
export function onDesktopDrop(callback: (drop: DesktopDrop) => void): () => void {
  let stopped = false;
  let unlisten: (() => void) | null = null;
  // Loaded on first use (a file field shown): the webview module brings the window API along.
  import("@tauri-apps/api/webview")
    .then(({ getCurrentWebview }) =>
      getCurrentWebview().onDragDropEvent(({ payload }) => {
        switch (payload.type) {
          case "enter":
          case "drop":
            return callback({ type: payload.type, paths: payload.paths, x: payload.position.x, y: payload.position.y });
          case "over":
            return callback({ type: "over", x: payload.position.x, y: payload.position.y });
          case "leave":
            return callback({ type: "leave" });
        }
      }),
    )
    .then(
      (stop) => {
        if (stopped) stop();
        else unlisten = stop;
      },
      // Not in a Tauri webview (a browser preview): no desktop drops.
      (error) => console.warn("cannot hear desktop drops:", error),
    );
  return () => {
    stopped = true;
    unlisten?.();
  };
}

/** `listen` is asynchronous; the returned function also works before it has resolved. */
function subscribe<E extends keyof AppEvents>(event: E, callback: (payload: AppEvents[E]) => void): () => void {
  let stopped = false;
  let unlisten: (() => void) | null = null;
  listen<AppEvents[E]>(event, (e) => callback(e.payload)).then(
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

/** URL of an open MCP App's view on the `mcp-app:` scheme (its own origin, served with its CSP). */
export const appViewUrl = (appId: string): string => convertFileSrc(appId, "mcp-app");

/** Whether a command's rejection is a `CommandError` (every command rejects with one). */
export function isCommandError(error: unknown): error is CommandError {
  return typeof error === "object" && error !== null && typeof (error as CommandError).kind === "string" && typeof (error as CommandError).message === "string";
}

/** The message of a command's `CommandError`; anything else (a thrown Error, a string) as is. */
export const errorText = (error: unknown): string =>
  isCommandError(error) ? error.message : typeof error === "string" ? error : error instanceof Error ? error.message : JSON.stringify(error);

/** The kind of a command's `CommandError` (what the window can do about it); `bug` for anything
 * that is not one (a thrown Error is the window's own fault). */
export const errorKind = (error: unknown): ErrorKind => (isCommandError(error) ? error.kind : "bug");
