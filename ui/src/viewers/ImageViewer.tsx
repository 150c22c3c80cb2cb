import { useRef, useState } from "react";
import { artifactUrl } from "../ipc";
import { useZoomShortcuts } from "./zoom";

type Zoom = "fit" | number;

/** An image from the store: fit to the pane, zoom (buttons, Ctrl+wheel, Ctrl+= / Ctrl+- / Ctrl+0
 * while `active`), actual size, pan by dragging, a checkerboard behind transparency. SVG comes here
 * too, only ever as an <img>; TIFF, BMP and ICO arrive as PNG (converted in Rust). */
export function ImageViewer({ id, name, mime, active = true }: { id: string; name: string; mime: string; active?: boolean }) {
  const [zoom, setZoom] = useState<Zoom>("fit");
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const area = useRef<HTMLDivElement>(null);
  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);

  const scale = zoom === "fit" ? null : zoom;
  const step = (factor: number) => setZoom((z) => Math.min(16, Math.max(0.05, (z === "fit" ? fitScale() : z) * factor)));
  const fitScale = () => {
    const el = area.current;
    if (!el || !natural) return 1;
    return Math.min(1, (el.clientWidth - 48) / natural.w, (el.clientHeight - 48) / natural.h);
  };

  useZoomShortcuts(active, (action) => (action === "zoom_reset" ? setZoom("fit") : step(action === "zoom_in" ? 1.25 : 1 / 1.25)));

  return (
    <div className="image-viewer-frame">
      <div className="image-toolbar">
        <button type="button" className="zoom-out" onClick={() => step(1 / 1.25)} aria-label="Zoom out" title="Zoom out (Ctrl+-)">
          −
        </button>
        <button type="button" className="zoom-in" onClick={() => step(1.25)} aria-label="Zoom in" title="Zoom in (Ctrl+=)">
          +
        </button>
        <button type="button" className={zoom === "fit" ? "active" : ""} onClick={() => setZoom("fit")} title="Fit (Ctrl+0)">
          Fit
        </button>
        <button type="button" className={`actual-size${zoom === 1 ? " active" : ""}`} onClick={() => setZoom(1)}>
          100%
        </button>
        <span className="muted small">
          {natural ? `${natural.w}×${natural.h}` : ""} · {scale ? `${Math.round(scale * 100)}%` : "fit"} · {mime}
        </span>
      </div>
      <div
        ref={area}
        className={`image-area${scale ? " zoomed" : ""}`}
        onWheel={(e) => {
          if (!e.ctrlKey) return;
          e.preventDefault();
          step(e.deltaY < 0 ? 1.1 : 1 / 1.1);
        }}
        onMouseDown={(e) => {
          const el = area.current;
          if (!el || !scale) return;
          drag.current = { x: e.clientX, y: e.clientY, left: el.scrollLeft, top: el.scrollTop };
        }}
        onMouseMove={(e) => {
          const el = area.current;
          if (!el || !drag.current) return;
          el.scrollLeft = drag.current.left - (e.clientX - drag.current.x);
          el.scrollTop = drag.current.top - (e.clientY - drag.current.y);
        }}
        onMouseUp={() => (drag.current = null)}
        onMouseLeave={() => (drag.current = null)}
      >
        <img
          className="artifact-image"
          src={artifactUrl(id)}
          alt={name}
          data-artifact={id}
          draggable={false}
          onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
          style={scale && natural ? { width: natural.w * scale, height: natural.h * scale, maxWidth: "none", maxHeight: "none" } : undefined}
        />
      </div>
    </div>
  );
}
