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

/** What the reads of a watched resource put on the canvas: their ids (a tab's `opened_by` call),
 * their artifacts' ids and file names. */
interface Shown {
  reads: Set<string>;
  artifacts: Set<string>;
  names: Set<string>;
}
const shown = new Map<string, Shown>();

/** A read of `read.uri` the window made (its tab is that resource's while it is watched). */
export function noteRead(read: ResourceRead) {
  const k = key(read.server, read.uri);
  if (watches[k] === undefined) return;
  const seen = shown.get(k) ?? { reads: new Set(), artifacts: new Set(), names: new Set() };
  seen.reads.add(read.read_id);
  for (const artifact of read.artifacts) {
    seen.artifacts.add(artifact.id);
    seen.names.add(artifact.name);
  }
  shown.set(k, seen);
  publish({ ...watches });
}

/** The namespace of `server`'s artifact ids (`<namespace>_<sha256 prefix>`), as the store makes
 * it (crates/store/src/catalog.rs, `namespace`). */
export function artifactNamespace(server: string): string {
  const ns = [...server]
    .slice(0, 24)
    .map((c) => (/^[A-Za-z0-9]$/.test(c) ? c.toLowerCase() : "-"))
    .join("");
  return ns === "" ? "artifact" : ns;
}

/**
 * The watch a canvas tab shows, if any: a tab the window's own read of the resource opened, or
 * one the watch's re-reads opened since. A re-read is done in Rust and its event names no read
 * id, so its tab is known by what it shows: a resource read's tab (`read-…` call) of the same
 * server (the artifact id's namespace) with the file name the resource's reads had.
 */
export function tabWatch(tab: CanvasTab): { server: string; uri: string } | null {
  if (tab.content.kind !== "artifact") return null;
  const call = tab.opened_by.kind === "call" ? tab.opened_by.call_id : null;
  const { artifact_id: id, name } = tab.content;
  for (const k of Object.keys(watches)) {
    const seen = shown.get(k);
    if (!seen) continue;
    const [server, uri] = k.split("\n", 2) as [string, string];
    const mine = (call !== null && seen.reads.has(call)) || seen.artifacts.has(id) || (call?.startsWith("read-") === true && seen.names.has(name) && id.startsWith(`${artifactNamespace(server)}_`));
    if (mine) return { server, uri };
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
  setWatch(event.server, event.uri, event);
  // Once the event names the re-read (a `read_id`, see the report to Rust), its tab is known exactly.
  const readId = (event as ResourceWatchEvent & { read_id?: string | null }).read_id;
  if (event.state === "updated" && typeof readId === "string") shown.get(key(event.server, event.uri))?.reads.add(readId);
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
