import { useEffect, useRef, useState } from "react";
import type { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import { appCallTool, appCreateMessage, appDownloadFile, appEvent, appLaunch, appOpenLink, appReadResource, appUpdateModelContext, appViewTool, appViewUrl, errorText, onAppToolResult } from "../ipc";
import type { CallOutcome } from "../wire/CallOutcome";
import type { AppLaunch } from "../wire/AppLaunch";
import type { JsonValue } from "../wire/serde_json/JsonValue";
import type { AppTab } from "../wire/AppTab";
import { appMessageText, grantedMode, hostContext, type DisplayMode } from "./appContext";
import { readViewTools, type ViewTool } from "./viewTools";
import { ViewTools } from "./ViewTools";

type State = { kind: "loading" } | { kind: "ready"; launch: AppLaunch } | { kind: "failed"; error: string };

/** The most a `ui/download-file` may carry as JSON (base64 included): about 256 MB of files. */
const DOWNLOAD_JSON_LIMIT = 360_000_000;

/** How long the view may take to list its tools, and to answer one. */
const VIEW_LIST_TIMEOUT_MS = 10_000;
const VIEW_CALL_TIMEOUT_MS = 120_000;

/** Teardowns of the Apps on screen, by App id: the tab strip awaits one before closing its tab. */
const teardowns = new Map<string, () => Promise<void>>();

/** Sends `ui/resource-teardown` to the App of `appId` (if it is running) and waits for its answer,
 * at most a second: the App may save its state before its frame goes. */
export async function teardownApp(appId: string): Promise<void> {
  const teardown = teardowns.get(appId);
  if (teardown) await teardown().catch(() => undefined);
}

/**
 * An MCP App (spec 2026-01-26): the server's `ui://` view, served by Rust on the `mcp-app:`
 * scheme (an origin of its own) with the CSP the view declared, in a frame sandboxed to scripts
 * and forms — no same-origin, so no cookies, storage, or access to this window. It talks to us
 * only over postMessage JSON-RPC, through the ext-apps package's `AppBridge`; every request it
 * makes is decided in Rust (its own server's tools, visibility, consent for links, the audit log).
 */
export function AppViewer({ app, displayMode, setDisplayMode }: { app: AppTab; displayMode: DisplayMode; setDisplayMode: (mode: DisplayMode) => void }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [messages, setMessages] = useState<string[]>([]);
  const [connected, setConnected] = useState(false);
  const frame = useRef<HTMLIFrameElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const bridgeRef = useRef<AppBridge | null>(null);
  const modeRef = useRef(displayMode);
  const initializedRef = useRef(false);
  const setModeRef = useRef(setDisplayMode);
  setModeRef.current = setDisplayMode;
  // The tools the view exposes (ext-apps view tools), and how to run one in it.
  const [viewTools, setViewTools] = useState<ViewTool[]>([]);
  const [viewToolsProblem, setViewToolsProblem] = useState<string | null>(null);
  const runViewTool = useRef<((name: string, args: Record<string, unknown>) => Promise<CallOutcome>) | null>(null);

  useEffect(() => {
    let live = true;
    appLaunch(app.app_id).then(
      (launch) => live && setState({ kind: "ready", launch }),
      (error) => live && setState({ kind: "failed", error: errorText(error) }),
    );
    return () => {
      live = false;
    };
  }, [app.app_id]);

  const launch = state.kind === "ready" ? state.launch : null;

  // The bridge: connected before the view loads (it sends `ui/initialize` as it starts).
  useEffect(() => {
    const target = frame.current?.contentWindow;
    if (!launch || !target) return;
    let closed = false;
    let bridge: AppBridge | null = null;
    const observers: Array<() => void> = [];
    // The call's end: known at launch, or arriving later; told once the App is initialized.
    let ended: { result: unknown; cancelled: string | null } | null =
      launch.result != null || launch.cancelled != null ? { result: launch.result, cancelled: launch.cancelled } : null;
    let initialized = false;
    let told = false;
    const tellEnd = () => {
      if (!initialized || !ended || told) return;
      const { result, cancelled } = ended;
      told = true;
      if (cancelled != null) void bridge?.sendToolCancelled({ reason: cancelled });
      else void bridge?.sendToolResult(result as Parameters<AppBridge["sendToolResult"]>[0]);
    };
    const stopListening = onAppToolResult((event) => {
      if (event.app_id !== launch.app_id) return;
      ended = { result: event.result, cancelled: event.cancelled };
      tellEnd();
    });
    observers.push(stopListening); // subscribed before the bridge exists: no end is missed
    // An end that came between the launch and this subscription: asked once more.
    if (!ended) {
      appLaunch(launch.app_id).then(
        (again) => {
          if (!ended && (again.result != null || again.cancelled != null)) {
            ended = { result: again.result, cancelled: again.cancelled };
            tellEnd();
          }
        },
        () => undefined,
      );
    }
    void import("@modelcontextprotocol/ext-apps/app-bridge").then(async ({ AppBridge, PostMessageTransport }) => {
      if (closed) return;
      const size = () => ({ width: box.current?.clientWidth ?? 0, height: box.current?.clientHeight ?? 0 });
      bridge = new AppBridge(
        null,
        { name: "MCP Canvas", version: "0.1.0" },
        {
          openLinks: {},
          serverTools: {},
          serverResources: {},
          logging: {},
          updateModelContext: { text: {} },
          message: { text: {} },
          downloadFile: {},
          ...(launch.sampling != null ? { sampling: launch.sampling as Record<string, never> } : {}),
        },
        { hostContext: hostContext(modeRef.current, size(), launch.tool_info) },
      );
      bridgeRef.current = bridge;
      const id = launch.app_id;
      // The view's own tools, when it says it has some (`appCapabilities.tools`): listed now and
      // again when it says they changed (at most every half second).
      let listing = false;
      let listAgain = false;
      const listViewTools = async () => {
        if (listing) {
          listAgain = true;
          return;
        }
        listing = true;
        try {
          const answer = await bridge?.listTools({}, { timeout: VIEW_LIST_TIMEOUT_MS });
          if (!closed) {
            setViewTools(readViewTools(answer));
            setViewToolsProblem(null);
          }
        } catch (error) {
          if (!closed) setViewToolsProblem(`The view did not list its tools: ${errorText(error)}`);
        }
        await new Promise((r) => setTimeout(r, 500));
        listing = false;
        if (listAgain && !closed) {
          listAgain = false;
          void listViewTools();
        }
      };
      bridge.oninitialized = () => {
        initialized = true;
        initializedRef.current = true;
        void appEvent(id, "initialized", {}).catch(() => undefined);
        void bridge?.sendToolInput({ arguments: launch.arguments as Record<string, unknown> });
        tellEnd();
        const offers = bridge?.getAppCapabilities()?.tools;
        if (offers) {
          if (offers.listChanged) {
            (bridge?.setNotificationHandler as unknown as (method: string, handler: () => void) => void)("notifications/tools/list_changed", () => void listViewTools());
          }
          void listViewTools();
        }
      };
      // A view tool the user runs from the bar: asked in the view, its answer stored by Rust.
      runViewTool.current = async (name, args) => {
        if (!bridge || closed) throw new Error("the App is closed");
        const result = await bridge.callTool({ name, arguments: args }, { timeout: VIEW_CALL_TIMEOUT_MS });
        const size = JSON.stringify(result).length;
        if (size > DOWNLOAD_JSON_LIMIT) throw new Error(`the view answered with ${(size / 1e6).toFixed(0)} MB; MCP Canvas takes at most ${DOWNLOAD_JSON_LIMIT / 1e6} MB from an App at once`);
        return appViewTool(id, name, args as unknown as JsonValue, result as unknown as JsonValue);
      };
      // Rust refuses with a sentence; the App hears it as the JSON-RPC error's message.
      const refused = (error: unknown): never => {
        throw new Error(errorText(error));
      };
      bridge.oncalltool = async (params) => (await appCallTool(id, params.name, (params.arguments ?? {}) as JsonValue).catch(refused)) as Awaited<ReturnType<NonNullable<AppBridge["oncalltool"]>>>;
      bridge.onreadresource = async (params) => (await appReadResource(id, params.uri).catch(refused)) as Awaited<ReturnType<NonNullable<AppBridge["onreadresource"]>>>;
      bridge.onopenlink = async ({ url }) => ((await appOpenLink(id, url).catch(refused)) ? {} : { isError: true });
      bridge.onmessage = async ({ role, content }) => {
        await appEvent(id, "message", { role, content } as unknown as JsonValue);
        setMessages((m) => [...m.slice(-4), appMessageText(content)]);
        return {};
      };
      bridge.onrequestdisplaymode = async ({ mode }) => {
        const granted: DisplayMode = grantedMode(mode, modeRef.current, bridge?.getAppCapabilities()?.availableDisplayModes);
        setModeRef.current(granted);
        await appEvent(id, "display-mode", { requested: mode, granted });
        return { mode: granted };
      };
      bridge.onupdatemodelcontext = async (params) => {
        await appUpdateModelContext(id, params as unknown as JsonValue);
        return {};
      };
      bridge.onsizechange = () => undefined; // the App fills its pane; the pane decides the size
      // The App's log lines go to the audit log, at most 20 a second (an App may log in a loop).
      let logged = { second: 0, count: 0 };
      bridge.onloggingmessage = ({ level, data }) => {
        const second = Math.floor(Date.now() / 1000);
        logged = logged.second === second ? { second, count: logged.count + 1 } : { second, count: 1 };
        if (logged.count <= 20) void appEvent(id, "log", { level, data } as unknown as JsonValue).catch(() => undefined);
      };
      // `ui/download-file`: asked in our dialog, stored, opened in the canvas. Anything over the
      // limit is refused here, before megabytes cross into Rust.
      bridge.ondownloadfile = async ({ contents }) => {
        const size = JSON.stringify(contents).length;
        if (size > DOWNLOAD_JSON_LIMIT) {
          setMessages((m) => [...m.slice(-4), `asked to save ${(size / 1e6).toFixed(0)} MB; an App may hand over at most ${DOWNLOAD_JSON_LIMIT / 1e6} MB at once`]);
          return { isError: true };
        }
        return (await appDownloadFile(id, contents as unknown as JsonValue[]).then(
          () => ({}),
          (error) => {
            setMessages((m) => [...m.slice(-4), `could not save: ${errorText(error)}`]);
            return { isError: true };
          },
        )) as Awaited<ReturnType<NonNullable<AppBridge["ondownloadfile"]>>>;
      };
      // `sampling/createMessage` from the view: the server's sampling policy, our approval dialog.
      if (launch.sampling != null) {
        bridge.oncreatesamplingmessage = async (params) => (await appCreateMessage(id, params as unknown as JsonValue).catch(refused)) as Awaited<ReturnType<NonNullable<AppBridge["oncreatesamplingmessage"]>>>;
      }
      await bridge.connect(new PostMessageTransport(target, target));
      if (closed) return;
      // Only now does the view load: its first message cannot be missed.
      setConnected(true);
      teardowns.set(id, async () => {
        // Never holds the tab open: an App that does not answer (or a bridge already closed) gets
        // a second at most.
        const told = (async () => bridge?.teardownResource({}))().catch(() => undefined);
        await Promise.race([told, new Promise((r) => setTimeout(r, 1000))]);
      });
      // The theme and the container's size as they change.
      const dark = window.matchMedia("(prefers-color-scheme: dark)");
      // Nothing goes to the App before it said `initialized`.
      const themeChanged = () => initialized && bridge?.sendHostContextChange(hostContext(modeRef.current, size()));
      dark.addEventListener("change", themeChanged);
      observers.push(() => dark.removeEventListener("change", themeChanged));
      if (box.current && typeof ResizeObserver !== "undefined") {
        const resize = new ResizeObserver(() => initialized && bridge?.sendHostContextChange({ containerDimensions: size() }));
        resize.observe(box.current);
        observers.push(() => resize.disconnect());
      }
    });
    return () => {
      closed = true;
      observers.forEach((stop) => stop());
      teardowns.delete(launch.app_id);
      bridgeRef.current = null;
      runViewTool.current = null;
      initializedRef.current = false;
      setViewTools([]);
      setViewToolsProblem(null);
      void bridge?.close();
    };
  }, [launch]);

  // The display mode the user or the App chose, told to the App.
  useEffect(() => {
    modeRef.current = displayMode;
    if (initializedRef.current) void bridgeRef.current?.sendHostContextChange({ displayMode });
  }, [displayMode]);

  return (
    <div className="app-viewer" data-app={app.app_id} ref={box}>
      {state.kind === "loading" ? <p className="viewer-status muted">Loading the App of {app.server}…</p> : null}
      {state.kind === "failed" ? <p className="viewer-status error">{state.error}</p> : null}
      {messages.length ? (
        <div className="app-messages" role="status">
          {messages.map((m, i) => (
            <p key={i}>
              <strong>The App says:</strong> {m}
            </p>
          ))}
        </div>
      ) : null}
      <ViewTools
        tools={viewTools}
        problem={viewToolsProblem}
        run={(name, args) => (runViewTool.current ? runViewTool.current(name, args) : Promise.reject(new Error("the App is not running")))}
      />
      {launch ? (
        <iframe
          ref={frame}
          className={`app-frame${launch.prefers_border === false ? " borderless" : ""}`}
          title={`${app.tool_title ?? app.tool} (App of ${app.server})`}
          src={connected ? appViewUrl(launch.app_id) : undefined}
          sandbox="allow-scripts allow-forms"
          allow={launch.allow}
          referrerPolicy="no-referrer"
          data-csp={launch.csp}
        />
      ) : null}
    </div>
  );
}
