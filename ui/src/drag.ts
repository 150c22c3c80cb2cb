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
