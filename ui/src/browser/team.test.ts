import { describe, expect, it } from "vitest";
import type { TeamArtifact } from "../wire/TeamArtifact";
import { teamStatusOf } from "../test/team";
import { canChangePrivacy, teamStatusDetails, teamStatusIsWarning, teamStatusText } from "./team";

const artifact = (id: string, member: string): TeamArtifact => ({
  record: { id, sha256: "0".repeat(64), name: `${id}.pdf`, mime: "application/pdf", size: 10, server: "s", tool: "t", call_id: "c", session_id: "x", created_at_ms: 1, last_used_at_ms: 1, persistence: "session", description: null },
  member,
  private: false,
  pinned: false,
  registered_at_ms: 1,
  bucket: "s3://acme/canvas",
});

describe("team status", () => {
  it("says everything is uploaded when nothing waits", () => {
    expect(teamStatusText(teamStatusOf())).toBe("Team “analytics” as ada · everything uploaded");
    expect(teamStatusIsWarning(teamStatusOf())).toBe(false);
  });

  it("counts audit entries waiting for the team's audit trail", () => {
    const waiting = teamStatusOf({ backlog: { count: 0, bytes: 0, oldest_queued_at_ms: null, last_error: null, records: 2 } });
    expect(teamStatusText(waiting)).toBe("Team “analytics” as ada · 2 audit entries waiting");
  });

  it("counts what waits and names what cannot be reached", () => {
    const away = teamStatusOf({ catalog_error: "team catalog postgres://canvas@db/canvas: connection refused", backlog: { count: 3, bytes: 3 * 1024 * 1024, oldest_queued_at_ms: 5, last_error: "refused", records: 0 } });
    expect(teamStatusText(away)).toBe("Team “analytics” as ada · catalog not usable · 3 files (3 MB) waiting to upload");
    expect(teamStatusIsWarning(away)).toBe(true);
    expect(teamStatusDetails(away)).toEqual([
      "Bucket s3://team/canvas: connected",
      "Catalog postgres://canvas@db/canvas: team catalog postgres://canvas@db/canvas: connection refused",
      "Last upload attempt: refused",
    ]);
  });

  it("names both when both are not usable", () => {
    expect(teamStatusText(teamStatusOf({ bucket_error: "b", catalog_error: "c" }))).toBe("Team “analytics” as ada · bucket not usable · catalog not usable · everything uploaded");
  });

  it("a failed upload alone is a warning", () => {
    expect(teamStatusIsWarning(teamStatusOf({ backlog: { count: 1, bytes: 1, oldest_queued_at_ms: 1, last_error: "x", records: 0 } }))).toBe(true);
  });
});

describe("team artifacts", () => {
  it("only their member may change privacy", () => {
    expect(canChangePrivacy(artifact("a", "ada"), "ada")).toBe(true);
    expect(canChangePrivacy(artifact("a", "bo"), "ada")).toBe(false);
  });
});
