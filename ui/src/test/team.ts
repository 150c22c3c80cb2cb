import type { TeamStatus } from "../wire/TeamStatus";

/** A team store's status with the bucket and catalog connected and nothing waiting to upload,
 * as member "ada" of team "analytics"; `over` changes any part of it. */
export function teamStatusOf(over: Partial<TeamStatus> = {}): TeamStatus {
  return {
    team: "analytics",
    member: "ada",
    bucket: "s3://team/canvas",
    bucket_error: null,
    catalog: "postgres://canvas@db/canvas",
    catalog_error: null,
    schema_version: 3,
    backlog: { count: 0, bytes: 0, oldest_queued_at_ms: null, last_error: null, records: 0 },
    ...over,
  };
}
