import { useCallback, useEffect, useState } from "react";

// One IntersectionObserver per margin for the whole window, so hundreds of lazy thumbnails cost
// one observer. Intersection is with the viewport after clipping by scrolling ancestors, so this
// works inside any scroll container.
const observers = new Map<string, { observer: IntersectionObserver; callbacks: Map<Element, () => void> }>();

function observe(element: Element, margin: string, onVisible: () => void): () => void {
  let entry = observers.get(margin);
  if (!entry) {
    const callbacks = new Map<Element, () => void>();
    const observer = new IntersectionObserver(
      (changes) => {
        for (const change of changes) {
          if (change.isIntersecting) callbacks.get(change.target)?.();
        }
      },
      { rootMargin: margin },
    );
    entry = { observer, callbacks };
    observers.set(margin, entry);
  }
  const { observer, callbacks } = entry;
  callbacks.set(element, onVisible);
  observer.observe(element);
  return () => {
    callbacks.delete(element);
    observer.unobserve(element);
  };
}

/** A ref for an element and whether it has come within `margin` of being visible; once true, it
 * stays true (what was loaded stays loaded). */
export function useInView<T extends Element>(margin = "200px"): [(element: T | null) => void, boolean] {
  const [element, setElement] = useState<T | null>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    if (!element || seen) return;
    return observe(element, margin, () => setSeen(true));
  }, [element, seen, margin]);
  const ref = useCallback((e: T | null) => setElement(e), []);
  return [ref, seen];
}
