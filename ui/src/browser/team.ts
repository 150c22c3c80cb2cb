// The team store in the artifact browser: what its status line says, and who may do what.
import type { TeamArtifact } from "../wire/TeamArtifact";
import type { TeamStatus } from "../wire/TeamStatus";
import { formatBytes } from "./filters";

/** This machine's files, the team's files, or the team's audit trail. */
export type Scope = "local" | "team" | "audit";

/** One line for the browser's header: the team, and what is wrong or waiting. */
export function teamStatusText(status: TeamStatus): string {
  const parts = [`Team “${status.team}” as ${status.member}`];
  // Not only "unreachable": a wrong password, a schema of another version or a server that
  // ignores conditional writes land here too; the details say which.
  if (status.bucket_error) parts.push("bucket not usable");
  if (status.catalog_error) parts.push("catalog not usable");
  const pending = status.backlog.count;
  const records = status.backlog.records;
  if (pending === 0 && records === 0) parts.push("everything uploaded");
  if (pending > 0) parts.push(`${pending} ${pending === 1 ? "file" : "files"} (${formatBytes(status.backlog.bytes)}) waiting to upload`);
  if (records > 0) parts.push(`${records} audit ${records === 1 ? "entry" : "entries"} waiting`);
  return parts.join(" · ");
}

/** Whether the status line is a warning (something cannot be reached, or uploads failed). */
export function teamStatusIsWarning(status: TeamStatus): boolean {
  return Boolean(status.bucket_error || status.catalog_error || status.backlog.last_error);
}

/** The details behind the status line, for its tooltip and the expanded view. */
export function teamStatusDetails(status: TeamStatus): string[] {
  const lines = [`Bucket ${status.bucket}: ${status.bucket_error ?? "connected"}`, `Catalog ${status.catalog}: ${status.catalog_error ?? `connected (schema ${status.schema_version ?? "?"})`}`];
  if (status.backlog.last_error) lines.push(`Last upload attempt: ${status.backlog.last_error}`);
  return lines;
}

/** Only the member who stored an artifact may make it private or share it again. */
export function canChangePrivacy(artifact: TeamArtifact, me: string): boolean {
  return artifact.member === me;
}

