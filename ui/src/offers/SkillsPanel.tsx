import { useState } from "react";
import { CommandErrorView } from "../components/CommandErrorView";
import { OfferHeader } from "./OfferHeader";
import { useServerListing } from "./shared";
import { formatBytes } from "../browser/filters";
import { serverSkills, skillRead } from "../ipc";
import type { SkillRead } from "../wire/SkillRead";

/** A server's skills: each with its files, sizes and digests as listed. Opening one reads it,
 * checks it against the listing, and only then shows it in the canvas. */
export function SkillsPanel({ server, onClose }: { server: string; onClose: () => void }) {
  const [listing, reload] = useServerListing(server, serverSkills);
  const [busy, setBusy] = useState<string | null>(null);
  const [last, setLast] = useState<SkillRead | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function open(skill: string, file: string | null) {
    setBusy(file ?? skill);
    setError(null);
    setLast(null);
    try {
      setLast(await skillRead(server, skill, file));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="offer-panel skills-panel" data-server={server}>
      <OfferHeader what="Skills" server={server} onReload={() => reload()} onClose={onClose} />
      {listing.kind === "loading" ? <p className="muted">Listing…</p> : null}
      {listing.kind === "failed" ? <CommandErrorView error={listing.error} server={server} onRetry={() => reload()} /> : null}
      {listing.kind === "ready" && !listing.value.supported ? <p className="muted">{server} offers no skills.</p> : null}
      {listing.kind === "ready" && listing.value.supported && listing.value.skills.length === 0 ? <p className="muted">{server} lists no skills.</p> : null}
      {error !== null ? <CommandErrorView error={error} server={server} className="offer-error" /> : null}
      {last ? (
        <p className="muted small skill-verified">
          Opened {last.uri} — checked: {last.verified.join(", ")}.
        </p>
      ) : null}
      <ul className="offer-list">
        {listing.kind === "ready"
          ? listing.value.skills.map((skill) => (
              <li key={skill.uri} className="skill-item" data-skill={skill.name}>
                <div className="offer-item-text">
                  <span className="offer-title">{skill.name}</span>
                  <span className="muted small">{skill.description}</span>
                  {skill.problem ? <span className="error small">{skill.problem}</span> : null}
                </div>
                <button type="button" className="skill-open" disabled={busy !== null || skill.problem !== null} onClick={() => void open(skill.uri, null)}>
                  {busy === skill.uri ? "Checking…" : "Open SKILL.md"}
                </button>
                {skill.files === null ? (
                  <p className="muted small">Its files are listed on request (dynamic); only SKILL.md can be opened here.</p>
                ) : (
                  <ul className="skill-files">
                    {skill.files
                      .filter((f) => f.uri !== skill.uri)
                      .map((f) => (
                        <li key={f.uri}>
                          <button type="button" className="skill-file" data-path={f.path} disabled={busy !== null || skill.problem !== null} onClick={() => void open(skill.uri, f.uri)} title={`${f.digest}`}>
                            {busy === f.uri ? "Checking…" : f.path}
                          </button>
                          <span className="muted small"> {formatBytes(f.size)}</span>
                        </li>
                      ))}
                  </ul>
                )}
              </li>
            ))
          : null}
      </ul>
    </div>
  );
}
