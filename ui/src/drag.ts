/** Follows a drag that started with `down` (a pointerdown on a resize handle): `move` gets each
 * pointer position until the button is released. Text selection and frames (which would swallow
 * the pointer) are off meanwhile (`body.resizing`). */
export function followPointer(down: { preventDefault(): void }, move: (e: PointerEvent) => void): void {
  down.preventDefault();
  document.body.classList.add("resizing");
  const up = () => {
    document.body.classList.remove("resizing");
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
}
