import { useEffect, useRef, useState } from "react";

/** Follows a drag that started with `down` (a pointerdown on a resize handle): `move` gets each
 * pointer position until the button is released — however the release is reported (pointer or
 * mouse up, a cancelled pointer, the window losing focus), so a drag never outlives the button.
 * Text selection and frames (which would swallow the pointer) are off meanwhile
 * (`body.resizing`). */
export function followPointer(down: { preventDefault(): void }, move: (e: PointerEvent) => void): void {
  down.preventDefault();
  document.body.classList.add("resizing");
  const ends = ["pointerup", "pointercancel", "mouseup", "blur"] as const;
  const onMove = (e: PointerEvent) => {
    // A move with no button down: the release was missed.
    if (e.buttons === 0) return up();
    move(e);
  };
  const up = () => {
    document.body.classList.remove("resizing");
    window.removeEventListener("pointermove", onMove);
    ends.forEach((name) => window.removeEventListener(name, up));
  };
  window.addEventListener("pointermove", onMove);
  ends.forEach((name) => window.addEventListener(name, up));
}

/** The drag data type of a stored file dragged inside the window (an artifact browser row or card,
 * a canvas tab): its artifact id. A file field takes it (components/FileField.tsx). */
export const ARTIFACT_DRAG_TYPE = "application/x-mcp-canvas-artifact";

/** The minimal part of a `DataTransfer` these helpers use (tests build one by hand). */
type DragData = Pick<DataTransfer, "getData" | "types">;

/** Starts dragging the stored file `id`: its id for file fields, and its reference as plain text
 * (dropped into a text box — the JSON arguments — it reads `artifact:ID`). */
export function startArtifactDrag(event: { dataTransfer: DataTransfer | null }, id: string): void {
  const data = event.dataTransfer;
  if (!data) return;
  data.setData(ARTIFACT_DRAG_TYPE, id);
  data.setData("text/plain", `artifact:${id}`);
  data.effectAllowed = "copy";
}

/** Whether a drag carries a stored file (while dragging only the types can be read). */
export const isArtifactDrag = (data: Pick<DataTransfer, "types"> | null | undefined): boolean => !!data && Array.from(data.types ?? []).includes(ARTIFACT_DRAG_TYPE);

/** The artifact id a drop carries, or `null`. */
export function droppedArtifactId(data: DragData | null | undefined): string | null {
  const id = data?.getData(ARTIFACT_DRAG_TYPE)?.trim();
  return id ? id : null;
}

/** How long a stored file held over a tool in the sidebar waits before that tool opens. */
export const SPRING_OPEN_MS = 600;

/** A sidebar tool that opens while a stored file is held over it (`SPRING_OPEN_MS`), so a row of
 * the artifact browser — which shares the tool panel's column — can still be dropped on one of
 * its file fields: drag the row onto the tool, wait, and carry on to the field. `armed` while
 * the wait runs (for the hover style); nothing happens for other drags or when `open` is null.
 * A drop on the element itself is the caller's (`disarm` stops the wait). */
export function useSpringOpen(open: (() => void) | null) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  // Enters minus leaves (moving onto a child enters it before leaving the parent), and whether
  // this hover already opened it (it does not open again until the drag leaves).
  const depth = useRef(0);
  const fired = useRef(false);
  const [armed, setArmed] = useState(false);
  const latest = useRef(open);
  latest.current = open;
  const disarm = () => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    setArmed(false);
  };
  useEffect(() => disarm, []);
  const taken = (event: { dataTransfer: DataTransfer | null; preventDefault(): void }) => {
    if (!latest.current || !isArtifactDrag(event.dataTransfer)) return false;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    return true;
  };
  const arm = () => {
    if (timer.current !== null || fired.current) return;
    setArmed(true);
    timer.current = setTimeout(() => {
      timer.current = null;
      fired.current = true;
      setArmed(false);
      latest.current?.();
    }, SPRING_OPEN_MS);
  };
  const reset = () => {
    depth.current = 0;
    fired.current = false;
    disarm();
  };
  return {
    armed,
    handlers: {
      onDragEnter: (event: { dataTransfer: DataTransfer | null; preventDefault(): void }) => {
        if (!taken(event)) return;
        depth.current += 1;
        arm();
      },
      onDragOver: (event: { dataTransfer: DataTransfer | null; preventDefault(): void }) => {
        if (taken(event)) arm();
      },
      onDragLeave: () => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) reset();
      },
    },
    /** Stops the wait (say, the file was dropped on the tool itself). */
    disarm: reset,
  };
}
