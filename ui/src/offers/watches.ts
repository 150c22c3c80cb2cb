// The resources being watched, kept for the whole window run (the resources panel comes and goes;
// the watches and what they last said stay). Fed by `resource-watch` events. Also which canvas
// tabs show a watched resource, for their live mark (`tabWatch`).
import { useSyncExternalStore } from "react";
import { onResourceWatch } from "../ipc";
import type { CanvasTab } from "../wire/CanvasTab";
import type { ResourceRead } from "../wire/ResourceRead";
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
  if (state === null) shown.delete(key(server, uri));
  publish(state === null ? rest : { ...rest, [key(server, uri)]: state });
}

/** What the reads of a watched resource put on the canvas: their ids (a tab's `opened_by` call)
 * and the ids of the artifacts the window's own reads showed. */
interface Shown {
  reads: Set<string>;
  artifacts: Set<string>;
}
const emptyShown = (): Shown => ({ reads: new Set(), artifacts: new Set() });
const shown = new Map<string, Shown>();

/** A read of `read.uri` the window made (its tab is that resource's while it is watched). */
export function noteRead(read: ResourceRead) {
  const k = key(read.server, read.uri);
  if (watches[k] === undefined) return;
  const seen = shown.get(k) ?? emptyShown();
  seen.reads.add(read.read_id);
  for (const artifact of read.artifacts) seen.artifacts.add(artifact.id);
  shown.set(k, seen);
  publish({ ...watches });
}

/**
 * The watch a canvas tab shows, if any: a tab the window's own read of the resource opened (or
 * shows one of its artifacts), or one a re-read by the watch opened or showed again since (the
 * `read_id` of its `updated` event is the tab's `opened_by` call).
 */
export function tabWatch(tab: CanvasTab): { server: string; uri: string } | null {
  if (tab.content.kind !== "artifact") return null;
  const call = tab.opened_by.kind === "call" ? tab.opened_by.call_id : null;
  const id = tab.content.artifact_id;
  for (const k of Object.keys(watches)) {
    const seen = shown.get(k);
    if (!seen) continue;
    if ((call !== null && seen.reads.has(call)) || seen.artifacts.has(id)) {
      const [server, uri] = k.split("\n", 2) as [string, string];
      return { server, uri };
    }
  }
  return null;
}

/** `tabWatch`, kept current as watches start and end (for the canvas's tab headers). */
export function useTabWatch(): (tab: CanvasTab) => { server: string; uri: string } | null {
  useSyncExternalStore(subscribe, () => watches);
  return tabWatch;
}

/** Applies a `resource-watch` event; returns a note for an ended watch. */
export function heard(event: ResourceWatchEvent): string | null {
  // A re-read that was on its way when the user stopped watching does not bring the watch back.
  if (event.state !== "ended" && watches[key(event.server, event.uri)] === undefined) return null;
  if (event.state === "ended") {
    setWatch(event.server, event.uri, null);
    return `Stopped watching ${event.uri}: ${event.detail ?? "the watch ended"}`;
  }
  // The re-read's tabs are those its read id opened or showed again.
  if (event.state === "updated" && event.read_id !== null) {
    const k = key(event.server, event.uri);
    const seen = shown.get(k) ?? emptyShown();
    seen.reads.add(event.read_id);
    shown.set(k, seen);
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
