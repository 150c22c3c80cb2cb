import { useEffect, useRef, useState } from "react";
import { artifactViewUrl } from "../ipc";

interface Info {
  pages?: number;
  error?: string;
}

/** Zoom steps, relative to the pane's width ("fit width" is 1). */
const ZOOMS = [0.5, 0.75, 1, 1.5, 2];

/** PDF pages rendered by pdfium in Rust, one PNG per page from the `artifact:` scheme; only the
 * page shown is rendered (a 500-page PDF opens at page 1 without rendering the rest). */
export function PdfViewer({ id, name }: { id: string; name: string }) {
  const [info, setInfo] = useState<Info | null>(null);
  const [page, setPage] = useState(1);
  const [zoom, setZoom] = useState(2);
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
    fetch(artifactViewUrl(id, "info"))
      .then((r) => r.json() as Promise<Info>)
      .then((i) => live && setInfo(i))
      .catch((e: unknown) => live && setInfo({ error: String(e) }));
    return () => {
      live = false;
    };
  }, [id]);
  if (!info) return <p className="muted viewer-status">Opening {name}…</p>;
  if (info.error || !info.pages) return <p className="error viewer-status pdf-error">{info.error ?? "This PDF has no pages."}</p>;
  const pages = info.pages;
  // Requested in steps of 100 px (so the render cache is reused), drawn at the exact width.
  const shown = Math.round(fitWidth * ZOOMS[zoom]);
  const requested = Math.min(4000, Math.max(100, Math.ceil((shown * (window.devicePixelRatio || 1)) / 100) * 100));
  return (
    <div className="pdf-viewer">
      <div className="pdf-toolbar">
        <button type="button" className="pdf-prev" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
          ‹
        </button>
        <span className="pdf-page-number">
          Page {page} of {pages}
        </span>
        <button type="button" className="pdf-next" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
          ›
        </button>
        <button type="button" disabled={zoom === 0} onClick={() => setZoom((z) => z - 1)}>
          −
        </button>
        <button type="button" disabled={zoom === ZOOMS.length - 1} onClick={() => setZoom((z) => z + 1)}>
          +
        </button>
      </div>
      <div className="pdf-page-area" ref={area}>
        {fitWidth > 0 ? (
          <img className="pdf-page" alt={`${name}, page ${page}`} src={artifactViewUrl(id, `page/${page}?width=${requested}`)} width={shown} />
        ) : null}
      </div>
    </div>
  );
}
