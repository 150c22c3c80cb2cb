// Start-up work begun before React's first render (main.tsx calls `beginStartup`): the server
// list, then each server's tools, are asked for while the first render runs, and the components
// take those answers (each once) instead of asking again. The same requests as without it, only
// sooner. A server that says its tools changed before its list was taken is listed afresh (the
// server list's own listener only starts once it is drawn). Without `beginStartup` (the tests of
// other components) the components ask as usual.
import { listServers, listTools, onServerChanged } from "./ipc";
import type { ServerView } from "./wire/ServerView";
import type { ToolView } from "./wire/ToolView";

let servers: Promise<ServerView[]> | null = null;
const tools = new Map<string, Promise<ToolView[]>>();
const changed = new Set<string>();
let stopListening: (() => void) | null = null;

/** Asks for the servers and, as soon as they are known, every server's tools. */
export function beginStartup(): void {
  stopListening = onServerChanged((change) => {
    if (change.list === "tools") changed.add(change.server);
  });
  servers = listServers();
  servers.then(
    (list) => {
      for (const server of list) {
        const listed = listTools(server.name);
        // Whoever takes it handles a failure; one never taken is no unhandled rejection.
        listed.catch(() => undefined);
        tools.set(server.name, listed);
      }
    },
    () => undefined,
  );
}

/** The server list asked for at start-up (once), else a fresh one. */
export function takeServers(): Promise<ServerView[]> {
  const early = servers;
  servers = null;
  return early ?? listServers();
}

/** `server`'s tools asked for at start-up (once, unless they changed since), else a fresh
 * listing. */
export function takeTools(server: string): Promise<ToolView[]> {
  const early = tools.get(server);
  tools.delete(server);
  const stale = changed.delete(server);
  if (servers === null && tools.size === 0 && stopListening) {
    stopListening();
    stopListening = null;
    changed.clear();
  }
  return early && !stale ? early : listTools(server);
}
