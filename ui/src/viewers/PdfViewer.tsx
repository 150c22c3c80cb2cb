import { useEffect, useRef, useState } from "react";
import { artifactViewUrl } from "../ipc";
import type { Focus } from "../wire/Focus";
import { useFocusRequest } from "./useFocusRequest";
import { useInView } from "./useInView";
import { useZoomShortcuts } from "./zoom";

interface Info {
  pages?: number;
  error?: string;
}

/** Below this width the thumbnail strip is hidden by default (the page needs the room). */
export const THUMBS_MIN_VIEWER_WIDTH = 560;

/** Zoom steps, relative to the pane's width ("fit width" is 1). */
const ZOOMS = [0.5, 0.75, 1, 1.5, 2];
const FIT = ZOOMS.indexOf(1);

/** Width of the page thumbnails in CSS pixels (rendered at twice that for sharp screens). */
const THUMB_WIDTH = 96;

/** PDF pages rendered by pdfium in Rust, one PNG per page from the `artifact:` scheme; only the
 * page shown is rendered (a 500-page PDF opens at page 1 without rendering the rest), and the
 * thumbnails strip renders a page's thumbnail only once it scrolls into view. A search hit's
 * page (`focus`) is gone to once the page count is known. */
export function PdfViewer({ id, name, active = true, focus = null }: { id: string; name: string; active?: boolean; focus?: Focus | null }) {
  const [info, setInfo] = useState<Info | null>(null);
  const [page, setPage] = useState(1);
  const [zoom, setZoom] = useState(FIT);
  // Thumbnails unless the user chose otherwise, or the viewer is too narrow for them and a page
  // at a readable width (a split pane): then the page gets the width.
  const [thumbsChoice, setThumbsChoice] = useState<boolean | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const [viewerWidth, setViewerWidth] = useState(0);
  useEffect(() => {
    const element = root.current;
    if (!element) return;
    const measure = () => setViewerWidth(element.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [info]);
  const showThumbs = thumbsChoice ?? (viewerWidth === 0 || viewerWidth >= THUMBS_MIN_VIEWER_WIDTH);
  const setShowThumbs = (update: (shown: boolean) => boolean) => setThumbsChoice(update(showThumbs));
  const area = useRef<HTMLDivElement>(null);
  const [fitWidth, setFitWidth] = useState(0);
  useEffect(() => {
    const element = area.current;
    if (!element) return;
    const measure = () => setFitWidth(Math.max(200, element.clientWidth - 32));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [info]);
  useEffect(() => {
    let live = true;
    setInfo(null);
    setPage(1);
    fetch(artifactViewUrl(id, "info"))
      .then((r) => r.json() as Promise<Info>)
      .then((i) => live && setInfo(i))
      .catch((e: unknown) => live && setInfo({ error: String(e) }));
    return () => {
      live = false;
    };
  }, [id]);
  const pageCount = info?.pages ?? 0;
  useFocusRequest(focus, "page", pageCount > 0, (n) => setPage(Math.min(pageCount, Math.max(1, n))));
  // A new page starts at its top.
  useEffect(() => area.current?.scrollTo({ top: 0 }), [page]);
  useZoomShortcuts(active, (action) =>
    setZoom((z) => (action === "zoom_in" ? Math.min(ZOOMS.length - 1, z + 1) : action === "zoom_out" ? Math.max(0, z - 1) : FIT)),
  );
  if (!info) return <p className="muted viewer-status">Opening {name}…</p>;
  if (info.error || !info.pages) return <p className="error viewer-status pdf-error">{info.error ?? "This PDF has no pages."}</p>;
  const pages = info.pages;
  const go = (n: number) => setPage(Math.min(pages, Math.max(1, n)));
  // Requested in steps of 100 px (so the render cache is reused), drawn at the exact width.
  const shown = Math.round(fitWidth * ZOOMS[zoom]);
  const requested = Math.min(4000, Math.max(100, Math.ceil((shown * (window.devicePixelRatio || 1)) / 100) * 100));
  return (
    <div className="pdf-viewer" ref={root}>
      <div className="pdf-toolbar">
        <button type="button" className={`pdf-thumbs-toggle${showThumbs ? " active" : ""}`} aria-pressed={showThumbs} onClick={() => setShowThumbs((s) => !s)} title="Page thumbnails">
          Pages
        </button>
        <button type="button" className="pdf-prev" disabled={page <= 1} onClick={() => go(page - 1)} aria-label="Previous page">
          ‹
        </button>
        <span className="pdf-page-number">
          Page {page} of {pages}
        </span>
        <button type="button" className="pdf-next" disabled={page >= pages} onClick={() => go(page + 1)} aria-label="Next page">
          ›
        </button>
        <span className="pdf-zoom">
          <button type="button" className="zoom-out" disabled={zoom === 0} onClick={() => setZoom((z) => z - 1)} aria-label="Zoom out" title="Zoom out (Ctrl+-)">
            −
          </button>
          <button type="button" className={zoom === FIT ? "active" : ""} onClick={() => setZoom(FIT)} title="Fit width (Ctrl+0)">
            {Math.round(ZOOMS[zoom] * 100)}%
          </button>
          <button type="button" className="zoom-in" disabled={zoom === ZOOMS.length - 1} onClick={() => setZoom((z) => z + 1)} aria-label="Zoom in" title="Zoom in (Ctrl+=)">
            +
          </button>
        </span>
      </div>
      <div className="pdf-body">
        {showThumbs ? <ThumbnailStrip id={id} name={name} pages={pages} current={page} onPick={go} /> : null}
        <div className="pdf-page-area" ref={area}>
          {fitWidth > 0 ? <img className="pdf-page" alt={`${name}, page ${page}`} src={artifactViewUrl(id, `page/${page}?width=${requested}`)} width={shown} /> : null}
        </div>
      </div>
    </div>
  );
}

function ThumbnailStrip({ id, name, pages, current, onPick }: { id: string; name: string; pages: number; current: number; onPick: (page: number) => void }) {
  const strip = useRef<HTMLDivElement>(null);
  // The current page's thumbnail stays in view as pages change.
  useEffect(() => {
    const button = strip.current?.querySelector<HTMLElement>(`[data-page="${current}"]`);
    button?.scrollIntoView({ block: "nearest" });
  }, [current]);
  return (
    <div className="pdf-thumbs" ref={strip} role="listbox" aria-label={`Pages of ${name}`}>
      {Array.from({ length: pages }, (_, i) => (
        <PageThumb key={i + 1} id={id} page={i + 1} current={i + 1 === current} onPick={onPick} />
      ))}
    </div>
  );
}

function PageThumb({ id, page, current, onPick }: { id: string; page: number; current: boolean; onPick: (page: number) => void }) {
  const [ref, seen] = useInView<HTMLButtonElement>("300px");
  const [loaded, setLoaded] = useState(false);
  return (
    <button ref={ref} type="button" role="option" aria-selected={current} className={`pdf-thumb${current ? " current" : ""}`} data-page={page} onClick={() => onPick(page)} title={`Page ${page}`}>
      <span className={`pdf-thumb-page${loaded ? " loaded" : ""}`}>
        {seen ? <img src={artifactViewUrl(id, `page/${page}?width=${THUMB_WIDTH * 2}`)} alt="" width={THUMB_WIDTH} onLoad={() => setLoaded(true)} draggable={false} /> : null}
      </span>
      <span className="pdf-thumb-number">{page}</span>
    </button>
  );
}
