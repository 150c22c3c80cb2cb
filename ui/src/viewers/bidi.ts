// Text from a file or a server, shown in a table cell: bidirectional formatting characters in it
// must not reorder what is shown. The host keeps them out of file names altogether
// (crates/contract/src/names.rs, `is_bidi_control`: `report\u{202e}fdp.exe` would read as
// `reportexe.pdf`); a cell's text is data and stays as it is, so here it is shown with those
// characters named instead of applied, inside an isolate (`<bdi>`, `dir="auto"`) so a cell's
// direction never spills into its neighbours.

/** The characters that reorder what follows them: embeddings, overrides and isolates. (The marks
 * LRM, RLM and ALM only nudge neutral characters and stay as they are: right-to-left text uses them.) */
const CONTROLS: Record<string, { abbr: string; name: string }> = {
  "\u202A": { abbr: "LRE", name: "LEFT-TO-RIGHT EMBEDDING" },
  "\u202B": { abbr: "RLE", name: "RIGHT-TO-LEFT EMBEDDING" },
  "\u202C": { abbr: "PDF", name: "POP DIRECTIONAL FORMATTING" },
  "\u202D": { abbr: "LRO", name: "LEFT-TO-RIGHT OVERRIDE" },
  "\u202E": { abbr: "RLO", name: "RIGHT-TO-LEFT OVERRIDE" },
  "\u2066": { abbr: "LRI", name: "LEFT-TO-RIGHT ISOLATE" },
  "\u2067": { abbr: "RLI", name: "RIGHT-TO-LEFT ISOLATE" },
  "\u2068": { abbr: "FSI", name: "FIRST STRONG ISOLATE" },
  "\u2069": { abbr: "PDI", name: "POP DIRECTIONAL ISOLATE" },
};
const CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
const CONTROLS_GLOBAL = /[\u202A-\u202E\u2066-\u2069]/g;

/** A run of text as is, or one formatting character, named. */
export type BidiPart = { text: string } | { control: string; abbr: string; title: string };

/** `text` split into plain runs and its formatting characters. */
export function bidiParts(text: string): BidiPart[] {
  if (!CONTROL.test(text)) return [{ text }];
  const parts: BidiPart[] = [];
  let run = "";
  for (const c of text) {
    const control = CONTROLS[c];
    if (!control) {
      run += c;
      continue;
    }
    if (run) parts.push({ text: run });
    run = "";
    const code = `U+${c.codePointAt(0)!.toString(16).toUpperCase()}`;
    parts.push({ control: c, abbr: control.abbr, title: `${code} ${control.name} (shown, not applied)` });
  }
  if (run) parts.push({ text: run });
  return parts;
}

/** `text` for a tooltip or other plain text: each formatting character as `⟨RLO⟩`. */
export function revealBidi(text: string): string {
  return text.replace(CONTROLS_GLOBAL, (c) => `⟨${CONTROLS[c].abbr}⟩`);
}
