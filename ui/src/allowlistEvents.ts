// Tells open dashboard tabs that the origin allowlist changed (allowed from a tab, edited in
// Settings), so each asks again whether it may load.
type Listener = () => void;

const listeners = new Set<Listener>();

/** Subscribes; returns the unsubscribe function (for a React effect's cleanup). */
export function onAllowlistChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function allowlistChanged(): void {
  for (const listener of [...listeners]) listener();
}
