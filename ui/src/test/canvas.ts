import type { CanvasTab } from "../wire/CanvasTab";
import type { OutcomeArtifact } from "../wire/OutcomeArtifact";
import type { ResourceRead } from "../wire/ResourceRead";
import { emptyOutcome } from "./outcomes";

/** A canvas tab showing stored artifact `id` (file `name`), opened by call `callId`. */
export function artifactTab(id: number, artifactId: string, name: string, callId: string): CanvasTab {
  return {
    id,
    label: name,
    content: { kind: "artifact", artifact_id: artifactId, name, mime: "audio/ogg", viewer: "audio" },
    opened_by: { kind: "call", call_id: callId },
    pinned: false,
    floating: false,
    focus: null,
  };
}

/** A resource read of `uri` on `server` that stored one artifact. */
export function resourceReadOf(server: string, uri: string, readId: string, artifactId: string, name: string): ResourceRead {
  const artifact: OutcomeArtifact = { id: artifactId, name, mime: "audio/ogg", size: 10, sha256: "00", description: null, viewer: "audio", source: "contents[0]", audience: "both", pages: null, width: null, height: null };
  return { ...emptyOutcome("resources/read", "read"), server, read_id: readId, uri, artifacts: [artifact] };
}
