import { useEffect, useState } from "react";
import { onServerChanged } from "../ipc";
import type { CallOutcome } from "../wire/CallOutcome";
import type { ToolOutcome } from "../wire/ToolOutcome";

/** A resource or prompt read as the outcome view shows a call (they carry the same outcome). */
export function readAsOutcome(callId: string, server: string, tool: string, read: ToolOutcome): CallOutcome {
  return { ...read, call_id: callId, server, tool };
}

/** A list a server gives, as it loads. */
export type Listing<T> = { kind: "loading" } | { kind: "ready"; value: T } | { kind: "failed"; error: unknown };

/**
 * `fetch(server)`, listed on mount, on `reload()`, and again when the server says its `list`
 * changed. A new listing keeps showing the last one until it arrives; an answer for a server the
 * panel no longer shows is dropped.
 */
export function useServerListing<T>(server: string, fetch: (server: string) => Promise<T>, list?: "resources" | "prompts"): [Listing<T>, () => void] {
  const [listing, setListing] = useState<Listing<T>>({ kind: "loading" });
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    let live = true;
    setListing((l) => (l.kind === "ready" ? l : { kind: "loading" }));
    fetch(server).then(
      (value) => live && setListing({ kind: "ready", value }),
      (error) => live && setListing({ kind: "failed", error }),
    );
    return () => {
      live = false;
    };
    // `fetch` is one of the ipc functions: the same function for the panel's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [server, reloads]);
  useEffect(() => (list ? onServerChanged((change) => change.server === server && change.list === list && setReloads((n) => n + 1)) : undefined), [server, list]);
  return [listing, () => setReloads((n) => n + 1)];
}
