import { useState } from "react";
import { artifactViewUrl } from "../ipc";
import { useInView } from "../viewers/useInView";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import { familyOf, thumbnailFor, typeLabel } from "./filters";
import "./browser.css";

/** A picture for images and PDFs (loaded once the card comes into view), else a type icon.
 * `pdfPage: false` gives a PDF its icon (the search palette: its list changes with every
 * keystroke, and each first page would be a render). `picture: false` gives every file its icon
 * (a team search hit: the file may be on another member's machine, not in this one's store). */
export function Thumb({ record, small = false, pdfPage = true, picture = true }: { record: ArtifactRecord; small?: boolean; pdfPage?: boolean; picture?: boolean }) {
  const thumbnail = thumbnailFor(record);
  const [failed, setFailed] = useState(false);
  const [ref, seen] = useInView<HTMLSpanElement>();
  const family = familyOf(record.mime);
  const className = `thumb${small ? " small" : ""} family-${family}`;
  if (thumbnail.kind === "icon" || !picture || failed || (!pdfPage && family === "pdf")) {
    return (
      <span className={`${className} icon`} aria-hidden="true">
        <span className="thumb-label">{typeLabel(record)}</span>
      </span>
    );
  }
  return (
    <span ref={ref} className={className}>
      {seen ? <img src={artifactViewUrl(record.id, thumbnail.view)} alt="" draggable={false} onError={() => setFailed(true)} /> : null}
    </span>
  );
}
