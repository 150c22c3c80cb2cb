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
