import type { OutcomeText } from "../wire/OutcomeText";

/** A `resource_link` of a result: the contract turns each into a text
 * `Resource link: <name> <<uri>>[ — <description>]` (crates/host/src/resources.rs reads them back
 * the same way for the CLI). */
export interface ResourceLinkView {
  name: string;
  uri: string;
  description: string | null;
}

export function resourceLinks(texts: OutcomeText[]): ResourceLinkView[] {
  return texts.flatMap((t) => {
    const link = parseLink(t.text);
    return link ? [link] : [];
  });
}

function parseLink(text: string): ResourceLinkView | null {
  if (!text.startsWith("Resource link: ")) return null;
  const rest = text.slice("Resource link: ".length);
  // The name may contain ` <`; the URI is the first `<...>` that looks like an absolute URI.
  let from = 0;
  for (;;) {
    const at = rest.indexOf(" <", from);
    if (at < 0) return null;
    const after = rest.slice(at + 2);
    const end = after.indexOf(">");
    if (end >= 0) {
      const uri = after.slice(0, end);
      if (uri.includes(":") && !/\s/.test(uri)) {
        const tail = after.slice(end + 1);
        return { name: rest.slice(0, at), uri, description: tail.startsWith(" — ") ? tail.slice(3) : null };
      }
    }
    from = at + 2;
  }
}
