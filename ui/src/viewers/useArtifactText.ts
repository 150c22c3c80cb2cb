import { useEffect, useState } from "react";
import { artifactUrl } from "../ipc";

/** Longest text a viewer loads; beyond it the viewer says so (the file stays whole in the store). */
export const MAX_TEXT_BYTES = 4 * 1024 * 1024;

export type TextState = { kind: "loading" } | { kind: "ready"; text: string; truncated: boolean } | { kind: "failed"; error: string };

/** The artifact's bytes as text, fetched from the `artifact:` scheme. */
export function useArtifactText(id: string): TextState {
  const [state, setState] = useState<TextState>({ kind: "loading" });
  useEffect(() => {
    let live = true;
    setState({ kind: "loading" });
    fetch(artifactUrl(id))
      .then(async (response) => {
        if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
        const buffer = await response.arrayBuffer();
        const truncated = buffer.byteLength > MAX_TEXT_BYTES;
        const text = new TextDecoder().decode(truncated ? buffer.slice(0, MAX_TEXT_BYTES) : buffer);
        if (live) setState({ kind: "ready", text, truncated });
      })
      .catch((error: unknown) => live && setState({ kind: "failed", error: String(error) }));
    return () => {
      live = false;
    };
  }, [id]);
  return state;
}
