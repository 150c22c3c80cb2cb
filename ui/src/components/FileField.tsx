// The file field of a tool's file argument (issue 32): an @rjsf custom field (`ui:field`
// FILE_FIELD, set by `withFileFields`, registered by SchemaForm) whose value is a reference
// string, `artifact:<ID>`, or a list of them. It shows a chip per file and fills itself from the
// disk (the native open dialog), the store (a small picker), a canvas tab or artifact browser row
// dropped on it (HTML5 drag data, drag.ts), or files dropped from the desktop (routed by
// desktopDrops.ts). What the tool takes (`accept`,
// `max_size`) is checked here, from each file's record, before anything is sent; the tool panel
// holds the records and keeps "Call tool" disabled while a file field is wrong.
import type { FieldProps } from "@rjsf/utils";
import { useContext, useEffect, useId, useRef, useState } from "react";
import { formatBytes } from "../browser/filters";
import { Thumb } from "../browser/Thumb";
import { droppedArtifactId, isArtifactDrag } from "../drag";
import { accepts, checkFileField, recordProblem, takesText, withFiles, withoutFile, type FileItem } from "../forms/fileArguments";
import { artifactImportPaths, artifactImportPick, artifactRecord, artifactsQuery, errorText } from "../ipc";
import { revealBidi } from "../viewers/bidi";
import { IsolatedText } from "../viewers/TextViewers";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { FileArgument } from "../wire/FileArgument";
import type { MimeFamily } from "../wire/MimeFamily";
import { registerDesktopDropTarget } from "./desktopDrops";
import { FileFieldsContext } from "./fileFieldsContext";

/** One file argument, in the form. */
export function FileField({ name, schema, formData, onChange, fieldPathId, disabled, readonly, required }: FieldProps) {
  const { args, records, remember } = useContext(FileFieldsContext);
  const arg: FileArgument = args.find((a) => a.name === name) ?? { name, multiple: schema.type === "array", accept: [], max_size: null };
  const check = checkFileField(arg, formData, records);
  const labelId = useId();
  const latest = useRef(formData);
  latest.current = formData;
  const [busy, setBusy] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [picking, setPicking] = useState(false);
  const [over, setOver] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const off = Boolean(disabled || readonly);
  const label = typeof schema.title === "string" && schema.title ? schema.title : name;
  const takes = takesText(arg);

  const set = (value: unknown) => onChange(value, fieldPathId.path);

  function add(found: ArtifactRecord[]) {
    if (found.length === 0) return; // cancelled
    remember(found);
    latest.current = withFiles(arg, latest.current, found);
    set(latest.current);
  }

  async function act(doing: string, action: () => Promise<ArtifactRecord[]>, after?: (found: ArtifactRecord[]) => void) {
    setBusy(doing);
    setNote(null);
    try {
      const found = await action();
      add(found);
      after?.(found);
    } catch (error) {
      setNote(`Could not add the file: ${errorText(error)}`);
    } finally {
      setBusy(null);
    }
  }

  const choose = () => void act("Opening…", () => artifactImportPick(arg.multiple));

  // Desktop files: one field takes one (the first), a list takes them all.
  const dropPaths = (paths: string[]) =>
    void act(
      "Storing…",
      () => artifactImportPaths(arg.multiple ? paths : paths.slice(0, 1)),
      (found) => {
        if (!arg.multiple && paths.length > 1 && found[0]) setNote(`${label} takes one file: kept ${found[0].name}`);
      },
    );
  const dropRef = useRef(dropPaths);
  dropRef.current = dropPaths;
  useEffect(() => {
    if (!box.current || off) return;
    return registerDesktopDropTarget(box.current, (paths) => dropRef.current(paths));
  }, [off]);

  // A canvas tab or a browser row dropped here: its artifact id.
  const dragOver = (event: React.DragEvent) => {
    if (off || !isArtifactDrag(event.dataTransfer)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    setOver(true);
  };
  const drop = (event: React.DragEvent) => {
    setOver(false);
    const id = off ? null : droppedArtifactId(event.dataTransfer);
    if (!id) return;
    event.preventDefault();
    void act("Adding…", async () => [await artifactRecord(id)]);
  };

  const remove = (index: number) => {
    setNote(null);
    latest.current = withoutFile(arg, latest.current, index);
    set(latest.current);
  };

  const held = new Set(check.items.flatMap((i) => (i.kind === "stored" ? [i.id] : [])));
  const invalid = check.problems.length > 0;
  const problemsId = `${fieldPathId.$id}__file-problems`;

  return (
    <div
      ref={box}
      className={`file-field${over ? " drop-over" : ""}${invalid ? " invalid" : ""}`}
      role="group"
      aria-labelledby={labelId}
      aria-describedby={invalid ? problemsId : undefined}
      data-file-field={name}
      onDragEnter={dragOver}
      onDragOver={dragOver}
      onDragLeave={(event) => {
        if (!box.current?.contains(event.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={drop}
    >
      <span id={labelId} className="control-label">
        {label}
        {required ? <span className="required">*</span> : null}
      </span>
      {typeof schema.description === "string" && schema.description ? <p className="field-description">{schema.description}</p> : null}
      {check.items.length > 0 ? (
        <ul className="file-chips" aria-label={arg.multiple ? `Files for ${label}` : `File for ${label}`}>
          {check.items.map((item, index) => (
            <FileChip key={`${index}:${String(item.value)}`} item={item} disabled={off} onRemove={() => remove(index)} />
          ))}
        </ul>
      ) : null}
      <div className="file-field-actions">
        <button id={fieldPathId.$id} type="button" className="secondary file-choose" disabled={off || busy !== null} onClick={choose}>
          {arg.multiple ? "Choose files…" : "Choose file…"}
        </button>
        <button type="button" className="secondary file-stored" aria-expanded={picking} disabled={off} onClick={() => setPicking((p) => !p)}>
          From stored files…
        </button>
      </div>
      <p className="file-field-hint small muted">
        {busy ?? `Or drop ${arg.multiple ? "files" : "a file"} here, from the desktop or a canvas tab.`}
        {takes ? ` Takes ${takes}.` : null}
      </p>
      {picking ? (
        <StoredFilePicker
          arg={arg}
          held={held}
          onPick={(record) => {
            setNote(null);
            add([record]);
            if (!arg.multiple) setPicking(false);
          }}
          onClose={() => setPicking(false)}
        />
      ) : null}
      {invalid ? (
        <ul className="file-field-problems" id={problemsId}>
          {check.problems.map((problem, i) => (
            <li key={i} className="error small">
              {problem}
            </li>
          ))}
        </ul>
      ) : null}
      {note ? <p className="file-field-note small" role="status">{note}</p> : null}
    </div>
  );
}

/** One file of a field: thumbnail, name (isolated), type, size, and its remove button. */
function FileChip({ item, disabled, onRemove }: { item: FileItem; disabled: boolean; onRemove: () => void }) {
  const record = item.kind === "stored" && item.state?.kind === "ok" ? item.state.record : null;
  let name: string;
  let meta: string;
  if (record) {
    name = record.name;
    meta = `${record.mime || "unknown type"} · ${formatBytes(record.size)}`;
  } else if (item.kind === "stored") {
    name = item.value;
    meta = item.state?.kind === "failed" ? "not found" : "Looking it up…";
  } else if (item.kind === "inline") {
    name = "Inline data";
    meta = `${item.mime} · ${formatBytes(item.size)}`;
  } else {
    name = typeof item.value === "string" ? item.value : JSON.stringify(item.value);
    meta = "not a file reference";
  }
  return (
    <li className={`file-chip${item.problem ? " invalid" : ""}`} data-artifact={item.kind === "stored" ? item.id : undefined}>
      {record ? <Thumb record={record} small pdfPage={false} /> : <span className="thumb small icon file-chip-icon" aria-hidden="true" />}
      <span className="file-chip-text">
        <span className="file-chip-name" title={revealBidi(name)}>
          <IsolatedText text={name} />
        </span>
        <span className="file-chip-meta">{meta}</span>
      </span>
      <button type="button" className="file-chip-remove" aria-label={`Remove ${revealBidi(name)}`} title="Remove" disabled={disabled} onClick={onRemove}>
        ×
      </button>
    </li>
  );
}

/** How many stored files the picker lists (most recently used first). */
const PICKER_LIMIT = 100;

/** The store's family filter when every accepted type is under one family the store tells apart
 * the same way (`image/…`, `audio/…`, `video/…`); else `null` (filtered here by `accepts`). */
function familyFor(accept: string[]): MimeFamily | null {
  for (const family of ["image", "audio", "video"] as const) {
    if (accept.length > 0 && accept.every((a) => a.startsWith(`${family}/`))) return family;
  }
  return null;
}

/** "From stored files…": stored files of an accepted type, filtered by name; one click adds one. */
function StoredFilePicker({ arg, held, onPick, onClose }: { arg: FileArgument; held: Set<string>; onPick: (record: ArtifactRecord) => void; onClose: () => void }) {
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const [state, setState] = useState<{ kind: "loading" } | { kind: "ok"; items: ArtifactRecord[] } | { kind: "failed"; error: string }>({ kind: "loading" });

  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), 150);
    return () => clearTimeout(timer);
  }, [text]);

  const acceptKey = arg.accept.join("\n");
  useEffect(() => {
    const accept = acceptKey === "" ? [] : acceptKey.split("\n");
    let live = true;
    setState({ kind: "loading" });
    artifactsQuery({
      session: null,
      server: null,
      tool: null,
      family: familyFor(accept),
      name_contains: query === "" ? null : query,
      pinned_only: false,
      sort: "last_used",
      descending: true,
      limit: PICKER_LIMIT,
      offset: 0,
    }).then(
      (page) => live && setState({ kind: "ok", items: page.items.filter((r) => accepts(accept, r.mime, r.name)) }),
      (error) => live && setState({ kind: "failed", error: errorText(error) }),
    );
    return () => {
      live = false;
    };
  }, [query, acceptKey]);

  return (
    <div
      className="stored-picker"
      role="group"
      aria-label="Stored files"
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="stored-picker-bar">
        <input type="search" className="stored-picker-filter" placeholder="Filter by name…" aria-label="Filter stored files by name" value={text} autoFocus onChange={(e) => setText(e.target.value)} />
        <button type="button" className="secondary stored-picker-close" onClick={onClose}>
          Close
        </button>
      </div>
      {state.kind === "loading" ? <p className="small muted">Loading…</p> : null}
      {state.kind === "failed" ? <p className="small error">{state.error}</p> : null}
      {state.kind === "ok" && state.items.length === 0 ? (
        <p className="small muted">{arg.accept.length > 0 ? "No stored file of a type this tool takes matches." : "No stored file matches."}</p>
      ) : null}
      {state.kind === "ok" && state.items.length > 0 ? (
        <ul className="stored-picker-list">
          {state.items.map((record) => {
            const problem = recordProblem(arg, record);
            const chosen = held.has(record.id);
            return (
              <li key={record.id}>
                <button type="button" className="stored-pick" data-artifact={record.id} disabled={problem !== null || chosen} title={problem ?? (chosen ? "Already chosen" : `${revealBidi(record.name)} · ${record.server} / ${record.tool}`)} onClick={() => onPick(record)}>
                  <Thumb record={record} small pdfPage={false} />
                  <span className="file-chip-text">
                    <span className="file-chip-name">
                      <IsolatedText text={record.name} />
                    </span>
                    <span className="file-chip-meta">
                      {record.mime} · {formatBytes(record.size)}
                      {problem ? " · too large" : chosen ? " · chosen" : ""}
                    </span>
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </div>
  );
}

