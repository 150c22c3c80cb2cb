import { act, fireEvent, render } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ARTIFACT_DRAG_TYPE, SPRING_OPEN_MS, useSpringOpen } from "./drag";

// A sidebar tool that opens while a stored file is held over it (the artifact browser and the
// tool panel share a column: a browser row reaches a file field this way).
function Tool({ open }: { open: (() => void) | null }) {
  const spring = useSpringOpen(open);
  return (
    <button type="button" className={spring.armed ? "drop-armed" : ""} {...spring.handlers}>
      <span className="tool-title">Describe an image</span>
    </button>
  );
}

const stored = { types: [ARTIFACT_DRAG_TYPE, "text/plain"], getData: () => "demo_1f0c2b7e9a41", dropEffect: "none" };
const text = { types: ["text/plain"], getData: () => "hello", dropEffect: "none" };

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("useSpringOpen", () => {
  it("opens once a stored file has been held over it, also moving onto a child", () => {
    const open = vi.fn();
    const { container } = render(<Tool open={open} />);
    const button = container.querySelector("button")!;
    const title = container.querySelector(".tool-title")!;
    expect(fireEvent.dragEnter(button, { dataTransfer: stored })).toBe(false); // taken
    expect(button.className).toBe("drop-armed");
    act(() => vi.advanceTimersByTime(SPRING_OPEN_MS / 2));
    fireEvent.dragEnter(title, { dataTransfer: stored });
    fireEvent.dragLeave(button, { dataTransfer: stored });
    fireEvent.dragOver(title, { dataTransfer: stored });
    expect(open).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(SPRING_OPEN_MS / 2));
    expect(open).toHaveBeenCalledOnce();
    expect(button.className).toBe("");
    // Still held there: not opened again.
    fireEvent.dragOver(title, { dataTransfer: stored });
    act(() => vi.advanceTimersByTime(SPRING_OPEN_MS * 2));
    expect(open).toHaveBeenCalledOnce();
  });

  it("leaving before the wait ends opens nothing; other drags and tools without files are ignored", () => {
    const open = vi.fn();
    const { container, rerender } = render(<Tool open={open} />);
    const button = container.querySelector("button")!;
    fireEvent.dragEnter(button, { dataTransfer: stored });
    fireEvent.dragLeave(button, { dataTransfer: stored });
    act(() => vi.advanceTimersByTime(SPRING_OPEN_MS * 2));
    expect(open).not.toHaveBeenCalled();
    expect(fireEvent.dragEnter(button, { dataTransfer: text })).toBe(true); // not taken
    act(() => vi.advanceTimersByTime(SPRING_OPEN_MS * 2));
    rerender(<Tool open={null} />);
    expect(fireEvent.dragEnter(button, { dataTransfer: stored })).toBe(true);
    act(() => vi.advanceTimersByTime(SPRING_OPEN_MS * 2));
    expect(open).not.toHaveBeenCalled();
  });
});
