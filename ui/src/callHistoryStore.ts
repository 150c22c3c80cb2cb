// The window's call history for this run, shared by the tool panel (which records calls) and the
// history list in the sidebar (which shows them).
import { useSyncExternalStore } from "react";
import { addCall, type CallRecord } from "./callHistory";

let history: CallRecord[] = [];
const listeners = new Set<() => void>();

/** Adds a finished call (newest first; the oldest beyond the limit are dropped). */
export function recordCall(record: CallRecord): void {
  history = addCall(history, record);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The calls of this run, newest first; re-renders when one is added. */
export function useCallHistory(): CallRecord[] {
  return useSyncExternalStore(subscribe, () => history);
}
