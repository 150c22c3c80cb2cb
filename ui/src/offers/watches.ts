// The resources being watched, kept for the whole window run (the resources panel comes and goes;
// the watches and what they last said stay). Fed by `resource-watch` events.
import { useSyncExternalStore } from "react";
import { onResourceWatch } from "../ipc";
import type { ResourceWatchEvent } from "../wire/ResourceWatchEvent";

/** A watch just asked for, one that waits for its first change, or its latest event. */
export type WatchState = "starting" | "watching" | ResourceWatchEvent;

let watches: Record<string, WatchState> = {};
const listeners = new Set<() => void>();
let listening: (() => void) | null = null;

const key = (server: string, uri: string) => `${server}\n${uri}`;

function publish(next: Record<string, WatchState>) {
  watches = next;
  listeners.forEach((l) => l());
}

/** Records what the window did or heard about the watch of `uri` (null: not watched). */
export function setWatch(server: string, uri: string, state: WatchState | null) {
  const { [key(server, uri)]: _old, ...rest } = watches;
  publish(state === null ? rest : { ...rest, [key(server, uri)]: state });
}

/** Applies a `resource-watch` event; returns a note for an ended watch. */
export function heard(event: ResourceWatchEvent): string | null {
  // A re-read that was on its way when the user stopped watching does not bring the watch back.
  if (event.state !== "ended" && watches[key(event.server, event.uri)] === undefined) return null;
  if (event.state === "ended") {
    setWatch(event.server, event.uri, null);
    return `Stopped watching ${event.uri}: ${event.detail ?? "the watch ended"}`;
  }
  setWatch(event.server, event.uri, event);
  return null;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  listening ??= onResourceWatch((event) => void heard(event));
  return () => listeners.delete(listener);
}

/** The watches of `server`, by URI. */
export function useWatches(server: string): Record<string, WatchState> {
  const all = useSyncExternalStore(subscribe, () => watches);
  const prefix = `${server}\n`;
  return Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}

/** A watch the server accepted: waiting for changes, unless a change was heard already. */
export function watchStarted(server: string, uri: string) {
  if (watches[key(server, uri)] === "starting") setWatch(server, uri, "watching");
}

/** What is known of the watch of `uri` (for tests and callers outside React). */
export function current(server: string, uri: string): WatchState | undefined {
  return watches[key(server, uri)];
}
