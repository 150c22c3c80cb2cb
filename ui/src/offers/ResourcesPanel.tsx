import { useCallback, useEffect, useMemo, useState } from "react";
import { CommandErrorView } from "../components/CommandErrorView";
import { OfferHeader } from "./OfferHeader";
import { onResourceWatch, resourceRead, resourceUnwatch, resourceWatch, serverResources } from "../ipc";
import { noteRead, setWatch, useWatches, watchStarted } from "./watches";
import { OutcomeView } from "../components/OutcomeView";
import type { ResourceRead } from "../wire/ResourceRead";
import type { ResourceTemplateView } from "../wire/ResourceTemplateView";
import { CompletingInput } from "./CompletingInput";
import { expandTemplate, templateVariables } from "./uriTemplate";
import { formatBytes as formatSize } from "../browser/filters";
import { readAsOutcome, useServerListing } from "./shared";

/** Resources are shown this many at a time (a server may list thousands). */
export const RESOURCE_PAGE = 100;

/** A server's resources and templates: open one in the canvas, watch one live, fill in a template
 * with the server's suggestions. */
export function ResourcesPanel({ server, onClose }: { server: string; onClose: () => void }) {
  const [listing, reload] = useServerListing(server, serverResources, "resources");
  const [filter, setFilter] = useState("");
  const [shown, setShown] = useState(RESOURCE_PAGE);
  const [busy, setBusy] = useState<string | null>(null);
  const [last, setLast] = useState<ResourceRead | null>(null);
  // What the last request failed with, and the URI it was about (null: not one URI).
  const [failure, setFailure] = useState<{ uri: string | null; error: unknown } | null>(null);
  const setError = (error: unknown, uri: string | null = null) => setFailure(error === null ? null : { uri, error });
  const [watchNote, setWatchNote] = useState<string | null>(null);
  const watches = useWatches(server);

  useEffect(
    () =>
      onResourceWatch((event) => {
        if (event.server === server && event.state === "ended") setWatchNote(`Stopped watching ${event.uri}: ${event.detail ?? "the watch ended"}`);
      }),
    [server],
  );

  const open = useCallback(
    async (uri: string) => {
      setBusy(uri);
      setFailure(null);
      try {
        const read = await resourceRead(server, uri);
        noteRead(read);
        setLast(read);
      } catch (e) {
        // The previous read's result would stand under the new error as if it were this one's.
        setLast(null);
        setFailure({ uri, error: e });
        throw e;
      } finally {
        setBusy(null);
      }
    },
    [server],
  );
  const openQuietly = useCallback((uri: string) => open(uri).catch(() => {}), [open]);

  async function toggleWatch(uri: string) {
    setError(null);
    if (watches[uri]) {
      setWatch(server, uri, null);
      await resourceUnwatch(server, uri).catch((e) => setError(e, uri));
      return;
    }
    setWatch(server, uri, "starting");
    try {
      await open(uri);
      await resourceWatch(server, uri);
      watchStarted(server, uri);
    } catch (e) {
      setWatch(server, uri, null);
      setError(e, uri);
    }
  }

  const resources = useMemo(() => {
    if (listing.kind !== "ready") return [];
    const q = filter.trim().toLowerCase();
    return q === "" ? listing.value.resources : listing.value.resources.filter((r) => [r.name, r.title ?? "", r.uri, r.description ?? ""].some((t) => t.toLowerCase().includes(q)));
  }, [listing, filter]);

  // What the last request gave, shown where the user asked for it: under the resource's row when
  // it is in the list on screen (the list may be 100 rows long), else above the list.
  const shownUris = new Set(resources.slice(0, shown).map((r) => r.uri));
  const outcomeUri = failure ? failure.uri : (last?.uri ?? null);
  const inRow = outcomeUri !== null && shownUris.has(outcomeUri);
  const outcome =
    failure !== null ? (
      <CommandErrorView error={failure.error} server={server} className="offer-error" />
    ) : last ? (
      <section className="offer-result last-read" aria-label="Last read">
        <h3>Last read: {last.uri}</h3>
        <OutcomeView outcome={readAsOutcome(last.read_id, server, "resources/read", last)} onChoose={() => {}} />
      </section>
    ) : null;

  return (
    <div className="offer-panel resources-panel" data-server={server}>
      <OfferHeader what="Resources" server={server} onReload={() => reload()} onClose={onClose} />
      {listing.kind === "loading" ? <p className="muted">Listing…</p> : null}
      {listing.kind === "failed" ? <CommandErrorView error={listing.error} server={server} onRetry={() => reload()} /> : null}
      {watchNote ? <p className="muted small">{watchNote}</p> : null}
      {listing.kind === "ready" && !listing.value.supported ? <p className="muted">{server} offers no resources.</p> : null}
      {listing.kind === "ready" && listing.value.supported ? (
        <>
          {listing.value.templates.length > 0 ? (
            <section className="offer-section">
              <h3>Templates</h3>
              {listing.value.templates.map((t) => (
                <TemplateForm key={t.uri_template} server={server} template={t} busy={busy !== null} onOpen={openQuietly} />
              ))}
            </section>
          ) : null}
          {!inRow ? outcome : null}
          <section className="offer-section">
            <h3>
              Resources <span className="muted small">{listing.value.resources.length}</span>
            </h3>
            {listing.value.resources.length > 10 ? (
              <input type="search" className="offer-filter" placeholder="Filter resources" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Filter resources" />
            ) : null}
            {resources.length === 0 ? <p className="muted small">No resources{filter ? " match" : ""}.</p> : null}
            <ul className="offer-list">
              {resources.slice(0, shown).map((r) => {
                const watch = watches[r.uri];
                return (
                  <li key={r.uri} className={`offer-item${inRow && outcomeUri === r.uri ? " has-outcome" : ""}`} data-uri={r.uri}>
                    <div className="offer-item-text" title={r.description ?? undefined}>
                      <span className="offer-title">{r.title ?? r.name}</span>
                      <span className="offer-sub resource-uri" title={r.uri}>
                        {r.uri}
                      </span>
                      {r.mime !== null || r.size !== null ? (
                        <span className="resource-facts">
                          {r.mime !== null ? (
                            <span className="resource-mime" title={r.mime}>
                              {r.mime}
                            </span>
                          ) : null}
                          {r.mime !== null && r.size !== null ? " · " : null}
                          {r.size !== null ? <span className="resource-size">{formatSize(r.size)}</span> : null}
                        </span>
                      ) : null}
                      {watch && typeof watch === "object" ? (
                        <span className={`watch-state ${watch.state}`}>{watch.state === "failed" ? `read ${watch.reads}× · last failed: ${watch.detail}` : `live · updated ${watch.reads}×`}</span>
                      ) : watch === "watching" ? (
                        <span className="watch-state">live · waiting for changes</span>
                      ) : null}
                    </div>
                    <div className="offer-actions">
                      <button type="button" className="resource-open" disabled={busy !== null} onClick={() => void openQuietly(r.uri)}>
                        {busy === r.uri ? "Opening…" : "Open"}
                      </button>
                      <button type="button" className="resource-watch" aria-pressed={watch !== undefined} disabled={watch === "starting"} onClick={() => void toggleWatch(r.uri)} title="Keep its tab live: read it again each time the server says it changed">
                        {watch ? "Stop watching" : "Watch"}
                      </button>
                    </div>
                    {inRow && outcomeUri === r.uri ? <div className="offer-item-outcome">{outcome}</div> : null}
                  </li>
                );
              })}
            </ul>
            {resources.length > shown ? (
              <button type="button" className="show-more" onClick={() => setShown((n) => n + RESOURCE_PAGE)}>
                Show {Math.min(RESOURCE_PAGE, resources.length - shown)} more of {resources.length - shown}
              </button>
            ) : null}
          </section>
        </>
      ) : null}
      {listing.kind !== "ready" || !listing.value.supported ? outcome : null}
    </div>
  );
}

function TemplateForm({ server, template, busy, onOpen }: { server: string; template: ResourceTemplateView; busy: boolean; onOpen: (uri: string) => Promise<unknown> }) {
  const variables = useMemo(() => templateVariables(template.uri_template), [template.uri_template]);
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = expandTemplate(template.uri_template, values);
  const complete = variables.every((v) => (values[v] ?? "") !== "");
  const target = useMemo(() => ({ kind: "resource_template" as const, uri_template: template.uri_template }), [template.uri_template]);
  return (
    <form
      className="template-form"
      data-template={template.uri_template}
      onSubmit={(e) => {
        e.preventDefault();
        if (complete) void onOpen(uri);
      }}
    >
      <p className="offer-title">{template.title ?? template.name}</p>
      {template.description ? <p className="muted small">{template.description}</p> : null}
      {variables.map((v) => (
        <CompletingInput
          key={v}
          server={server}
          target={target}
          name={v}
          label={v}
          required
          value={values[v] ?? ""}
          context={Object.fromEntries(Object.entries(values).filter(([k, val]) => k !== v && val !== ""))}
          onChange={(value) => setValues((old) => ({ ...old, [v]: value }))}
        />
      ))}
      <p className="template-uri muted small">
        <code>{uri}</code>
      </p>
      <button type="submit" className="template-open" disabled={!complete || busy}>
        Open
      </button>
    </form>
  );
}
