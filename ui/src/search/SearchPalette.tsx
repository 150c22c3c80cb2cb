import { useEffect, useMemo, useRef, useState } from "react";
import { FilterSelect, ServerToolFilters, TypeFilter, type Choice } from "../browser/FilterSelects";
import { whenText } from "../browser/filters";
import { Thumb } from "../browser/Thumb";
import { CommandErrorView } from "../components/CommandErrorView";
import { keepKeysInDialog, useModalFocus } from "../components/modalFocus";
import type { Scope } from "../browser/team";
import { artifactOpen, artifactOpenAt, artifactsSearch, artifactsSources, teamMembers, teamSearch, teamStatus } from "../ipc";
import { IsolatedText, NamedControls } from "../viewers/TextViewers";
import type { ArtifactSource } from "../wire/ArtifactSource";
import type { SearchHit } from "../wire/SearchHit";
import type { SnippetPart } from "../wire/SnippetPart";
import type { TeamMember } from "../wire/TeamMember";
import type { TeamStatus } from "../wire/TeamStatus";
import {
  DATE_RANGES,
  groupHits,
  hasText,
  memberText,
  moveSelection,
  newestOnly,
  NO_FILTERS,
  openAction,
  pendingText,
  placeText,
  SEARCH_DEBOUNCE_MS,
  searchScope,
  shownOrder,
  toSearchQuery,
  type DateRange,
  type SearchFilters,
} from "./searchState";
import "../browser/browser.css";
import "./search.css";

interface Props {
  /** Closes the palette (Escape, a click beside it, a hit opened); focus goes back where it was. */
  onClose: () => void;
  /** Whose files to search, as last chosen (kept by the window for the session); `team` counts
   * only with a team store. */
  scope: Scope;
  onScopeChange: (scope: Scope) => void;
}

const DATE_CHOICES: Choice<DateRange>[] = DATE_RANGES.map((r) => ({ value: r.value, text: r.label }));

/** What the list shows: the newest request's answer, or its error (never both). `pending`: files
 * of this machine whose text is not indexed yet (the team's search has no such count). */
type Answer = { kind: "results"; hits: SearchHit[]; pending: number; partial?: boolean } | { kind: "failed"; error: unknown } | null;

/**
 * The search palette (Ctrl+K, or the search button): the text of every stored file, searched as
 * you type, each hit under its file with where it is and a snippet; ArrowUp/ArrowDown choose,
 * Enter or a click opens the file at the hit in the focused pane. With a team store, a switch
 * searches the team's files instead (who stored each hit, a member filter); a teammate's file is
 * fetched into this machine's cache as it opens.
 */
export function SearchPalette({ onClose, scope: chosenScope, onScopeChange }: Props) {
  const [text, setText] = useState("");
  const [filters, setFilters] = useState<SearchFilters>(NO_FILTERS);
  const [sources, setSources] = useState<ArtifactSource[]>([]);
  // The team store's status: `undefined` while asked for, `null` with a local store.
  const [team, setTeam] = useState<TeamStatus | null | undefined>(undefined);
  const [members, setMembers] = useState<TeamMember[]>([]);
  const [answer, setAnswer] = useState<Answer>(null);
  const [searching, setSearching] = useState(false);
  const [selected, setSelected] = useState(0);
  // The hit being opened (a teammate's file is fetched first, which can take a while).
  const [opening, setOpening] = useState<SearchHit | null>(null);
  const [openError, setOpenError] = useState<unknown>(null);
  const requests = useRef(newestOnly());
  const scope = searchScope(chosenScope, team);
  const searchedScope = useRef(scope);
  const dialog = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const pressedBeside = useRef(false);
  const backdrop = useModalFocus(dialog, {
    onEscape: onClose,
    initialFocus: () => input.current,
  });

  useEffect(() => {
    let live = true;
    artifactsSources().then((s) => live && setSources(s), () => undefined);
    // A status that cannot be read offers no team search (as with a local store).
    teamStatus().then(
      (status) => live && setTeam(status),
      () => live && setTeam(null),
    );
    return () => {
      live = false;
    };
  }, []);

  // The member filter's choices, asked for once the team is searched (none if they cannot be
  // read: the search itself says what is wrong).
  const teamScope = scope === "team";
  useEffect(() => {
    if (!teamScope) return;
    let live = true;
    teamMembers().then((m) => live && setMembers(m), () => undefined);
    return () => {
      live = false;
    };
  }, [teamScope]);

  // Asked after a pause in typing; an answer is shown only if no later request was sent since
  // (answers can come back out of order). Blank text asks nothing: the hint is shown.
  // Another scope's answer is never shown under this one: it is dropped at once (not only when
  // the next request goes out), and the list is empty until this scope answers.
  useEffect(() => {
    if (searchedScope.current !== scope) {
      searchedScope.current = scope;
      requests.current.drop();
      setAnswer(null);
      setSelected(0);
      setOpenError(null);
    }
    if (!hasText(text)) {
      requests.current.drop();
      setAnswer(null);
      setSearching(false);
      return;
    }
    const timer = setTimeout(() => {
      const ticket = requests.current.next();
      setSearching(true);
      const query = toSearchQuery(text, filters, Date.now(), scope);
      const search =
        scope === "team"
          ? teamSearch(query).then((hits) => ({ hits, pending: 0 }))
          : artifactsSearch(query).then((results) => ({ hits: results.hits, pending: results.pending, partial: results.partial }));
      search.then(
        ({ hits, pending, partial }: { hits: SearchHit[]; pending: number; partial?: boolean }) => {
          if (!requests.current.isNewest(ticket)) return;
          setAnswer({ kind: "results", hits, pending, partial });
          setSelected(0);
          setSearching(false);
        },
        (error: unknown) => {
          if (!requests.current.isNewest(ticket)) return;
          setAnswer({ kind: "failed", error });
          setSearching(false);
        },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, filters, scope]);
  // Answers that arrive after the palette closed are dropped.
  useEffect(() => {
    const pending = requests.current;
    return () => pending.drop();
  }, []);

  const groups = useMemo(() => (answer?.kind === "results" ? groupHits(answer.hits) : []), [answer]);
  const shown = useMemo(() => shownOrder(groups), [groups]);
  const current = Math.min(selected, Math.max(0, shown.length - 1));

  // The chosen hit stays in view as the arrow keys move through a long list.
  useEffect(() => {
    list.current?.querySelector<HTMLElement>(`[data-index="${current}"]`)?.scrollIntoView?.({ block: "nearest" });
  }, [current, groups]);

  const open = async (hit: SearchHit) => {
    if (opening) return;
    const action = openAction(hit);
    setOpening(hit);
    setOpenError(null);
    try {
      if (action.kind === "open_at") await artifactOpenAt(hit.artifact.id, action.place, action.position);
      else await artifactOpen(hit.artifact.id);
      onClose();
    } catch (error) {
      // Deleted since it was found, the store unreadable…: said here, the palette stays open.
      setOpenError(error);
      setOpening(null);
    }
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    // The window's shortcuts (tabs, zoom) do not act behind the palette.
    keepKeysInDialog(event);
    const inList = event.target === input.current || list.current?.contains(event.target as Node);
    if ((event.key === "ArrowDown" || event.key === "ArrowUp") && inList) {
      event.preventDefault();
      setSelected(moveSelection(current, event.key === "ArrowDown" ? 1 : -1, shown.length));
    } else if (event.key === "Enter" && event.target === input.current) {
      event.preventDefault();
      if (shown[current]) void open(shown[current]);
    } else if ((event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey) && !event.altKey) {
      // Ctrl+K again: back to the search field, its text selected.
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    }
  };

  const results = answer?.kind === "results" ? answer : null;
  const pending = pendingText(results?.pending ?? 0) ?? (results?.partial ? "Only the newest files were checked for this phrase: add a word or a filter to reach older ones" : null);
  const now = Date.now();
  const blank = !hasText(text);
  // The switch: with a team store, or while its status is asked for after Team was chosen.
  const offerTeam = Boolean(team) || (team === undefined && chosenScope === "team");
  const me = team?.member ?? null;
  const choose = (next: Scope) => {
    if (next !== chosenScope) onScopeChange(next);
  };

  return (
    <div
      className="elicitation-backdrop search-backdrop"
      // A click beside the palette closes it (not the end of a drag that started inside it).
      onMouseDown={(event) => {
        backdrop.onMouseDown(event);
        pressedBeside.current = event.target === event.currentTarget;
      }}
      onClick={(event) => {
        if (pressedBeside.current && event.target === event.currentTarget) onClose();
      }}
    >
      <div ref={dialog} className="search-palette" role="dialog" aria-modal="true" aria-label="Search artifacts" tabIndex={-1} onKeyDown={onKeyDown}>
        <div className="search-field">
          <SearchIcon />
          <input
            ref={input}
            type="text"
            className="search-input"
            role="combobox"
            aria-label="Search the text of stored files"
            aria-autocomplete="list"
            aria-controls="search-results"
            aria-expanded={shown.length > 0}
            aria-activedescendant={shown.length > 0 ? `search-hit-${current}` : undefined}
            placeholder={teamScope ? "Search the team's files…" : "Search every stored file…"}
            autoComplete="off"
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          {searching ? <span className="search-busy" role="status" aria-label="Searching" /> : null}
          <kbd className="search-key">Esc</kbd>
        </div>
        <div className="browser-filters search-filters">
          {offerTeam ? (
            <span className="browser-layout search-scope" role="group" aria-label="Whose files">
              <button type="button" className={!teamScope ? "active" : ""} aria-pressed={!teamScope} onClick={() => choose("local")}>
                This machine
              </button>
              <button type="button" className={teamScope ? "active" : ""} aria-pressed={teamScope} onClick={() => choose("team")}>
                Team
              </button>
            </span>
          ) : null}
          {teamScope ? (
            <FilterSelect
              label="Member"
              value={filters.member}
              all="Everyone"
              choices={memberChoices(members, filters.member, me)}
              onChange={(member) => setFilters((f) => ({ ...f, member }))}
            />
          ) : null}
          <TypeFilter filters={filters} setFilters={setFilters} />
          <ServerToolFilters filters={filters} setFilters={setFilters} sources={sources} />
          <FilterSelect label="Date" value={filters.date} choices={DATE_CHOICES} onChange={(date) => setFilters((f) => ({ ...f, date: date ?? f.date }))} />
        </div>
        {openError !== null ? <CommandErrorView error={openError} className="search-error" /> : null}
        <div className="search-body">
          {blank ? (
            <SearchHint team={teamScope} />
          ) : answer?.kind === "failed" ? (
            <CommandErrorView error={answer.error} className="search-error" />
          ) : results && groups.length === 0 ? (
            <p className="search-empty muted">
              {teamScope ? "Nothing found in the team's files. " : "Nothing found. "}Try fewer words, another filter, or end a word with * to find what starts with it.
            </p>
          ) : (
            <ul ref={list} className="search-results" id="search-results" role="listbox" aria-label="Results">
              {groups.map((group) => (
                <li key={group.artifact.id} className="search-group" role="group" aria-label={group.artifact.name}>
                  {/* A click on the file opens it at its best hit (the keyboard reaches the hits). */}
                  <div className="search-file" onClick={() => void open(group.hits[0].hit)}>
                    <Thumb record={group.artifact} small pdfPage={false} picture={group.member === null} />
                    <span className="search-file-text">
                      <span className="search-file-name" title={group.artifact.name}>
                        <IsolatedText text={group.artifact.name} />
                      </span>
                      <span className="search-file-meta">
                        {group.member !== null ? (
                          <>
                            <span className="search-member">{memberText(group.member, me)}</span>
                            {" · "}
                          </>
                        ) : null}
                        {group.artifact.server} · {group.artifact.tool} · {whenText(group.artifact.created_at_ms, now)}
                      </span>
                    </span>
                  </div>
                  <ul className="search-hits" role="none">
                    {group.hits.map(({ hit, index }) => (
                      <li
                        key={index}
                        id={`search-hit-${index}`}
                        className={`search-hit${index === current ? " selected" : ""}`}
                        role="option"
                        aria-selected={index === current}
                        data-index={index}
                        onMouseMove={() => index !== current && setSelected(index)}
                        onClick={() => void open(hit)}
                      >
                        <span className="search-place">{placeText(hit)}</span>
                        <Snippet parts={hit.snippet} />
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          )}
        </div>
        <footer className="search-footer muted">
          {opening ? (
            <span className="search-opening" role="status">
              {opening.member !== null && opening.member !== me ? `Fetching ${opening.artifact.name} from the team…` : "Opening…"}
            </span>
          ) : pending ? (
            <span className="search-pending">{pending}</span>
          ) : null}
          <span className="search-keys">
            <kbd>↑</kbd> <kbd>↓</kbd> choose · <kbd>Enter</kbd> open · <kbd>Esc</kbd> close
          </span>
        </footer>
      </div>
    </div>
  );
}

/** A hit's snippet: plain text (never markup), matching words as `<mark>`, isolated as one run
 * with any bidirectional formatting characters named rather than applied (viewers/bidi.ts). */
function Snippet({ parts }: { parts: SnippetPart[] }) {
  if (parts.length === 0) return null;
  return (
    <bdi className="search-snippet">
      {parts.map((part, i) =>
        part.hit ? (
          <mark key={i}>
            <NamedControls text={part.text} />
          </mark>
        ) : (
          <NamedControls key={i} text={part.text} />
        ),
      )}
    </bdi>
  );
}

/** The member filter's choices (each with its count), with the one chosen kept even when the
 * list has not come (or no longer names it). */
function memberChoices(members: TeamMember[], chosen: string | null, me: string | null): Choice[] {
  const choices = members.map((m) => ({ value: m.member, text: `${memberText(m.member, me)} (${m.count})` }));
  return chosen === null || members.some((m) => m.member === chosen) ? choices : [...choices, { value: chosen, text: memberText(chosen, me) }];
}

/** What the box understands, before anything is typed. */
function SearchHint({ team }: { team: boolean }) {
  return (
    <div className="search-hint">
      {team ? (
        <p>Finds text inside the team's files that you may see — teammates' shared files and your private ones — and their names and the calls that made them.</p>
      ) : (
        <p>Finds text inside stored files — PDF pages, table rows, lines of text, code and JSON — and their names and the calls that made them.</p>
      )}
      <dl>
        <dt>
          <code>invoice acme</code>
        </dt>
        <dd>files with every word, in any order</dd>
        <dt>
          <code>"net revenue"</code>
        </dt>
        <dd>the words together, as a phrase</dd>
        <dt>
          <code>reven*</code>
        </dt>
        <dd>words that start with it (the word being typed already does)</dd>
      </dl>
    </div>
  );
}

export function SearchIcon() {
  return (
    <svg className="search-icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.7">
      <circle cx="7" cy="7" r="4.8" />
      <path d="M10.6 10.6L14.5 14.5" />
    </svg>
  );
}
