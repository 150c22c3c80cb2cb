// The view's DOM helpers (no host bridge here, so they can be tested on their own).
import { bidiParts, revealBidi } from "../viewers/bidi";

/** An element with properties and children; text children are set as text, never as markup. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> & { className?: string } = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/** A table cell's text as the canvas shows it (viewers/TextViewers.tsx, `IsolatedText`): isolated
 * from its neighbours (`<bdi>`), its bidirectional formatting characters named, not applied. */
export function tableCell(text: string): HTMLSpanElement {
  const isolate = el("bdi");
  for (const part of bidiParts(text)) isolate.append("control" in part ? el("abbr", { className: "bidi-control", title: part.title }, part.abbr) : part.text);
  return el("span", { className: "cell", title: revealBidi(text) }, isolate);
}
