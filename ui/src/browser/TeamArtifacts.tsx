import { useEffect, useState } from "react";
import { artifactOpen, teamArtifacts, teamMembers, teamSetPrivate } from "../ipc";
import type { TeamArtifact } from "../wire/TeamArtifact";
import type { TeamMember } from "../wire/TeamMember";
import type { TeamStatus } from "../wire/TeamStatus";
import { FilterSelect } from "./FilterSelects";
import { formatBytes, typeLabel, whenText } from "./filters";
import { canChangePrivacy } from "./team";
import { usePagedList } from "./paged";
import { type Notice, useItemActions } from "./actions";

const PAGE = 100;

interface Props {
  status: TeamStatus;
  /** Changes when calls may have stored (and uploaded) new artifacts: the list reloads. */
  refresh: number;
  onNotice: (notice: Notice) => void;
}

/** The team's artifacts: who stored each, when, with which tool; filter by member; open one
 * (fetched from the team's bucket into this machine's cache); keep one of mine private. */
export function TeamArtifacts({ status, refresh, onNotice }: Props) {
  const [member, setMember] = useState<string | null>(null);
  const [members, setMembers] = useState<TeamMember[]>([]);
  const { busy, act } = useItemActions(onNotice);
  const now = Date.now();
  const { items, more, loading, error, loadMore, update } = usePagedList<TeamArtifact>(
    (offset) => teamArtifacts(member, offset).then((page) => ({ items: page, more: page.length === PAGE })),
    (a) => a.record.id,
    [member, refresh],
  );

  useEffect(() => {
    let live = true;
    teamMembers().then(
      (people) => live && setMembers(people),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [member, refresh]);

  const open = (a: TeamArtifact) => act(a.record.id, "Opening…", () => artifactOpen(a.record.id));
  const togglePrivate = (a: TeamArtifact) =>
    act(a.record.id, a.private ? "Sharing…" : "Making private…", async () => {
      await teamSetPrivate(a.record.id, !a.private);
      update((list) => list.map((i) => (i.record.id === a.record.id ? { ...i, private: !a.private } : i)));
      onNotice({ kind: "ok", text: a.private ? `${a.record.name} is shared with the team again` : `${a.record.name} is private: only you see it` });
    });

  return (
    <>
      <div className="browser-controls">
        <div className="browser-filters">
          <FilterSelect
            label="Member"
            value={member}
            all="Everyone"
            choices={members.map((m) => ({ value: m.member, text: `${m.member === status.member ? `${m.member} (you)` : m.member} (${m.count})` }))}
            onChange={setMember}
          />
        </div>
      </div>
      {error ? <p className="error small browser-error">{error}</p> : null}
      <div className="browser-body">
        {items.length === 0 && !loading ? (
          <div className="empty-hint browser-empty">
            <h2>{member ? "Nothing from this member" : "No team files yet"}</h2>
            <p>What tools return on any member's machine is uploaded here and listed for the whole team.</p>
          </div>
        ) : (
          <table className="artifact-table team-table">
            <colgroup>
              <col className="col-thumb" />
              <col />
              <col className="col-member" />
              <col className="col-from" />
              <col className="col-size" />
              <col className="col-when" />
            </colgroup>
            <thead>
              <tr>
                <th aria-label="Type" />
                <th>Name</th>
                <th>Member</th>
                <th>From</th>
                <th>Size</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <tr key={a.record.id} data-team-artifact={a.record.id} className={a.private ? "private" : ""}>
                  <td className="row-thumb">
                    <span className="thumb small icon" aria-hidden="true">
                      <span className="thumb-label">{typeLabel(a.record)}</span>
                    </span>
                  </td>
                  <td className="row-name">
                    <span className="row-title">
                      <span className="card-name" title={a.record.name}>
                        {a.record.name}
                      </span>
                      {a.private ? <span className="pin-badge inline">Private</span> : null}
                      {a.pinned ? <span className="pin-badge inline">Pinned</span> : null}
                    </span>
                    <span className="card-meta">{a.record.mime}</span>
                    {busy[a.record.id] ? (
                      <div className="item-actions muted small">{busy[a.record.id]}</div>
                    ) : (
                      <div className="item-actions">
                        <button type="button" onClick={() => open(a)} title="Open in the canvas (fetched from the team's bucket when this machine does not have it)">
                          Open
                        </button>
                        {canChangePrivacy(a, status.member) ? (
                          <button type="button" onClick={() => togglePrivate(a)} aria-pressed={a.private} title={a.private ? "Share with the team again" : "Keep to yourself: teammates no longer see it"}>
                            {a.private ? "Share" : "Make private"}
                          </button>
                        ) : null}
                      </div>
                    )}
                  </td>
                  <td className="row-member">{a.member === status.member ? `${a.member} (you)` : a.member}</td>
                  <td className="card-meta row-from" title={`${a.record.server} / ${a.record.tool}`}>
                    {a.record.server}
                    <br />
                    {a.record.tool}
                  </td>
                  <td className="numeric">{formatBytes(a.record.size)}</td>
                  <td className="row-when">{whenText(a.record.created_at_ms, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <footer className="browser-footer">
        <span className="muted small">{loading ? "Loading…" : `${items.length} team ${items.length === 1 ? "file" : "files"}`}</span>
        {more && !loading ? (
          <button type="button" className="secondary" onClick={loadMore}>
            Load more
          </button>
        ) : null}
      </footer>
    </>
  );
}
